//===- Boards.cpp - the microcontroller board database -------------------===//
#include "Boards.h"

#include "Report.h"
#include "Toolchain.h"

#include "onnxc/Lowering/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace onnxc {

const MemoryRegion *Board::codeRegion() const {
  for (const MemoryRegion &r : memory)
    if (r.flash)
      return &r;
  return nullptr;
}

const MemoryRegion *Board::weightsRegion() const {
  for (const MemoryRegion &r : memory)
    if (r.flash && r.weights)
      return &r;
  return codeRegion();
}

const MemoryRegion *Board::mainRam() const {
  for (const MemoryRegion &r : memory)
    if (!r.flash && r.main)
      return &r;
  return nullptr;
}

std::string boardDatabasePath() {
  // The database lives with the Cortex-M support files.
  const Target *cortexM = TargetRegistry::find("cortex-m4");
  return joinPath(cortexM ? targetSupportDir(*cortexM) : std::string("."), "boards.json");
}

namespace {

/// Reads one board; false with `error` naming the field.
class BoardReader {
public:
  BoardReader(const llvm::json::Object &o, std::string &error) : o(o), error(error) {}

  std::string string(llvm::StringRef key, bool required = true) {
    if (auto s = o.getString(key))
      return s->str();
    if (required)
      fail("has no string \"" + key.str() + "\"");
    return "";
  }
  int64_t integer(llvm::StringRef key) {
    if (auto v = o.getInteger(key))
      return *v;
    fail("has no integer \"" + key.str() + "\"");
    return 0;
  }
  /// "0x08000000" or "1M", "64K", "512".
  static bool number(llvm::StringRef text, int64_t &v) {
    int64_t scale = 1;
    if (text.consume_back("K"))
      scale = 1024;
    else if (text.consume_back("M"))
      scale = 1 << 20;
    unsigned long long u;
    if (text.getAsInteger(0, u)) // 0x.. hex, else decimal
      return false;
    v = int64_t(u) * scale;
    return true;
  }
  uint32_t address(const llvm::json::Value *v, const std::string &what) {
    int64_t n = 0;
    auto s = v ? v->getAsString() : std::nullopt;
    if (!s || !number(*s, n) || n < 0 || n > 0xFFFFFFFFll)
      fail(what + " is not an address (\"0x...\")");
    return uint32_t(n);
  }
  std::vector<RegisterWrite> writes(const llvm::json::Array *list, const std::string &what) {
    std::vector<RegisterWrite> out;
    if (!list)
      return out;
    for (const llvm::json::Value &w : *list) {
      const llvm::json::Array *a = w.getAsArray();
      const bool wait = a && !a->empty() && (*a)[0].getAsString() == llvm::StringRef("wait");
      if (!a || a->size() != 3u + wait) {
        fail(what + " holds an entry that is not [address, mask, value] or [\"wait\", "
                    "address, mask, value]");
        return out;
      }
      out.push_back({address(&(*a)[wait], what), address(&(*a)[wait + 1], what),
                     address(&(*a)[wait + 2], what), wait});
    }
    return out;
  }
  void fail(const std::string &why) {
    if (error.empty())
      error = why;
  }

  const llvm::json::Object &o;
  std::string &error;
};

bool readBoard(const llvm::json::Object &o, Board &b, std::string &error) {
  BoardReader r(o, error);
  b.name = r.string("name");
  b.description = r.string("description");
  b.core = r.string("core");
  b.clockHz = r.integer("clock_hz");
  b.resetClockHz = r.integer("reset_clock_hz");
  b.cycleCounter = r.string("cycle_counter");
  b.noFirmware = r.string("no_firmware", false);
  if (const llvm::json::Array *aliases = o.getArray("aliases"))
    for (const llvm::json::Value &a : *aliases)
      if (auto s = a.getAsString())
        b.aliases.push_back(s->str());
  if (const llvm::json::Array *memory = o.getArray("memory")) {
    for (const llvm::json::Value &v : *memory) {
      const llvm::json::Object *m = v.getAsObject();
      if (!m) {
        r.fail("has a memory entry that is not an object");
        break;
      }
      BoardReader mr(*m, error);
      MemoryRegion region;
      region.name = mr.string("name");
      std::string kind = mr.string("kind");
      if (kind != "flash" && kind != "ram")
        mr.fail("memory region '" + region.name + "' has kind '" + kind +
                "' (flash or ram)");
      region.flash = kind == "flash";
      region.origin = mr.address(m->get("origin"), "memory region '" + region.name + "' origin");
      auto size = m->getString("size");
      if (!size || !BoardReader::number(*size, region.size) || region.size <= 0)
        mr.fail("memory region '" + region.name + "' has no size (\"64K\", \"1M\")");
      region.main = m->getBoolean("main").value_or(false);
      region.weights = m->getBoolean("weights").value_or(false);
      region.note = mr.string("note", false);
      b.memory.push_back(region);
    }
  }
  b.memoryInit = r.writes(o.getArray("memory_init"), "memory_init");
  b.clockInit = r.writes(o.getArray("clock_init"), "clock_init");
  if (!b.clockInit.empty())
    b.initClockHz = r.integer("init_clock_hz");
  if (const llvm::json::Object *c = o.getObject("console")) {
    BoardReader cr(*c, error);
    b.console.driver = cr.string("driver");
    b.console.base = cr.address(c->get("base"), "console base");
    b.console.name = cr.string("name");
    b.console.init = cr.writes(c->getArray("init"), "console init");
    if (!b.clockInit.empty())
      b.initConsoleClockHz = cr.integer("init_clock_hz");
  } else {
    r.fail("has no console");
  }
  if (const llvm::json::Object *q = o.getObject("qemu")) {
    BoardReader qr(*q, error);
    b.qemuMachine = qr.string("machine");
    b.qemuCpu = qr.string("cpu");
  }
  for (const auto *list : {&b.memoryInit, &b.console.init})
    for (const RegisterWrite &w : *list)
      if (w.wait)
        r.fail("may wait only in clock_init");
  if (error.empty() && (!b.codeRegion() || !b.mainRam()))
    error = "needs a flash region and a RAM region marked \"main\"";
  if (!error.empty())
    error = "board '" + b.name + "' " + error;
  return error.empty();
}

} // namespace

