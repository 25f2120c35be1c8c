//===- Toolchain.cpp - running the target's compiler -----------------------===//
#include "Toolchain.h"

#include "onnxc/Driver/Driver.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/StringExtras.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>

namespace onnxc {

bool runProgram(const std::string &program, const std::vector<std::string> &args,
                std::string &error, std::string *capture, unsigned timeoutSeconds) {
  auto path = llvm::sys::findProgramByName(program);
  if (!path) {
    error = "cannot find '" + program + "' on PATH";
    return false;
  }
  std::vector<llvm::StringRef> argv{program};
  for (const std::string &a : args)
    argv.push_back(a);
  llvm::SmallString<128> log;
  llvm::sys::fs::createTemporaryFile("onnxc-tool", "log", log);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(*path, argv, std::nullopt, redirects, timeoutSeconds, 0,
                                     &msg);
  std::string output;
  if (auto buf = llvm::MemoryBuffer::getFile(log))
    output = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(log);
  if (capture)
    *capture = output;
  if (rc == 0)
    return true;
  error = "command failed (exit " + std::to_string(rc) + "): " + program;
  for (const std::string &a : args)
    error += " " + a;
  if (!msg.empty())
    error += "\n" + msg;
  if (!output.empty())
    error += "\n" + output;
  return false;
}

std::string runtimeIncludeDir() {
  if (const char *env = std::getenv("ONNXC_RUNTIME_INCLUDE"))
    return env;
  // Installed layout: <prefix>/bin/onnxc and <prefix>/include/onnxc/onnxc_rt
  // (a folder of its own: -I<prefix>/include would, for /usr, put the host's
  // C library before a cross compiler's).
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&runtimeIncludeDir));
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(dir, "include", "onnxc");
  llvm::SmallString<256> probe(dir);
  llvm::sys::path::append(probe, "onnxc_rt", "base.h");
  if (llvm::sys::fs::exists(probe))
    return std::string(dir);
  return ONNXC_SOURCE_RUNTIME_INCLUDE_DIR;
}

/// Copies the files under `from` into `dir`/`prefix`, recording them.
static bool copyTree(const std::string &from, const std::string &dir, const std::string &prefix,
                     std::vector<std::string> &files, std::string &error) {
  std::error_code ec;
  std::vector<std::string> sources;
  for (llvm::sys::fs::recursive_directory_iterator it(from, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      sources.push_back(it->path());
  if (ec) {
    error = "cannot read '" + from + "': " + ec.message();
    return false;
  }
  std::sort(sources.begin(), sources.end());
  for (const std::string &src : sources) {
    std::string rel = prefix + llvm::StringRef(src).drop_front(from.size()).ltrim('/').str();
    std::string dst = joinPath(dir, rel);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(dst));
    if ((ec = llvm::sys::fs::copy_file(src, dst))) {
      error = "cannot write '" + dst + "': " + ec.message();
      return false;
    }
    files.push_back(rel);
  }
  return true;
}

bool copyRuntimeHeaders(const std::string &dir, const std::string &prefix,
                        std::vector<std::string> &files, std::string &error) {
  return copyTree(joinPath(runtimeIncludeDir(), "onnxc_rt"), dir, prefix + "onnxc_rt/", files,
                  error);
}

/// Where an installed onnxc or the build keeps a folder of the source tree:
/// <prefix>/share/onnxc/<installed> if it exists, else the source tree's.
static std::string installedOrSource(const std::string &installed, const std::string &source) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&runtimeIncludeDir));
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(dir, "share", "onnxc", installed);
  if (llvm::sys::fs::is_directory(dir))
    return std::string(dir);
  return source;
}

std::string targetSupportDir(const Target &target) {
  llvm::SmallString<256> source(ONNXC_SOURCE_TARGETS_DIR);
  llvm::sys::path::append(source, target.supportFolder);
  return installedOrSource("targets/" + target.supportFolder, std::string(source));
}

std::string buildInstructionCounter(const std::string &dir, std::string &error) {
  llvm::SmallString<256> source(ONNXC_SOURCE_TOOLS_DIR);
  llvm::sys::path::append(source, "qemu");
  std::string sourceDir = installedOrSource("tools/qemu", std::string(source));
  std::string plugin = joinPath(dir, "count_instructions.so");
  const char *cc = std::getenv("CC");
  std::string compiler = cc && *cc ? cc : "cc";
  if (!runProgram(compiler, {"-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o", plugin,
                             joinPath(sourceDir, "count_instructions.c")},
                  error))
    return "";
  return plugin;
}

