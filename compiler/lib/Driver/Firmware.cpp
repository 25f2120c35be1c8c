//===- Firmware.cpp - a model on a board: placement and firmware ----------===//
#include "Firmware.h"

#include "Report.h"

#include "onnxc/Lowering/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace onnxc {

// The firmware's own share (main.c, console.c, startup.c and what they pull
// from newlib), measured on the boards' builds with GCC 12 at -O2 and
// rounded up: 2.5-3.4 KB of code, under 400 bytes of stack.
constexpr int64_t kFirmwareCodeBytes = 4096;
constexpr int64_t kFirmwareStackBytes = 512;
// Stack the linker script sets aside beyond the measured chain: interrupt
// frames (the SysTick's, with the FPU's lazy state) and rounding.
constexpr int64_t kStackMarginBytes = 256;

static int64_t roundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

static int64_t sumBytes(const std::vector<TensorInterface> &list) {
  int64_t n = 0;
  for (const TensorInterface &t : list)
    n += roundUp(t.bytes, 4);
  return n;
}

static std::string percentOf(int64_t used, int64_t size) {
  return llvm::formatv("{0:f0}%", 100.0 * double(used) / double(size)).str();
}

Placement placeOnBoard(const Board &board, const std::string &name, const CompileSummary &s,
                       const Footprint &f, const ModelInterface &iface, bool firmware) {
  Placement p;
  p.flash = board.codeRegion();
  p.weights = board.weightsRegion();
  p.ram = board.mainRam();
  p.codeBytes = f.codeBytes + (firmware ? kFirmwareCodeBytes : 0);
  p.weightBytes = s.weightBytes;
  p.arenaBytes = s.arenaBytes;
  p.stackBytes = roundUp(f.stackBytes + (firmware ? kFirmwareStackBytes : 0) + kStackMarginBytes,
                         256);
  p.ioBytes = sumBytes(iface.inputs) + sumBytes(iface.outputs);
  p.dataBytes = f.staticBytes;
  const std::string what = "'" + name + "' does not fit " + board.name + " (" + board.core + ")";
  auto bytes = [](int64_t n) { return std::to_string(n) + " bytes (" + humanBytes(n) + ")"; };
  // Flash: code and weights, together or in their regions.
  if (p.weights == p.flash) {
    if (p.codeBytes + p.weightBytes > p.flash->size)
      p.problem = what + ": code " + std::to_string(p.codeBytes) + " + weights " +
                  std::to_string(p.weightBytes) + " = " + bytes(p.codeBytes + p.weightBytes) +
                  " of flash, over " + p.flash->name + "'s " + bytes(p.flash->size) +
                  " by " + std::to_string(p.codeBytes + p.weightBytes - p.flash->size);
  } else if (p.codeBytes > p.flash->size || p.weightBytes > p.weights->size) {
    p.problem = what + ": code " + bytes(p.codeBytes) + " in " + p.flash->name + " (" +
                humanBytes(p.flash->size) + "), weights " + bytes(p.weightBytes) + " in " +
                p.weights->name + " (" + humanBytes(p.weights->size) + ")";
  }
  // RAM: static data and the stack in the main region; then the arena and
  // the inputs and outputs, each in the fastest region with room left, so
  // a model fits when its parts fit different banks. Arena first (the
  // busiest memory); where that leaves no room for the inputs and outputs,
  // they go first.
  std::string ramProblem;
  const int64_t fixed = p.dataBytes + p.stackBytes;
  if (fixed > p.ram->size) {
    ramProblem = "static data " + std::to_string(p.dataBytes) + " + stack " +
                 std::to_string(p.stackBytes) + " = " + bytes(fixed) + ", over " +
                 p.ram->name + "'s " + bytes(p.ram->size);
  } else {
    for (bool arenaFirst : {true, false}) {
      std::map<const MemoryRegion *, int64_t> used = {{p.ram, fixed}};
      auto place = [&](int64_t n) -> const MemoryRegion * {
        for (const MemoryRegion &r : board.memory)
          if (!r.flash && used[&r] + n <= r.size) {
            used[&r] += n;
            return &r;
          }
        return nullptr;
      };
      auto freeSpace = [&] {
        std::string list;
        for (const MemoryRegion &r : board.memory)
          if (!r.flash)
            list += (list.empty() ? "" : ", ") + r.name + " " + humanBytes(r.size - used[&r]);
        return "(free: " + list + ")";
      };
      const MemoryRegion *arena = nullptr, *io = nullptr;
      std::string problem;
      if (arenaFirst) {
        if (!(arena = place(p.arenaBytes)))
          problem = "the arena, " + bytes(p.arenaBytes) + ", fits no RAM region " + freeSpace();
        else if (!(io = place(p.ioBytes)))
          problem = "the inputs and outputs, " + bytes(p.ioBytes) +
                    ", fit no RAM region beside the arena " + freeSpace();
      } else if (!(io = place(p.ioBytes)) || !(arena = place(p.arenaBytes))) {
        problem = "x"; // the arena-first attempt's message stands
      }
      if (problem.empty()) {
        p.arena = arena;
        p.io = io;
        ramProblem.clear();
        break;
      }
      if (arenaFirst)
        ramProblem = problem;
    }
  }
  if (!ramProblem.empty()) {
    std::string largest;
    for (const CompileSummary::NodeBytes &n : s.largestArenaTensors)
      largest += (largest.empty() ? "" : ", ") +
                 ("node '" + n.node + "' " + std::to_string(n.bytes) + " bytes" +
                  (n.scratch ? " (its scratch)" : ""));
    p.problem += (p.problem.empty() ? what + ": " : "; ") + ramProblem +
                 (largest.empty() ? "" : "; the largest tensors in the arena: " + largest);
  }
  return p;
}

