//===- Ecosystem.h - the model as a Zephyr module or Arduino library -*- C++ -*-===//
//
// --emit zephyr and --emit arduino: the model's files and runtime-lite's
// headers in the layout each ecosystem's build picks up by itself.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_DRIVER_ECOSYSTEM_H
#define ONNXC_DRIVER_ECOSYSTEM_H

#include "Generate.h"

#include <string>
#include <vector>

namespace onnxc {

/// Why --emit zephyr / arduino cannot package `g` for `target` ("" if it can).
std::string ecosystemProblem(const std::string &emit, const Target &target,
                             const GeneratedModel &g);

/// --emit zephyr: a Zephyr module in `dir`: zephyr/module.yml, zephyr/Kconfig
/// (CONFIG_ONNXC_<NAME>), zephyr/CMakeLists.txt (a library of the model when
/// that is set), src/ (the model's files, runtime-lite's headers), README.md.
bool writeZephyrModule(const Target &target, const GeneratedModel &g, const std::string &name,
                       const std::string &dir, std::vector<std::string> &files,
                       std::string &error);

/// --emit arduino: an Arduino library in `dir`/NAME: library.properties,
/// src/ (the model, its weights as a C array, runtime-lite's headers) and
/// examples/NAME_demo/NAME_demo.ino, which runs the model and prints its
/// outputs and time over Serial.
bool writeArduinoLibrary(const Target &target, const GeneratedModel &g, const std::string &name,
                         const std::string &dir, std::vector<std::string> &files,
                         std::string &error);

} // namespace onnxc

#endif