std::string targetCompiler(const Target &target) {
  if (target.hostCode)
    if (const char *cxx = std::getenv("CXX"))
      if (*cxx)
        return cxx;
  return target.toolchain().cxx;
}

/// Target flags plus $ONNXC_CXXFLAGS (space-separated), e.g. -Werror in tests.
static std::vector<std::string> compileFlags(const Target &target) {
  std::vector<std::string> flags = target.toolchain().cxxFlags();
  if (const char *extra = std::getenv("ONNXC_CXXFLAGS")) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(extra).split(parts, ' ', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef p : parts)
      flags.push_back(p.str());
  }
  return flags;
}

std::string unknownTargetMessage(const std::string &name) {
  std::string message = name == "native" ? "no registered target runs on this machine"
                                         : "unknown target '" + name + "'";
  message += "; known targets:";
  for (const Target *t : TargetRegistry::all())
    message += " " + t->name();
  return message;
}

const Target *selectTarget(const std::string &name, const std::string &cudaArch,
                           std::unique_ptr<Target> &variant, std::string &error) {
  const Target *target = TargetRegistry::find(name);
  if (!target) {
    error = unknownTargetMessage(name);
    return nullptr;
  }
  if (cudaArch.empty())
    return target;
  std::string canonical; // recorded through the variant's own "arch" option
  variant = target->variantFor("arch", cudaArch, canonical, error);
  return variant.get();
}

std::string joinPath(const std::string &dir, const std::string &file) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, file);
  return std::string(p);
}

/// The compiler that assembles the weights .S, and its flags.
static std::pair<std::string, std::vector<std::string>> assemblerOf(const Target &target) {
  const Toolchain &t = target.toolchain();
  if (!t.assembler.empty())
    return {t.assembler, {}};
  // The flags that select the instruction set matter for assembly too.
  return {targetCompiler(target), t.requiredFlags};
}

/// NAME_weights.S -> NAME_weights.o.
static bool assembleWeights(const Target &target, const std::string &dir,
                            const std::string &name, std::string &error) {
  auto [assembler, args] = assemblerOf(target);
  args.insert(args.end(), {"-Wa,-I" + dir, "-c", joinPath(dir, name + "_weights.S"), "-o",
                           joinPath(dir, name + "_weights.o")});
  return runProgram(assembler, args, error);
}

bool buildStaticLibrary(const Target &target, const std::string &dir,
                        const std::string &name, const std::string &sourceExt,
                        std::string &error) {
  std::string cxx = targetCompiler(target);
  std::vector<std::string> args = compileFlags(target);
  args.insert(args.end(), {"-I" + runtimeIncludeDir(), "-I" + dir, "-c",
                           joinPath(dir, name + sourceExt), "-o", joinPath(dir, name + ".o")});
  if (!runProgram(cxx, args, error))
    return false;
  if (!assembleWeights(target, dir, name, error))
    return false;
  std::string lib = joinPath(dir, "lib" + name + ".a");
  llvm::sys::fs::remove(lib);
  bool ok = runProgram(target.toolchain().ar, {"rcs", lib, joinPath(dir, name + ".o"),
                                   joinPath(dir, name + "_weights.o")},
                       error);
  llvm::sys::fs::remove(joinPath(dir, name + ".o"));
  llvm::sys::fs::remove(joinPath(dir, name + "_weights.o"));
  return ok;
}

//===-- The build cache of `onnxc run` and calibration ---------------------===//

std::string buildCacheDir() {
  if (const char *env = std::getenv("ONNXC_CACHE_DIR"))
    return llvm::StringRef(env) == "off" ? std::string() : std::string(env);
  llvm::SmallString<256> dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(dir, home, ".cache");
  else
    return "";
  llvm::sys::path::append(dir, "onnxc");
  return std::string(dir);
}

