//===- Validate.cpp - `onnxc validate`: the model on its board vs the host ===//
//
// Talks to the firmware `onnxc --emit firmware` writes (its line protocol:
// targets/cortex-m/firmware/main.c) over a serial port or QEMU's emulated
// UART, sends each input set, and compares the outputs with those of the
// same model built for this machine (`onnxc run`'s in-process build).
//
//===----------------------------------------------------------------------===//
#include "onnxc/Driver/Driver.h"

#include "Boards.h"
#include "Files.h"
#include "RunInputs.h"
#include "Toolchain.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Import/Importer.h"
#include "onnxc/Import/TensorProtoIO.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

namespace onnxc {
namespace {

/// 0, 1.5e-06, 0.25: a difference as it reads best.
std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// How long the firmware may take to answer "info" (it may be booting and
/// timing its first run under QEMU).
constexpr unsigned kHandshakeSeconds = 60;

int fail(const std::string &msg) {
  llvm::errs() << "onnxc: error: validate: " << msg << "\n";
  return kExitError;
}

/// The firmware's console: lines in, lines out, over a serial device or the
/// stdin/stdout of a QEMU running the firmware.
class Console {
public:
  Console() = default;
  Console(const Console &) = delete;
  Console &operator=(const Console &) = delete;
  ~Console() {
    if (qemu > 0) {
      ::kill(qemu, SIGTERM);
      ::waitpid(qemu, nullptr, 0);
    }
    if (readFd >= 0)
      ::close(readFd);
    if (writeFd >= 0 && writeFd != readFd)
      ::close(writeFd);
  }

  /// A serial device at 115200 baud, 8N1, raw.
  bool openPort(const std::string &device, std::string &error) {
    readFd = writeFd = ::open(device.c_str(), O_RDWR | O_NOCTTY);
    if (readFd < 0) {
      error = "cannot open the serial port '" + device + "': " + std::strerror(errno);
      return false;
    }
    termios t;
    if (::tcgetattr(readFd, &t) == 0) { // (not a tty, e.g. a FIFO: left as it is)
      ::cfmakeraw(&t);
      ::cfsetispeed(&t, B115200);
      ::cfsetospeed(&t, B115200);
      t.c_cflag |= CLOCAL | CREAD;
      ::tcsetattr(readFd, TCSANOW, &t);
      ::tcflush(readFd, TCIFLUSH);
    }
    return true;
  }

