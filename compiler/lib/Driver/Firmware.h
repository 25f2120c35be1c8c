//===- Firmware.h - a model on a board: placement and firmware --*- C++ -*-===//
//
// With --board: where the model's weights, code, arena and stack go among
// the board's memory regions (and whether they fit, checked before anything
// is written), and --emit firmware's standalone CMake project.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_DRIVER_FIRMWARE_H
#define ONNXC_DRIVER_FIRMWARE_H

#include "Boards.h"
#include "Generate.h"
#include "Toolchain.h"

#include <string>
#include <vector>

namespace onnxc {

/// The model's bytes on a board, region by region.
struct Placement {
  const MemoryRegion *flash = nullptr, *weights = nullptr, *arena = nullptr, *io = nullptr,
                     *ram = nullptr;
  int64_t codeBytes = 0;    // the model's code (+ the firmware's, estimated, with --emit firmware)
  int64_t weightBytes = 0;
  int64_t arenaBytes = 0;
  int64_t stackBytes = 0;   // the deepest call chain + the firmware's frames
  int64_t ioBytes = 0;      // the inputs and outputs (the firmware's buffers, or the caller's)
  int64_t dataBytes = 0;    // the model's static data
  /// Why it does not fit ("" when it does), with the figures.
  std::string problem;
};

/// Places the model on `board`: code in the first flash region, weights in
/// the region marked for them (else with the code), static data and the
/// stack in the main RAM, the arena and then the inputs and outputs each in
/// the first RAM region (fastest first) with room left. `firmware`: --emit
/// firmware's own code and stack are counted too.
Placement placeOnBoard(const Board &board, const std::string &name, const CompileSummary &s,
                       const Footprint &f, const ModelInterface &iface, bool firmware);

/// --report's placement lines.
void printPlacement(const Board &board, const Placement &p);

/// Why the model cannot become firmware for `board` ("" if it can): boards
/// the database marks, inputs or outputs whose size is decided at run time.
std::string firmwareProblem(const Board &board, const GeneratedModel &g);

/// Writes --emit firmware's project into `dir` (which exists): CMakeLists.txt,
/// README.md, board.ld, board.h, model_io.h, the startup, console and main
/// sources and runtime-lite's headers under onnxc_rt/ (the caller writes the
/// model's files to model/). `files` receives their paths relative to `dir`.
bool writeFirmwareProject(const Board &board, const Target &target, const GeneratedModel &g,
                          const std::string &name, const Placement &placement,
                          const std::string &dir, std::vector<std::string> &files,
                          std::string &error);

} // namespace onnxc

#endif