/// A hex sha256 over every runtime-lite header: the code a cached build
/// compiled in, which a rebuilt onnxc of the same version may have changed.
std::string runtimeHeadersDigest() {
  std::vector<std::string> files;
  std::error_code ec;
  const std::string root = runtimeIncludeDir();
  for (llvm::sys::fs::recursive_directory_iterator it(joinPath(root, "onnxc_rt"), ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  llvm::SHA256 hash;
  for (const std::string &f : files)
    if (auto buf = llvm::MemoryBuffer::getFile(f, /*IsText=*/false)) {
      hash.update(llvm::StringRef(f).drop_front(root.size()));
      hash.update((*buf)->getBuffer());
    }
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

/// Keeps the cache's `folder` to its most recently used entries: at most
/// kMaxEntries of them and kMaxBytes in all (a library carries its model's
/// weights: a ResNet-18's is 45 MB).
static void trimCache(const std::string &folder) {
  constexpr size_t kMaxEntries = 200;
  constexpr uint64_t kMaxBytes = uint64_t(1) << 30;
  struct Entry {
    llvm::sys::TimePoint<> used;
    uint64_t bytes;
    std::string path;
  };
  std::vector<Entry> entries;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(folder, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::sys::fs::file_status st;
    if (!llvm::sys::fs::status(it->path(), st))
      entries.push_back({st.getLastModificationTime(), st.getSize(), it->path()});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.used > b.used; }); // newest first
  uint64_t total = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    total += entries[i].bytes;
    if (i >= kMaxEntries || (i > 0 && total > kMaxBytes))
      llvm::sys::fs::remove(entries[i].path);
  }
}

std::string cachedFile(const std::string &kind, const std::string &key) {
  std::string root = buildCacheDir();
  if (root.empty())
    return "";
  std::string path = joinPath(joinPath(root, kind), key);
  if (!llvm::sys::fs::exists(path))
    return "";
  int fd;
  if (!llvm::sys::fs::openFileForWrite(path, fd, llvm::sys::fs::CD_OpenExisting,
                                       llvm::sys::fs::OF_Append)) {
    llvm::sys::fs::setLastAccessAndModificationTime(fd, std::chrono::system_clock::now());
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  }
  return path;
}

void storeInCache(const std::string &kind, const std::string &key, const std::string &file) {
  std::string root = buildCacheDir();
  if (root.empty())
    return;
  std::string folder = joinPath(root, kind);
  if (llvm::sys::fs::create_directories(folder))
    return; // a cache that cannot be written is no cache, not an error
  // Copied under a name of its own, then renamed: concurrent runs never see
  // a partial file.
  std::string partial = joinPath(folder, key + ".partial-" +
                                             std::to_string(llvm::sys::Process::getProcessId()));
  if (llvm::sys::fs::copy_file(file, partial) ||
      llvm::sys::fs::rename(partial, joinPath(folder, key)))
    llvm::sys::fs::remove(partial);
  trimCache(folder);
}

/// The target's compiler in a cache key: its name, and the size and time of
/// the file PATH finds (an upgraded compiler is another key).
static std::string compilerIdentity(const Target &target) {
  std::string id = targetCompiler(target) + "\n";
  if (auto cxx = llvm::sys::findProgramByName(targetCompiler(target))) {
    llvm::sys::fs::file_status st;
    if (!llvm::sys::fs::status(*cxx, st))
      id += *cxx + std::to_string(st.getSize()) +
            std::to_string(st.getLastModificationTime().time_since_epoch().count());
  }
  return id;
}

/// {"-include", HEADER} for the target's Toolchain::precompiledHeader,
/// precompiled with `flags` into the build cache on first use (folder
/// "pch"), when `source` includes one of its users; {} when the target names
/// none, the source would not parse it, there is no cache, or the header
/// cannot be precompiled. A compiler that cannot use it (another compiler's
/// or flags' file) parses the header instead: the object is the same either
/// way, so the library cache's keys leave these flags out.
static std::vector<std::string> precompiledHeaderFlags(const Target &target,
                                                       const std::vector<std::string> &flags,
                                                       const std::string &source) {
  const Toolchain &t = target.toolchain();
  const std::string &header = t.precompiledHeader;
  if (header.empty() || buildCacheDir().empty())
    return {};
  auto text = llvm::MemoryBuffer::getFile(source);
  if (!text || !(*text)->getBuffer().contains("#include \"" + t.precompiledHeaderUsers))
    return {};
  const std::string pch = "// <" + header + ">, precompiled by onnxc run (its build cache)\n" +
                          "#include <" + header + ">\n";
  llvm::SHA256 hash;
  hash.update(std::string("onnxc ") + ONNXC_VERSION + "\n" + compilerIdentity(target) + pch);
  for (const std::string &f : flags)
    hash.update(f + "\n");
  const std::string key = llvm::toHex(hash.final(), /*LowerCase=*/true) + ".h";
  std::string path = cachedFile("pch", key);
  if (!path.empty() && !cachedFile("pch", key + ".gch").empty())
    return {"-include", path};
  // Written and precompiled under names of their own, then renamed:
  // concurrent runs never see a partial file.
  const std::string folder = joinPath(buildCacheDir(), "pch");
  if (llvm::sys::fs::create_directories(folder) || !llvm::sys::fs::is_directory(folder))
    return {};
  path = joinPath(folder, key);
  const std::string partial = ".partial-" + std::to_string(llvm::sys::Process::getProcessId());
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(path + partial, ec);
    if (!ec) {
      os << pch;
      os.close();
      ec = os.error();
      os.clear_error(); // reported as `ec`, not as a fatal error on destruction
    }
  }
  std::vector<std::string> args = flags;
  args.insert(args.end(), {"-x", "c++-header", path + partial, "-o", path + ".gch" + partial});
  std::string ignored; // no precompiled header is no error: the compile parses it
  bool built = !ec && runProgram(targetCompiler(target), args, ignored) &&
               !llvm::sys::fs::rename(path + partial, path) &&
               !llvm::sys::fs::rename(path + ".gch" + partial, path + ".gch");
  llvm::sys::fs::remove(path + partial);
  llvm::sys::fs::remove(path + ".gch" + partial);
  trimCache(folder);
  if (!built)
    return {};
  return {"-include", path};
}