void printPlacement(const Board &board, const Placement &p) {
  llvm::outs() << "  board    " << board.name << ": " << board.description << "\n";
  // Region by region, in the board's order.
  std::map<const MemoryRegion *, std::vector<std::pair<std::string, int64_t>>> uses;
  uses[p.flash].push_back({"code", p.codeBytes});
  uses[p.weights].push_back({"weights", p.weightBytes});
  if (p.arena && p.arenaBytes)
    uses[p.arena].push_back({"arena", p.arenaBytes});
  if (p.io && p.ioBytes)
    uses[p.io].push_back({"inputs+outputs", p.ioBytes});
  if (p.dataBytes)
    uses[p.ram].push_back({"data", p.dataBytes});
  uses[p.ram].push_back({"stack", p.stackBytes});
  bool first = true;
  for (const MemoryRegion &r : board.memory) {
    auto it = uses.find(&r);
    if (it == uses.end())
      continue;
    int64_t total = 0;
    std::string items;
    for (const auto &[what, n] : it->second) {
      items += (items.empty() ? "" : " + ") + what + " " + humanBytes(n);
      total += n;
    }
    llvm::outs() << (first ? "  place    " : "           ")
                 << llvm::format("%-8s 0x%08x  ", r.name.c_str(), r.origin) << items << " = "
                 << humanBytes(total) << " of " << humanBytes(r.size) << " ("
                 << percentOf(total, r.size) << ")\n";
    first = false;
  }
}

std::string firmwareProblem(const Board &board, const GeneratedModel &g) {
  if (!board.noFirmware.empty())
    return "--emit firmware does not serve " + board.name + ": " + board.noFirmware;
  if (!g.iface.boundedDims.empty())
    return "--emit firmware needs every size fixed: the model has bounded dims (--dim "
           "NAME=LO..HI); fix them with --dim NAME=N";
  for (const auto *list : {&g.iface.inputs, &g.iface.outputs})
    for (const TensorInterface &t : *list) {
      if (!t.elementType.isIntOrFloat())
        return "--emit firmware: '" + t.name + "' is not a number tensor (strings cannot " +
               "cross the firmware's console)";
      if (t.dynamicDim >= 0)
        return "--emit firmware: output '" + t.name + "' has a size the data decides";
    }
  return "";
}

//===-- The project's files --------------------------------------------------===//

static std::string hex32(uint32_t v) { return llvm::formatv("{0:x-8}", v).str(); }

static std::string writesInitializer(const std::vector<RegisterWrite> &writes) {
  if (writes.empty())
    return "{{0, 0, 0, 0}}";
  std::string s = "{";
  for (const RegisterWrite &w : writes)
    s += (s.size() > 1 ? ", " : "") + ("{0x" + hex32(w.address) + "u, 0x" + hex32(w.mask) +
                                        "u, 0x" + hex32(w.value) + "u, " +
                                        (w.wait ? "1" : "0") + "}");
  return s + "}";
}

