//===- Boards.h - the microcontroller board database ------------*- C++ -*-===//
//
// targets/cortex-m/boards.json (installed to share/onnxc/targets/cortex-m):
// each board's chip, core, memory regions, clocks, console UART and QEMU
// machine. `--list-boards` prints it, `--board NAME` picks the target and
// the memory a model must fit, `--emit firmware` writes a project from it.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_DRIVER_BOARDS_H
#define ONNXC_DRIVER_BOARDS_H

#include <cstdint>
#include <string>
#include <vector>

namespace onnxc {

/// A register write: *address = (*address & ~mask) | value; or with
/// `wait`, a poll until (*address & mask) == value.
struct RegisterWrite {
  uint32_t address = 0, mask = 0, value = 0;
  bool wait = false;
};

struct MemoryRegion {
  std::string name; // "FLASH", "DTCM", ...
  bool flash = false; // flash (read-only at run time) or RAM
  uint32_t origin = 0;
  int64_t size = 0;
  bool main = false;    // RAM: data, .bss and the stack go here
  bool weights = false; // flash: the weights go here (default: the first flash region)
  std::string note;
};

struct Board {
  std::string name;                 // "stm32f405"
  std::vector<std::string> aliases; // "netduinoplus2", ...
  std::string description;
  std::string core; // an onnxc target: "cortex-m4"
  int64_t clockHz = 0, resetClockHz = 0;
  /// The steps that raise the clock (empty: it runs at resetClockHz), the
  /// core's clock after them and the console UART's.
  std::vector<RegisterWrite> clockInit;
  int64_t initClockHz = 0, initConsoleClockHz = 0;
  std::vector<MemoryRegion> memory; // RAM regions fastest first
  std::vector<RegisterWrite> memoryInit;
  struct Console {
    std::string driver; // stm32-usart-v1, stm32-usart-v2, pl011, nrf-uart, cmsdk-uart
    uint32_t base = 0;
    std::string name;
    std::vector<RegisterWrite> init;
  } console;
  std::string cycleCounter; // systick, nrf-timer0
  std::string qemuMachine, qemuCpu; // empty: QEMU has no model of it
  std::string noFirmware;           // why --emit firmware cannot serve it ("" if it can)

  /// The region holding code (the first flash region) and the weights.
  const MemoryRegion *codeRegion() const;
  const MemoryRegion *weightsRegion() const;
  /// The RAM region for data, .bss and the stack.
  const MemoryRegion *mainRam() const;
};

/// Reads the database (boardDatabasePath()); false with `error` when it
/// cannot be read or is malformed.
bool loadBoards(std::vector<Board> &boards, std::string &error);

/// The database's path: beside an installed onnxc, else the source tree's.
std::string boardDatabasePath();

/// The board named `name` (its name or an alias, any case), or null with
/// `error` listing the known ones.
const Board *findBoard(const std::vector<Board> &boards, const std::string &name,
                       std::string &error);

/// --list-boards: one entry a board, its memory and what runs it.
void printBoards(const std::vector<Board> &boards);

} // namespace onnxc

#endif