/// The model's source NAME<sourceExt> in `dir` compiled with `args` to
/// NAME.o there, with the target's precompiled header when it has one: the
/// object's path, or the source's (no precompiled header, or `useCache`
/// false: the caller compiles it with the rest). "" with `error` when it
/// does not compile.
static std::string modelObject(const Target &target, const std::vector<std::string> &args,
                               const std::string &dir, const std::string &name,
                               const std::string &sourceExt, bool useCache,
                               std::string &error) {
  std::string source = joinPath(dir, name + sourceExt);
  std::vector<std::string> pch =
      useCache ? precompiledHeaderFlags(target, args, source) : std::vector<std::string>{};
  if (pch.empty())
    return source;
  // A command of its own: -include would reach the weights' .S too.
  std::string object = joinPath(dir, name + ".o");
  std::vector<std::string> compile = args;
  compile.insert(compile.end(), pch.begin(), pch.end());
  compile.insert(compile.end(), {"-I" + runtimeIncludeDir(), "-I" + dir, "-c", source, "-o",
                                 object});
  return runProgram(targetCompiler(target), compile, error) ? object : "";
}

bool buildSharedLibrary(const Target &target, const std::string &dir,
                        const std::string &name, const std::string &sourceExt,
                        std::string &error, bool *fromCache) {
  std::vector<std::string> args = compileFlags(target);
  const std::string output = joinPath(dir, name + ".so");
  // The cache key: what decides the library's bytes. The compiler and its
  // flags, the generated files, runtime-lite's headers and onnxc's version.
  std::string key;
  if (fromCache) {
    *fromCache = false;
    llvm::SHA256 hash;
    hash.update(std::string("onnxc ") + ONNXC_VERSION + "\n" + compilerIdentity(target));
    for (const std::string &a : args)
      hash.update(a + "\n");
    for (const std::string &f : {name + sourceExt, name + ".h", name + ".weights.bin",
                                 name + "_weights.S"})
      if (auto buf = llvm::MemoryBuffer::getFile(joinPath(dir, f), /*IsText=*/false))
        hash.update((*buf)->getBuffer());
    static const std::string runtimeDigest = runtimeHeadersDigest();
    hash.update(runtimeDigest);
    key = llvm::toHex(hash.final(), /*LowerCase=*/true) + ".so";
    std::string cached = cachedFile("builds", key);
    if (!cached.empty() && !llvm::sys::fs::copy_file(cached, output)) {
      *fromCache = true;
      return true;
    }
  }
  args.push_back("-fPIC");
  std::string model = modelObject(target, args, dir, name, sourceExt, fromCache != nullptr, error);
  if (model.empty())
    return false;
  args.insert(args.end(), {"-shared", "-I" + runtimeIncludeDir(), "-I" + dir, "-Wa,-I" + dir,
                           model, joinPath(dir, name + "_weights.S"), "-o", output});
  if (!runProgram(targetCompiler(target), args, error))
    return false;
  if (fromCache)
    storeInCache("builds", key, output);
  return true;
}