static std::string boardHeader(const Board &b) {
  std::string driver = llvm::StringRef(b.console.driver).upper();
  std::replace(driver.begin(), driver.end(), '-', '_');
  std::string counter = llvm::StringRef(b.cycleCounter).upper();
  std::replace(counter.begin(), counter.end(), '-', '_');
  return "/* " + b.name + ": " + b.description +
         "\n   Generated by onnxc from its board database (boards.json). */\n"
         "#ifndef ONNXC_FIRMWARE_BOARD_H\n#define ONNXC_FIRMWARE_BOARD_H\n\n"
         "#include <stdint.h>\n\n"
         "#define BOARD_NAME \"" + b.name + "\"\n"
         "#define BOARD_CORE \"" + b.core + "\"\n"
         "/* The core's (and the UART's) clock after reset; the board's most is " +
         std::to_string(b.clockHz / 1000000) + " MHz. */\n"
         "#define BOARD_CLOCK_HZ " + std::to_string(b.resetClockHz) + "u\n"
         "#define BOARD_BAUD 115200u\n\n"
         "/* The steps that raise the clock (writes, and polls until (*address & mask)\n"
         "   == value: a poll that times out leaves the chip on its reset clock), and\n"
         "   the core's and the UART's clocks after them. */\n"
         "#define BOARD_CLOCK_INIT " + writesInitializer(b.clockInit) + "\n"
         "#define BOARD_CLOCK_INIT_COUNT " + std::to_string(b.clockInit.size()) + "u\n"
         "#define BOARD_INIT_CLOCK_HZ " +
         std::to_string(b.clockInit.empty() ? b.resetClockHz : b.initClockHz) + "u\n"
         "#define BOARD_INIT_UART_CLOCK_HZ " +
         std::to_string(b.clockInit.empty() ? b.resetClockHz : b.initConsoleClockHz) + "u\n\n"
         "/* " + b.console.name + " */\n"
         "#define BOARD_CONSOLE_" + driver + " 1\n"
         "#define BOARD_CONSOLE_BASE 0x" + hex32(b.console.base) + "u\n"
         "#define BOARD_CYCLES_" + counter + " 1\n\n"
         "/* A register write: *address = (*address & ~mask) | value (a mask of all\n"
         "   ones writes value without reading); with `wait`, a poll instead. */\n"
         "typedef struct {\n  uint32_t address, mask, value, wait;\n} board_register_write;\n"
         "void board_apply(const board_register_write *writes, unsigned count);\n\n"
         "/* Before RAM is used; then the console's clocks and pins. */\n"
         "#define BOARD_MEMORY_INIT " + writesInitializer(b.memoryInit) + "\n"
         "#define BOARD_MEMORY_INIT_COUNT " + std::to_string(b.memoryInit.size()) + "u\n"
         "#define BOARD_CONSOLE_INIT " + writesInitializer(b.console.init) + "\n"
         "#define BOARD_CONSOLE_INIT_COUNT " + std::to_string(b.console.init.size()) + "u\n\n"
         "#endif\n";
}

