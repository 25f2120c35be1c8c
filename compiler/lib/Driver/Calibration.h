//===- Calibration.h - --quantize int8: calibrate, write the QDQ model -------===//
#ifndef ONNXC_DRIVER_CALIBRATION_H
#define ONNXC_DRIVER_CALIBRATION_H

#include "onnxc/Driver/Driver.h"

#include <string>

namespace onnxc {

/// `--quantize int8 --calibration DIR`: calibrates the float model on this
/// machine and writes its int8 QDQ form to `qdqPath`. Returns the exit code
/// (errors printed, naming the file, input or node).
int quantizeModel(const std::string &modelPath, const ImportOptions &import,
                  const QuantizeOptions &options, const std::string &qdqPath, bool quiet);
/// --quantize-report: quantizeModel leaves the report beside `qdqPath`;
/// once the compile or run has succeeded this copies it to its place, so a
/// failure leaves no report behind. Returns the exit code.
int publishQuantizeReport(const QuantizeOptions &options, const std::string &qdqPath,
                          bool quiet);

} // namespace onnxc

#endif
