//===- RunInputs.h - the input sets of `onnxc run` and `validate` -*- C++ -*-===//
#ifndef ONNXC_DRIVER_RUNINPUTS_H
#define ONNXC_DRIVER_RUNINPUTS_H

#include "onnxc/Import/Importer.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <string>
#include <vector>

namespace onnxc {

/// One input set read for the model: the tensors in parameter order, and
/// the import options (shapes, bound values) they imply.
struct InputSet {
  std::vector<mlir::DenseElementsAttr> inputs;      // one per function parameter
  std::vector<mlir::DenseElementsAttr> plainInputs; // tensor graph inputs, by position
  ImportOptions import;
};

/// The input sets of `--inputs DIR`, as --calibration reads its folder: DIR
/// itself when it holds input files (input_0.pb, ... or files named after
/// the inputs), else each of its sub-folders (test_data_set_0, ...) in name
/// order. Empty with `error` set when there is none.
std::vector<std::string> inputSets(const std::string &dir, std::string &error);

/// Reads the set in `dir`: per graph input, input_I.pb, else NAME.pb or
/// NAME.npy (tensor inputs). Returns the exit code (0: read), the error
/// printed.
int readInputSet(mlir::MLIRContext &ctx, const std::string &dir, const std::string &modelPath,
                 const std::vector<GraphInputKind> &kinds, const ImportOptions &base,
                 bool bounded, InputSet &set);

} // namespace onnxc

#endif