static std::string modelIoHeader(const GeneratedModel &g, const std::string &name) {
  auto list = [](const std::vector<TensorInterface> &ts) {
    std::string s;
    for (const TensorInterface &t : ts)
      s += (s.empty() ? "" : ", ") + std::to_string(t.bytes) + "u";
    return s;
  };
  auto total = [](const std::vector<TensorInterface> &ts) {
    int64_t n = 0;
    for (const TensorInterface &t : ts)
      n += t.bytes;
    return std::to_string(n);
  };
  return "/* The model the firmware serves, as main.c sees it. Generated by onnxc. */\n"
         "#ifndef ONNXC_FIRMWARE_MODEL_IO_H\n#define ONNXC_FIRMWARE_MODEL_IO_H\n\n"
         "#include \"" + name + ".h\"\n\n"
         "#define MODEL_NAME \"" + name + "\"\n"
         "#define MODEL_RUN_V " + name + "_run_v\n"
         "#define MODEL_ARENA_SIZE " + name + "_ARENA_SIZE\n"
         "#define MODEL_NUM_INPUTS " + std::to_string(g.iface.inputs.size()) + "\n"
         "#define MODEL_NUM_OUTPUTS " + std::to_string(g.iface.outputs.size()) + "\n"
         "#define MODEL_INPUT_BYTES " + total(g.iface.inputs) + "u\n"
         "#define MODEL_OUTPUT_BYTES " + total(g.iface.outputs) + "u\n"
         "/* Each input's and output's bytes, in graph order. */\n"
         "static const uint32_t model_input_bytes[] = {" + list(g.iface.inputs) + "};\n"
         "static const uint32_t model_output_bytes[] = {" + list(g.iface.outputs) + "};\n\n"
         "/* Built with --profile: main.c times each node through the model's marks. */\n"
         "#ifdef " + name + "_PROFILE_NODES\n"
         "#define MODEL_PROFILE_NODES " + name + "_PROFILE_NODES\n"
         "#define MODEL_PROFILE_MARK " + name + "_profile_mark\n"
         "#define MODEL_PROFILE_NAMES " + name + "_profile_nodes\n"
         "#endif\n\n"
         "#endif\n";
}

static std::string linkerScript(const Board &b, const Placement &p) {
  std::string s = "/* " + b.name + "'s memory, from onnxc's board database, and where the\n"
                  "   firmware's sections go: code in " + p.flash->name + ", weights in " +
                  p.weights->name + ", the arena in " + p.arena->name +
                  ",\n   the inputs and outputs in " + p.io->name + ", data and stack in " +
                  p.ram->name + ". Generated by onnxc. */\n"
                  "MEMORY\n{\n";
  for (const MemoryRegion &r : b.memory)
    s += llvm::formatv("  {0,-8} ({1}) : ORIGIN = 0x{2}, LENGTH = {3}K\n", r.name,
                       r.flash ? "rx" : "rwx", hex32(r.origin), r.size / 1024)
             .str();
  const std::string code = p.flash->name, ram = p.ram->name;
  s += "}\n\nENTRY(Reset_Handler)\n"
       "__stack_size = " + std::to_string(p.stackBytes) + "; /* the model's deepest call "
       "chain, the firmware's frames and a margin */\n\n"
       "SECTIONS\n{\n"
       "  .text :\n  {\n    KEEP(*(.vectors))\n    *(.text*)\n    KEEP(*(.init))\n"
       "    KEEP(*(.fini))\n    . = ALIGN(4);\n  } > " + code + "\n\n"
       "  .rodata : ALIGN(8)\n  {\n    *(.rodata*)\n    . = ALIGN(4);\n  } > " +
       p.weights->name + "\n\n"
       "  .ARM.exidx : { *(.ARM.exidx* .gnu.linkonce.armexidx.*) } > " + code + "\n"
       "  .preinit_array : { PROVIDE_HIDDEN(__preinit_array_start = .); KEEP(*(.preinit_array)); "
       "PROVIDE_HIDDEN(__preinit_array_end = .); } > " + code + "\n"
       "  .init_array : { PROVIDE_HIDDEN(__init_array_start = .); KEEP(*(SORT(.init_array.*))); "
       "KEEP(*(.init_array)); PROVIDE_HIDDEN(__init_array_end = .); } > " + code + "\n"
       "  .fini_array : { PROVIDE_HIDDEN(__fini_array_start = .); KEEP(*(.fini_array)); "
       "PROVIDE_HIDDEN(__fini_array_end = .); } > " + code + "\n\n"
       "  __data_load = LOADADDR(.data);\n"
       "  .data : ALIGN(8)\n  {\n    __data_start = .;\n    *(.data*)\n    . = ALIGN(8);\n"
       "    __data_end = .;\n  } > " + ram + " AT > " + code + "\n\n"
       "  .bss (NOLOAD) : ALIGN(8)\n  {\n    __bss_start__ = .;\n    *(.bss*)\n    *(COMMON)\n"
       "    . = ALIGN(8);\n    __bss_end__ = .;\n  } > " + ram + "\n\n"
       "  /* The model's scratch: not cleared at reset (the model needs no zeroes). */\n"
       "  .arena (NOLOAD) : ALIGN(64) { *(.arena) } > " + p.arena->name + "\n"
       "  /* main.c's input and output buffers: written before they are read. */\n"
       "  .io (NOLOAD) : ALIGN(64) { *(.io) } > " + p.io->name + "\n\n"
       "  /* No heap: nothing in the firmware allocates. */\n"
       "  .stack (NOLOAD) : ALIGN(8)\n  {\n    . = . + __stack_size;\n    __stack_top = .;\n"
       "  } > " + ram + "\n"
       "  end = __bss_end__;\n"
       "}\n";
  return s;
}