bool buildModelProgram(const Target &target, const std::string &dir,
                       const std::string &name, const std::string &sourceExt,
                       const std::string &mainSource, const std::string &program,
                       const std::vector<std::string> &extraFlags, bool useCache,
                       std::string &error) {
  std::vector<std::string> args = compileFlags(target);
  args.insert(args.end(), extraFlags.begin(), extraFlags.end());
  std::string model = modelObject(target, args, dir, name, sourceExt, useCache, error);
  if (model.empty())
    return false;
  args.insert(args.end(), {"-I" + runtimeIncludeDir(), "-I" + dir, joinPath(dir, mainSource),
                           model});
  if (target.toolchain().assembler.empty()) {
    args.insert(args.end(), {"-Wa,-I" + dir, joinPath(dir, name + "_weights.S")});
  } else {
    if (!assembleWeights(target, dir, name, error))
      return false;
    args.push_back(joinPath(dir, name + "_weights.o"));
  }
  if (!target.emulated) {
    args.insert(args.end(), {"-o", joinPath(dir, program)});
    return runProgram(targetCompiler(target), args, error);
  }
  const EmulatedRunner &runner = *target.emulated;
  std::string support = targetSupportDir(target);
  // Support sources are C (startup code): compiled as such, with the
  // target's instruction-set and optimisation flags.
  for (const std::string &s : runner.supportSources) {
    std::string object = joinPath(dir, llvm::sys::path::stem(s).str() + ".support.o");
    std::vector<std::string> c = target.toolchain().optFlags;
    c.insert(c.end(), target.toolchain().requiredFlags.begin(),
             target.toolchain().requiredFlags.end());
    c.insert(c.end(), {"-Wall", "-Wextra", "-x", "c", "-c", joinPath(support, s), "-o", object});
    if (!runProgram(targetCompiler(target), c, error))
      return false;
    args.push_back(object);
  }
  for (std::string flag : runner.linkFlags) {
    for (size_t at; (at = flag.find("{support}")) != std::string::npos;)
      flag.replace(at, 9, support);
    args.push_back(flag);
  }
  args.insert(args.end(), {"-o", joinPath(dir, program)});
  return runProgram(targetCompiler(target), args, error);
}

//===-- Footprint: --report, --ram-budget, --flash-budget ------------------===//

/// The binutils tool beside a compiler: "arm-none-eabi-g++" ->
/// "arm-none-eabi-size", "c++" -> "size".
static std::string binutil(const std::string &cxx, const std::string &tool) {
  llvm::StringRef base = llvm::sys::path::filename(cxx);
  size_t dash = base.rfind('-');
  return dash == llvm::StringRef::npos ? tool : (base.take_front(dash + 1) + tool).str();
}