  /// QEMU's model of `board` running `elf`, its first serial port on pipes.
  bool openQemu(const Board &board, const std::string &elf, const std::string &errorLog,
                const std::vector<std::string> &extraArgs, std::string &error) {
    auto qemuPath = llvm::sys::findProgramByName("qemu-system-arm");
    if (!qemuPath) {
      error = "--qemu runs qemu-system-arm, which is not installed (Debian: apt-get install "
              "qemu-system-arm)";
      return false;
    }
    if (!llvm::sys::fs::exists(elf)) {
      error = "the firmware '" + elf + "' does not exist (build the project --emit firmware "
              "wrote: cmake -S DIR -B DIR/build && cmake --build DIR/build)";
      return false;
    }
    int toQemu[2], fromQemu[2];
    if (::pipe(toQemu) != 0 || ::pipe(fromQemu) != 0) {
      error = std::string("cannot create pipes: ") + std::strerror(errno);
      return false;
    }
    std::vector<std::string> args = {*qemuPath, "-M",         board.qemuMachine, "-cpu",
                                     board.qemuCpu, "-display", "none",      "-monitor",
                                     "none",        "-serial",  "stdio",     "-kernel",
                                     elf};
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    qemu = ::fork();
    if (qemu == 0) {
      ::dup2(toQemu[0], 0);
      ::dup2(fromQemu[1], 1);
      int log = ::open(errorLog.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0)
        ::dup2(log, 2);
      for (int fd : {toQemu[0], toQemu[1], fromQemu[0], fromQemu[1]})
        ::close(fd);
      std::vector<char *> argv;
      for (std::string &a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(toQemu[0]);
    ::close(fromQemu[1]);
    writeFd = toQemu[1];
    readFd = fromQemu[0];
    if (qemu < 0) {
      error = std::string("cannot start qemu-system-arm: ") + std::strerror(errno);
      return false;
    }
    ::signal(SIGPIPE, SIG_IGN); // a QEMU that died: a failed write, not a signal
    return true;
  }

  bool writeLine(const std::string &line) {
    std::string text = line + "\n";
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(writeFd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return false;
      done += size_t(n);
    }
    return true;
  }

  /// The next line (without its \r\n); false at the end of the stream or
  /// after `seconds` without one.
  bool readLine(std::string &line, unsigned seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (;;) {
      size_t eol = buffer.find('\n');
      if (eol != std::string::npos) {
        line = llvm::StringRef(buffer).take_front(eol).rtrim('\r').str();
        buffer.erase(0, eol + 1);
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return false;
      pollfd p = {readFd, POLLIN, 0};
      int r = ::poll(&p, 1, int(std::min<int64_t>(left.count(), 1000)));
      if (r < 0 && errno != EINTR)
        return false;
      if (r <= 0)
        continue;
      char chunk[4096];
      ssize_t n = ::read(readFd, chunk, sizeof chunk);
      if (n <= 0)
        return false;
      buffer.append(chunk, size_t(n));
    }
  }

private:
  int readFd = -1, writeFd = -1;
  pid_t qemu = -1;
  std::string buffer;
};

/// The firmware's "onnxc-firmware 1 key=value ..." line.
struct Banner {
  std::map<std::string, std::string> fields;
  std::vector<int64_t> sizes(const std::string &key) const {
    std::vector<int64_t> out;
    auto it = fields.find(key);
    if (it == fields.end())
      return out;
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(it->second).split(parts, ',');
    for (llvm::StringRef p : parts) {
      int64_t v = -1;
      p.getAsInteger(10, v);
      out.push_back(v);
    }
    return out;
  }
  std::string get(const std::string &key) const {
    auto it = fields.find(key);
    return it == fields.end() ? "" : it->second;
  }
};

bool parseBanner(llvm::StringRef line, Banner &b) {
  if (!line.consume_front("onnxc-firmware "))
    return false;
  llvm::SmallVector<llvm::StringRef> words;
  line.split(words, ' ', -1, false);
  for (llvm::StringRef w : words) {
    auto [k, v] = w.split('=');
    if (!v.empty())
      b.fields[k.str()] = v.str();
  }
  return true;
}

std::vector<char> fromHex(llvm::StringRef hex, bool &ok) {
  std::vector<char> out;
  ok = hex.size() % 2 == 0;
  for (size_t i = 0; ok && i < hex.size(); i += 2) {
    unsigned v = 0;
    ok = !hex.substr(i, 2).getAsInteger(16, v);
    out.push_back(char(v));
  }
  return out;
}

/// One output compared: the largest difference (relative to max(1, |host|)
/// for floats), the elements that disagree, and the argmax of each side.
struct Comparison {
  double maxDiff = 0;
  int64_t disagreeing = 0, elements = 0;
  int64_t boardArgmax = -1, hostArgmax = -1;
};

Comparison compare(mlir::Type type, const std::vector<char> &board,
                   const std::vector<char> &host, double tolerance) {
  Comparison c;
  auto argmaxOf = [](const auto *v, int64_t n) {
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i)
      best = v[i] > v[best] ? i : best;
    return best;
  };
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const int64_t n = int64_t(host.size() / sizeof(T));
    std::vector<T> a(n), b(n);
    std::memcpy(a.data(), board.data(), n * sizeof(T));
    std::memcpy(b.data(), host.data(), n * sizeof(T));
    c.elements = n;
    for (int64_t i = 0; i < n; ++i) {
      double d = std::fabs(double(a[i]) - double(b[i]));
      if (std::is_floating_point<T>::value) {
        d = std::isnan(double(a[i])) != std::isnan(double(b[i])) ? INFINITY
            : std::isnan(double(a[i]))                           ? 0
                                                                 : d;
        c.disagreeing += d > tolerance * std::max(1.0, std::fabs(double(b[i])));
      } else {
        c.disagreeing += a[i] != b[i];
      }
      c.maxDiff = std::max(c.maxDiff, d);
    }
    if (n > 1) {
      c.boardArgmax = argmaxOf(a.data(), n);
      c.hostArgmax = argmaxOf(b.data(), n);
    }
  };
  if (type.isF32())
    run(float());
  else if (type.isF64())
    run(double());
  else if (type.isInteger(8))
    type.isUnsignedInteger() ? run(uint8_t()) : run(int8_t());
  else if (type.isInteger(16))
    type.isUnsignedInteger() ? run(uint16_t()) : run(int16_t());
  else if (type.isInteger(32))
    run(int32_t());
  else if (type.isInteger(64))
    run(int64_t());
  else { // bytes
    c.elements = int64_t(host.size());
    c.disagreeing = board == host ? 0 : 1;
    c.maxDiff = board == host ? 0 : INFINITY;
  }
  return c;
}

uint64_t median(std::vector<uint64_t> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// The per-node table of a --profile firmware: median cycles over the runs
/// and, under QEMU (`marksFile`), the instructions the counting plugin saw
/// between the marks (the firmware's first, boot-time run left out).
void printNodeTable(const std::vector<std::string> &labels,
                    const std::vector<std::vector<uint64_t>> &cycles,
                    const std::string &marksFile, const std::string &counter, size_t runs) {
  const size_t n = labels.size();
  std::vector<std::vector<uint64_t>> instructions(n);
  if (!marksFile.empty())
    if (auto buf = llvm::MemoryBuffer::getFile(marksFile)) {
      std::vector<uint64_t> counts;
      llvm::SmallVector<llvm::StringRef> lines;
      (*buf)->getBuffer().split(lines, '\n', -1, false);
      for (llvm::StringRef l : lines) {
        uint64_t c;
        if (!l.getAsInteger(10, c))
          counts.push_back(c);
      }
      // Each run marks n + 1 times; the last `runs` runs are validate's.
      const size_t perRun = n + 1;
      if (counts.size() >= runs * perRun)
        for (size_t r = counts.size() / perRun - runs; r < counts.size() / perRun; ++r)
          for (size_t k = 0; k < n; ++k)
            instructions[k].push_back(counts[r * perRun + k + 1] - counts[r * perRun + k]);
    }
  const bool counted = !instructions.empty() && !instructions[0].empty();
  uint64_t totalCycles = 0, totalInstructions = 0;
  for (size_t k = 0; k < n; ++k) {
    totalCycles += median(cycles[k]);
    totalInstructions += counted ? median(instructions[k]) : 0;
  }
  llvm::outs() << "  per node, median of " << runs << " run" << (runs == 1 ? "" : "s")
               << (counted ? " (instructions: counted by QEMU; cycles: QEMU's virtual clock)"
                           : " (cycles: the board's " + counter + ")")
               << ":\n";
  size_t width = 4;
  for (const std::string &l : labels)
    width = std::max(width, std::min<size_t>(l.size(), 60));
  llvm::outs() << "    " << llvm::left_justify("node", width)
               << (counted ? "  instructions  share" : "") << "        cycles  share\n";
  auto share = [](uint64_t part, uint64_t total) {
    return llvm::formatv("{0,5:f1}%", total ? 100.0 * double(part) / double(total) : 0.0).str();
  };
  for (size_t k = 0; k < n; ++k) {
    llvm::outs() << "    " << llvm::left_justify(labels[k], width);
    if (counted)
      llvm::outs() << llvm::formatv("  {0,12}", median(instructions[k])) << " "
                   << share(median(instructions[k]), totalInstructions);
    llvm::outs() << llvm::formatv("  {0,12}", median(cycles[k])) << " "
                 << share(median(cycles[k]), totalCycles) << "\n";
  }
  llvm::outs() << "    " << llvm::left_justify("all nodes", width);
  if (counted)
    llvm::outs() << llvm::formatv("  {0,12}", totalInstructions) << "       ";
  llvm::outs() << llvm::formatv("  {0,12}", totalCycles) << "\n";
}

} // namespace

int validateOnBoard(const ValidateOptions &o) {
  std::vector<Board> boards;
  std::string error;
  const Board *board = nullptr;
  if (!loadBoards(boards, error) || !(board = findBoard(boards, o.board, error)))
    return fail("--board: " + error);
  if (o.port.empty() == o.qemuFirmware.empty())
    return fail("give the board's console: --port DEV (the firmware flashed and running) or "
                "--qemu FIRMWARE.elf (run under QEMU's model of the board)");
  if (!o.qemuFirmware.empty() && board->qemuMachine.empty())
    return fail("QEMU has no model of " + board->name + " (the boards it has: --list-boards, "
                "'QEMU: -M ...'); use --port with the board itself");
  if (o.quantize.ioInteger)
    return fail("--io int8 and int16 models are not validated yet: their inputs are not the float "
                "files of --inputs");
  std::vector<std::string> sets = inputSets(o.inputsDir, error);
  if (sets.empty())
    return fail(error);

  // The host's outputs: `onnxc run` on this machine, same model and options.
  ScopedTempDir work;
  if (!work.create("onnxc-validate"))
    return fail("cannot create a temporary directory");
  RunOptions host;
  static_cast<ModelOptions &>(host) = o;
  host.target = "native";
  host.inputsDir = o.inputsDir;
  host.outputsDir = work.file("host");
  host.quiet = true;
  if (int rc = runModel(host))
    return rc;

  // Under QEMU, a --profile firmware's nodes are also counted in
  // instructions: the counting plugin notes the count at each entry of
  // NAME_profile_mark (found in the firmware's symbols).
  std::vector<std::string> qemuArgs;
  const std::string marksFile = work.file("marks.txt");
  if (!o.qemuFirmware.empty()) {
    std::string symbols;
    auto nm = llvm::sys::findProgramByName("arm-none-eabi-nm");
    uint64_t markAddress = 0;
    if (nm && runProgram(*nm, {o.qemuFirmware}, error, &symbols)) {
      llvm::SmallVector<llvm::StringRef> lines;
      llvm::StringRef(symbols).split(lines, '\n');
      for (llvm::StringRef l : lines)
        if (l.ends_with("_profile_mark") && l.split(' ').first.getAsInteger(16, markAddress))
          markAddress = 0;
    }
    error.clear();
    if (markAddress) {
      std::string plugin = buildInstructionCounter(work.path, error);
      if (plugin.empty())
        return fail(error);
      qemuArgs = {"-plugin", plugin + ",mark=" + llvm::utohexstr(markAddress & ~uint64_t(1)) +
                                 ",marks=" + marksFile};
    }
  }
  Console console;
  const std::string qemuLog = work.file("qemu.log");
  if (!(o.port.empty() ? console.openQemu(*board, o.qemuFirmware, qemuLog, qemuArgs, error)
                       : console.openPort(o.port, error)))
    return fail(error);
  auto qemuSays = [&] {
    auto buf = llvm::MemoryBuffer::getFile(qemuLog);
    std::string text = buf ? llvm::StringRef((*buf)->getBuffer()).trim().str() : "";
    return text.empty() ? std::string() : "\nQEMU: " + text;
  };
  // Ask who is there, twice: the first answer may be the banner a
  // just-started firmware prints on its own, and what reached its UART
  // before it was set up may come back as an error line; whatever precedes
  // the answer to the second "info" is left behind.
  Banner banner;
  std::string line;
  for (int ask = 0; ask < 2; ++ask) {
    if (!console.writeLine("info"))
      return fail("cannot write to the board's console" + qemuSays());
    for (;;) {
      if (!console.readLine(line, kHandshakeSeconds))
        return fail("no answer from the firmware on " +
                    (o.port.empty() ? "QEMU's " + board->qemuMachine : o.port) + " within " +
                    std::to_string(kHandshakeSeconds) +
                    " s (is it the firmware of onnxc --emit firmware for " + board->name +
                    ", running?)" + qemuSays());
      if (parseBanner(line, banner))
        break;
    }
  }
  if (banner.get("board") != board->name)
    return fail("the firmware is built for board '" + banner.get("board") + "', not " +
                board->name);
  // --profile firmware: the nodes' labels, then a "layer K CYCLES" line per
  // node in each run's answer.
  std::vector<std::string> nodeLabels;
  if (int64_t nodes = banner.sizes("profile").empty() ? 0 : banner.sizes("profile")[0];
      nodes > 0) {
    nodeLabels.resize(size_t(nodes));
    if (!console.writeLine("nodes"))
      return fail("cannot write to the board's console" + qemuSays());
    for (;;) {
      if (!console.readLine(line, kHandshakeSeconds))
        return fail("no answer to 'nodes' within " + std::to_string(kHandshakeSeconds) + " s" +
                    qemuSays());
      llvm::StringRef l(line);
      if (l.starts_with("ok "))
        break;
      if (l.consume_front("node ")) {
        auto [index, label] = l.split(' ');
        size_t k;
        if (!index.getAsInteger(10, k) && k < nodeLabels.size())
          nodeLabels[k] = label.str();
      }
    }
  }
  std::vector<std::vector<uint64_t>> nodeCycles(nodeLabels.size());

  mlir::MLIRContext ctx;
  ctx.loadDialect<onnx::ONNXDialect>();
  const std::vector<GraphInputKind> kinds = graphInputKinds(o.modelPath);
  std::vector<int64_t> fwIn = banner.sizes("inputs"), fwOut = banner.sizes("outputs");
  llvm::outs() << "onnxc validate: '" << banner.get("model") << "' on " << board->name << " ("
               << banner.get("core") << ", "
               << (o.port.empty() ? "QEMU -M " + board->qemuMachine : o.port)
               << ") against this machine's build, " << sets.size() << " input set"
               << (sets.size() == 1 ? "" : "s") << "\n";
  int64_t agreeing = 0, argmaxSame = 0, argmaxCompared = 0;
  double worst = 0;
  std::vector<uint64_t> cycles;
  for (const std::string &setDir : sets) {
    const bool single = sets.size() == 1 && setDir == o.inputsDir;
    const std::string setName = llvm::sys::path::filename(setDir).str();
    InputSet set;
    if (int rc = readInputSet(ctx, setDir, o.modelPath, kinds, o.import, false, set))
      return rc;
    std::string hex;
    std::vector<int64_t> inBytes;
    for (mlir::DenseElementsAttr t : set.inputs) {
      std::vector<char> raw = rawBytesOf(t);
      inBytes.push_back(int64_t(raw.size()));
      hex += llvm::toHex(llvm::StringRef(raw.data(), raw.size()), /*LowerCase=*/true);
    }
    if (inBytes != fwIn)
      return fail("the firmware's inputs are " + banner.get("inputs") + " bytes; '" + setDir +
                  "' holds " + llvm::join(llvm::map_range(inBytes, [](int64_t v) {
                                            return std::to_string(v);
                                          }),
                                          ",") +
                  " (is the firmware built from this model?)");
    if (!console.writeLine("run " + hex))
      return fail("cannot write to the board's console" + qemuSays());
    std::map<int64_t, std::vector<char>> outputs;
    uint64_t runCycles = 0;
    for (;;) {
      if (!console.readLine(line, o.timeoutSeconds))
        return fail("no answer to the run of '" + setDir + "' within " +
                    std::to_string(o.timeoutSeconds) + " s" + qemuSays());
      llvm::StringRef l(line);
      if (l.consume_front("error "))
        return fail("the firmware answered: " + l.str());
      if (l.consume_front("out ")) {
        auto [index, data] = l.split(' ');
        int64_t k = -1;
        bool ok = !index.getAsInteger(10, k);
        outputs[k] = fromHex(data, ok);
        if (!ok)
          return fail("the firmware sent a malformed output line");
      } else if (l.consume_front("layer ")) {
        auto [index, count] = l.split(' ');
        size_t k;
        uint64_t c;
        if (!index.getAsInteger(10, k) && k < nodeCycles.size() && !count.getAsInteger(10, c))
          nodeCycles[k].push_back(c);
      } else if (l.consume_front("cycles ")) {
        l.getAsInteger(10, runCycles);
      } else if (l.consume_front("ok ")) {
        if (l != "0")
          return fail("the model returned " + l.str() + " on the board for '" + setDir + "'");
        break;
      }
    }
    cycles.push_back(runCycles);
    const std::string hostDir = single ? host.outputsDir : joinPath(host.outputsDir, setName);
    std::string report;
    bool setAgrees = true;
    for (size_t k = 0; k < fwOut.size(); ++k) {
      std::string name, readError;
      mlir::DenseElementsAttr ref = readTensorFile(
          ctx, joinPath(hostDir, "output_" + std::to_string(k) + ".pb"), name, readError);
      if (!ref)
        return fail("the host's output " + std::to_string(k) + ": " + readError);
      std::vector<char> hostBytes = rawBytesOf(ref);
      if (int64_t(hostBytes.size()) != fwOut[k] || outputs[int64_t(k)].size() != hostBytes.size())
        return fail("output " + std::to_string(k) + " is " + std::to_string(hostBytes.size()) +
                    " bytes on the host, " + std::to_string(fwOut[k]) +
                    " on the firmware (is it built from this model?)");
      Comparison c = compare(ref.getElementType(), outputs[int64_t(k)], hostBytes, o.tolerance);
      setAgrees &= c.disagreeing == 0;
      worst = std::max(worst, c.maxDiff);
      report += (k ? "; " : "") + ("output " + std::to_string(k) + " '" + name +
                                    "' max |diff| " + shortNumber(c.maxDiff));
      if (c.disagreeing)
        report += " (" + std::to_string(c.disagreeing) + " of " + std::to_string(c.elements) +
                  " elements off)";
      if (c.hostArgmax >= 0) {
        ++argmaxCompared;
        argmaxSame += c.boardArgmax == c.hostArgmax;
        report += c.boardArgmax == c.hostArgmax
                      ? ", argmax " + std::to_string(c.hostArgmax) + " on both"
                      : ", argmax " + std::to_string(c.boardArgmax) + " on the board, " +
                            std::to_string(c.hostArgmax) + " on the host";
      }
    }
    agreeing += setAgrees;
    llvm::outs() << "  " << setName << (setAgrees ? "  agrees: " : "  DIFFERS: ") << report
                 << "; " << runCycles << " cycles\n";
  }
  if (!nodeLabels.empty())
    printNodeTable(nodeLabels, nodeCycles, o.port.empty() ? marksFile : "",
                   banner.get("counter").empty() ? "counter" : banner.get("counter"),
                   sets.size());
  std::sort(cycles.begin(), cycles.end());
  llvm::outs() << "onnxc validate: " << agreeing << " of " << sets.size()
               << " input sets agree with the host (max |diff| " << shortNumber(worst)
               << ", tolerance " << shortNumber(o.tolerance) << " x max(1, |host|))";
  if (argmaxCompared)
    llvm::outs() << "; argmax the same in " << argmaxSame << " of " << argmaxCompared;
  llvm::outs() << "; median " << cycles[cycles.size() / 2] << " cycles a run at "
               << banner.get("clock") << " Hz"
               << (banner.get("counter").empty() ? "" : " (" + banner.get("counter") + ")")
               << (o.port.empty() ? " (QEMU's virtual clock: not the board's timing)" : "")
               << "\n";
  return agreeing == int64_t(sets.size()) ? kExitOk : kExitError;
}

} // namespace onnxc
