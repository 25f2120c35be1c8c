//===- NodeNames.h - the ONNX node an op came from --------------------------===//
#ifndef ONNXC_DIALECT_ONNX_NODENAMES_H
#define ONNXC_DIALECT_ONNX_NODENAMES_H

#include "mlir/IR/Location.h"

#include <string>

namespace onnxc {

/// The ONNX node name the importer gave an op's location ("conv1" for
/// NameLoc("conv1"), the first one inside a fused location), or "".
std::string nodeNameOf(mlir::Location loc);

} // namespace onnxc

#endif