static std::string cmakeLists(const Board &b, const Target &target, const std::string &name,
                              const std::string &sourceExt) {
  const Toolchain &t = target.toolchain();
  std::string project = name + "_firmware";
  return "# Firmware for " + b.name + " (" + b.description + "):\n"
         "# the model '" + name + "' served over " + b.console.name + " at 115200 baud.\n"
         "# Generated by onnxc (--board " + b.name + " --emit firmware); builds with\n"
         "# Debian's gcc-arm-none-eabi and libnewlib-arm-none-eabi, nothing else:\n"
         "#\n"
         "#   cmake -S . -B build && cmake --build build\n"
         "#\n"
         "# build/" + project + ".elf (and .bin, .hex for a flasher). See README.md.\n"
         "cmake_minimum_required(VERSION 3.20)\n"
         "if(NOT CMAKE_TOOLCHAIN_FILE)\n"
         "  set(CMAKE_SYSTEM_NAME Generic)\n"
         "  set(CMAKE_SYSTEM_PROCESSOR arm)\n"
         "  set(CMAKE_C_COMPILER arm-none-eabi-gcc)\n"
         "  set(CMAKE_CXX_COMPILER arm-none-eabi-g++)\n"
         "  set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)\n"
         "  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)\n"
         "endif()\n"
         "project(" + project + " C CXX ASM)\n\n"
         "# The core (" + b.core + "): the flags the model's code was generated for.\n"
         "set(CPU_FLAGS " + llvm::join(t.requiredFlags, " ") + ")\n"
         "add_executable(" + project + " main.c startup.c console.c model/" + name +
         sourceExt + " model/" + name +
         "_weights.S)\n"
         "set_target_properties(" + project + " PROPERTIES SUFFIX .elf)\n"
         "# startup.c's firmware half (board.h's RAM banks, no semihosting).\n"
         "target_compile_definitions(" + project + " PRIVATE ONNXC_FIRMWARE)\n"
         "target_include_directories(" + project + " PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}\n"
         "                           ${CMAKE_CURRENT_SOURCE_DIR}/model)\n"
         "# The model's optimisation flags in every build type.\n"
         "target_compile_options(" + project + " PRIVATE ${CPU_FLAGS} " +
         llvm::join(t.optFlags, " ") + " -Wall -Wextra\n"
         "                       $<$<COMPILE_LANGUAGE:CXX>:-std=c++17 -fno-exceptions "
         "-fno-rtti>)\n"
         "# The weights .S .incbin's model/" + name + ".weights.bin.\n"
         "set_source_files_properties(model/" + name + "_weights.S PROPERTIES\n"
         "  COMPILE_OPTIONS \"-Wa,-I${CMAKE_CURRENT_SOURCE_DIR}/model\"\n"
         "  OBJECT_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/model/" + name + ".weights.bin)\n"
         "target_link_options(" + project + " PRIVATE ${CPU_FLAGS}\n"
         "  -T ${CMAKE_CURRENT_SOURCE_DIR}/board.ld -nostartfiles --specs=nano.specs "
         "--specs=nosys.specs\n"
         "  -Wl,--gc-sections -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/" + project + ".map)\n"
         "set_property(TARGET " + project + " APPEND PROPERTY LINK_DEPENDS "
         "${CMAKE_CURRENT_SOURCE_DIR}/board.ld)\n"
         "add_custom_command(TARGET " + project + " POST_BUILD\n"
         "  COMMAND arm-none-eabi-objcopy -O binary " + project + ".elf " + project + ".bin\n"
         "  COMMAND arm-none-eabi-objcopy -O ihex " + project + ".elf " + project + ".hex\n"
         "  COMMAND arm-none-eabi-size " + project + ".elf\n"
         "  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} VERBATIM)\n";
}

