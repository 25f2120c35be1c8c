//===- ShapeInference.cpp - onnxc-shape-inference --------------------------===//
#include "onnxc/Passes/PassUtils.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Passes/Passes.h"

using namespace mlir;

namespace onnxc {
#define GEN_PASS_DEF_SHAPEINFERENCEPASS
#include "onnxc/Passes/Passes.h.inc"

LogicalResult refreshTypes(Operation *op) {
  if (auto si = dyn_cast<onnx::ShapeInference>(op))
    if (failed(si.inferShapes()))
      return failure();
  return onnx::checkResultSizes(op);
}

Value shapeConstant(OpBuilder &b, Location loc, ArrayRef<int64_t> dims) {
  auto t = RankedTensorType::get({(int64_t)dims.size()}, b.getI64Type());
  return b.create<onnx::ConstantOp>(loc, t, DenseElementsAttr::get(t, dims));
}

FailureOr<Value> buildOnnxOp(OpBuilder &b, Location loc, StringRef name, ValueRange operands,
                             ArrayRef<NamedAttribute> attrs) {
  OperationState st(loc, ("onnx." + name).str());
  st.addOperands(operands);
  st.addAttributes(attrs);
  st.addTypes(UnrankedTensorType::get(b.getF32Type()));
  Operation *op = b.create(st);
  if (failed(refreshTypes(op)))
    return failure();
  return op->getResult(0);
}

void updateFunctionResultTypes(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getArgumentTypes(),
                                         ret.getOperandTypes()));
}

namespace {
struct ShapeInference : impl::ShapeInferencePassBase<ShapeInference> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    WalkResult r = func.walk([](Operation *op) {
      return failed(refreshTypes(op)) ? WalkResult::interrupt()
                                      : WalkResult::advance();
    });
    if (r.wasInterrupted())
      return signalPassFailure();
    updateFunctionResultTypes(func);
  }
};
} // namespace
} // namespace onnxc
