//===- NodeNames.cpp ------------------------------------------------------===//
#include "onnxc/Dialect/ONNX/NodeNames.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace onnxc {

std::string nodeNameOf(mlir::Location loc) {
  if (auto n = mlir::dyn_cast<mlir::NameLoc>(loc))
    return n.getName().str();
  if (auto f = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location l : f.getLocations())
      if (std::string s = nodeNameOf(l); !s.empty())
        return s;
  return "";
}

} // namespace onnxc