static std::string readme(const Board &b, const std::string &name, const Placement &p) {
  std::string project = name + "_firmware";
  std::string s =
      "# " + project + ": '" + name + "' on " + b.name + "\n\n" + b.description +
      ". Generated by `onnxc --board " + b.name + " --emit firmware`.\n\n"
      "## Build\n\n    cmake -S . -B build && cmake --build build\n\n"
      "Needs only Debian's `gcc-arm-none-eabi` and `libnewlib-arm-none-eabi` (no onnxc: the\n"
      "model's code and runtime-lite's headers are in this folder). Flash `build/" +
      project + ".bin`\n(or `.hex`) at 0x" + hex32(p.flash->origin) +
      " with the board's tool (st-flash, nrfjprog, OpenOCD, ...).\n\n";
  if (!b.qemuMachine.empty())
    s += "## Run in QEMU\n\n    qemu-system-arm -M " + b.qemuMachine + " -cpu " + b.qemuCpu +
         " -nographic -kernel build/" + project + ".elf\n\n"
         "The console is QEMU's first serial port (here the terminal; quit with Ctrl-A X).\n\n";
  s += "## The console\n\n" + b.console.name +
       ", 115200 baud, 8N1. " +
       (b.clockInit.empty()
            ? "The firmware runs on the chip's clock after reset (" +
                  llvm::formatv("{0:f1}", b.resetClockHz / 1e6).str() + " MHz; the board's most is " +
                  std::to_string(b.clockHz / 1000000) + " MHz)."
            : "The firmware raises the clock to " + std::to_string(b.initClockHz / 1000000) +
                  " MHz (board.h's steps; where a PLL does not lock, as under QEMU, it stays on "
                  "the reset clock, " + llvm::formatv("{0:f1}", b.resetClockHz / 1e6).str() +
                  " MHz; the banner says which).") +
       " On reset it prints\n\n"
       "    onnxc-firmware 1 model=" + name + " board=" + b.name +
       " core=... clock=... inputs=BYTES,... outputs=BYTES,...\n"
       "    bench cycles=N\n    ready\n\n"
       "(`bench`: one run on zeroed inputs, in core cycles). Then, a command a line:\n\n"
       "- `run HEX`: the inputs' bytes, all inputs in graph order as the model's header lays\n"
       "  them out (little-endian), as hex. The answer: `out I HEX` for each output, `cycles N`,\n"
       "  `ok STATUS` (the model's return value; 0 is success).\n"
       "- `info`: the first line again.\n\n"
       "`onnxc validate` speaks this protocol.\n\n"
       "## Memory\n\n"
       "`board.ld` places code in " + p.flash->name + ", the weights in " + p.weights->name +
       ", the arena in " + p.arena->name + " (the fastest RAM that holds it), the\n"
       "input and output buffers in " + p.io->name + ", data and the stack (" +
       std::to_string(p.stackBytes) + " bytes) in " + p.ram->name + ". No heap.\n";
  return s;
}

bool writeFirmwareProject(const Board &board, const Target &target, const GeneratedModel &g,
                          const std::string &name, const Placement &placement,
                          const std::string &dir, std::vector<std::string> &files,
                          std::string &error) {
  auto write = [&](const std::string &file, const std::string &text) {
    files.push_back(file);
    return writeFile(joinPath(dir, file), text, error);
  };
  if (!write("CMakeLists.txt", cmakeLists(board, target, name, g.files.sourceExtension)) ||
      !write("README.md", readme(board, name, placement)) ||
      !write("board.ld", linkerScript(board, placement)) ||
      !write("board.h", boardHeader(board)) || !write("model_io.h", modelIoHeader(g, name)))
    return false;
  // The sources every board shares; startup.c is also onnxc run's (its
  // firmware half under ONNXC_FIRMWARE).
  const std::string support = targetSupportDir(target);
  for (const char *f : {"firmware/main.c", "startup.c", "firmware/console.c",
                        "firmware/console.h"}) {
    std::string to = llvm::sys::path::filename(f).str();
    files.push_back(to);
    if (std::error_code ec = llvm::sys::fs::copy_file(joinPath(support, f), joinPath(dir, to))) {
      error = "cannot copy '" + joinPath(support, f) + "': " + ec.message();
      return false;
    }
  }
  return copyRuntimeHeaders(dir, "", files, error);
}

} // namespace onnxc