/// The deepest stack of the call graph GCC's -fcallgraph-info=su wrote
/// (VCG: `node: { title: "f" label: "...\nN bytes (static)..." }`, `edge: {
/// sourcename: "f" targetname: "g" }`) from `root`. Functions outside the
/// object (libc's memcpy) have no size there and count 0.
static void deepestStack(llvm::StringRef graph, const std::string &root, Footprint &fp) {
  struct Node {
    int64_t bytes = 0;
    bool dynamic = false;
    std::string label;
    std::vector<std::string> callees;
  };
  llvm::StringMap<Node> nodes;
  auto quoted = [](llvm::StringRef line, llvm::StringRef key) -> std::string {
    size_t at = line.find(key);
    if (at == llvm::StringRef::npos)
      return "";
    llvm::StringRef rest = line.drop_front(at + key.size()).ltrim();
    if (!rest.consume_front("\""))
      return "";
    return rest.take_until([](char c) { return c == '"'; }).str();
  };
  llvm::SmallVector<llvm::StringRef> lines;
  graph.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (line.starts_with("node:")) {
      Node &n = nodes[quoted(line, "title:")];
      std::string label = quoted(line, "label:");
      // "void ns::f(args) [with ...]\n..." -> "ns::f"
      llvm::StringRef sig =
          llvm::StringRef(label).take_until([](char c) { return c == '(' || c == '\\'; });
      n.label = sig.substr(sig.rfind(' ') + 1).str();
      size_t bytes = label.find(" bytes (");
      if (bytes != std::string::npos) {
        size_t start = label.rfind('n', bytes); // after the "\n" before the count
        llvm::StringRef(label).slice(start + 1, bytes).getAsInteger(10, n.bytes);
        n.dynamic = llvm::StringRef(label).substr(bytes).starts_with(" bytes (dynamic");
      }
    } else if (line.starts_with("edge:")) {
      nodes[quoted(line, "sourcename:")].callees.push_back(quoted(line, "targetname:"));
    }
  }
  // Longest path; a function already on the chain (recursion) ends it.
  llvm::StringSet<> onChain;
  std::function<int64_t(const std::string &, std::string &, bool &)> depth =
      [&](const std::string &f, std::string &chain, bool &dynamic) -> int64_t {
    auto it = nodes.find(f);
    if (it == nodes.end() || !onChain.insert(f).second)
      return 0;
    const Node &n = it->second;
    int64_t best = 0;
    std::string bestChain;
    bool bestDynamic = false;
    for (const std::string &c : n.callees) {
      std::string sub;
      bool dyn = false;
      int64_t d = depth(c, sub, dyn);
      if (d > best || (bestChain.empty() && !sub.empty() && d == best)) {
        best = d;
        bestChain = sub;
        bestDynamic = dyn;
      }
    }
    onChain.erase(f);
    chain = (n.label.empty() ? f : n.label) + " (" + std::to_string(n.bytes) + ")" +
            (bestChain.empty() ? "" : " -> " + bestChain);
    dynamic = n.dynamic || bestDynamic;
    return n.bytes + best;
  };
  fp.stackBytes = depth(root, fp.stackChain, fp.stackUnbounded);
}

bool measureFootprint(const Target &target, const std::string &dir, const std::string &name,
                      const std::string &sourceExt, Footprint &fp, std::string &error) {
  const std::string work = joinPath(dir, ".footprint");
  llvm::sys::fs::create_directories(work);
  const std::string object = joinPath(work, name + ".o");
  std::vector<std::string> args = compileFlags(target);
  args.insert(args.end(), {"-fstack-usage", "-fcallgraph-info=su", "-I" + runtimeIncludeDir(),
                           "-I" + dir, "-c", joinPath(dir, name + sourceExt), "-o", object});
  std::string sizes;
  bool ok = runProgram(targetCompiler(target), args, error) &&
            runProgram(binutil(targetCompiler(target), "size"), {"-A", object}, error, &sizes);
  auto graph = ok ? llvm::MemoryBuffer::getFile(joinPath(work, name + ".ci"))
                  : llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>(std::error_code());
  if (ok && !graph) {
    error = "the compiler wrote no call graph (-fcallgraph-info: GCC only)";
    ok = false;
  }
  if (ok) {
    // `size -A`: one "section size address" line per section.
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(sizes).split(lines, '\n');
    for (llvm::StringRef line : lines) {
      llvm::SmallVector<llvm::StringRef, 3> f;
      line.split(f, ' ', -1, false);
      int64_t bytes = 0;
      if (f.size() < 2 || f[1].getAsInteger(10, bytes))
        continue;
      const bool text = f[0].starts_with(".text") || f[0].starts_with(".rodata");
      const bool data = f[0].starts_with(".data");
      const bool bss = f[0].starts_with(".bss");
      fp.codeBytes += text || data ? bytes : 0;
      fp.staticBytes += data || bss ? bytes : 0;
    }
    deepestStack((*graph)->getBuffer(), name + "_run_on", fp);
  }
  llvm::sys::fs::remove_directories(work);
  return ok;
}

} // namespace onnxc