bool loadBoards(std::vector<Board> &boards, std::string &error) {
  std::string path = boardDatabasePath();
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf) {
    error = "cannot read the board database '" + path + "'";
    return false;
  }
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buf)->getBuffer());
  if (!json) {
    error = "the board database '" + path + "' is not JSON: " + llvm::toString(json.takeError());
    return false;
  }
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *list = root ? root->getArray("boards") : nullptr;
  if (!list) {
    error = "the board database '" + path + "' has no \"boards\" list";
    return false;
  }
  // Entries as read, for "like": an entry takes an earlier one's fields.
  std::map<std::string, llvm::json::Object> entries;
  for (const llvm::json::Value &v : *list) {
    Board b;
    const llvm::json::Object *o = v.getAsObject();
    llvm::json::Object merged;
    if (o) {
      if (auto like = o->getString("like")) {
        auto it = entries.find(like->str());
        if (it == entries.end()) {
          error = "the board database '" + path + "': an entry is like '" + like->str() +
                  "', which no earlier entry names";
          return false;
        }
        merged = it->second;
      }
      for (const auto &kv : *o)
        merged[kv.first] = kv.second;
      o = &merged;
      if (auto n = o->getString("name"))
        entries[n->str()] = merged;
    }
    if (!o || !readBoard(*o, b, error)) {
      error = "the board database '" + path + "': " + (o ? error : "an entry is not an object");
      return false;
    }
    boards.push_back(std::move(b));
  }
  return true;
}

const Board *findBoard(const std::vector<Board> &boards, const std::string &name,
                       std::string &error) {
  for (const Board &b : boards) {
    if (llvm::StringRef(b.name).equals_insensitive(name))
      return &b;
    for (const std::string &a : b.aliases)
      if (llvm::StringRef(a).equals_insensitive(name))
        return &b;
  }
  error = "unknown board '" + name + "'; the boards (--list-boards):";
  for (const Board &b : boards)
    error += " " + b.name;
  return nullptr;
}

void printBoards(const std::vector<Board> &boards) {
  for (const Board &b : boards) {
    llvm::outs() << "  " << b.name;
    if (!b.aliases.empty())
      llvm::outs() << " (" << llvm::join(b.aliases, ", ") << ")";
    llvm::outs() << "\n    " << b.description << "\n    target " << b.core << ", "
                 << b.clockHz / 1000000 << " MHz (" << llvm::format("%.1f", b.resetClockHz / 1e6)
                 << " MHz after reset";
    if (b.initClockHz)
      llvm::outs() << "; --emit firmware runs at " << b.initClockHz / 1000000 << " MHz";
    llvm::outs() << ")";
    if (!b.qemuMachine.empty())
      llvm::outs() << ", QEMU: -M " << b.qemuMachine;
    llvm::outs() << "\n";
    for (const MemoryRegion &r : b.memory)
      llvm::outs() << llvm::format("    %-8s %-5s 0x%08x %8s", r.name.c_str(),
                                   r.flash ? "flash" : "RAM", r.origin,
                                   humanBytes(r.size).c_str())
                   << (r.note.empty() ? "" : "  " + r.note) << "\n";
    llvm::outs() << "    console " << b.console.name << ", 115200 baud"
                 << (b.noFirmware.empty() ? "" : "; no --emit firmware: " + b.noFirmware)
                 << "\n";
  }
}

} // namespace onnxc
