//===- ONNXOps.td - all onnx ops, grouped by category ---------------------===//
#ifndef ONNXC_ONNX_OPS_TD
#define ONNXC_ONNX_OPS_TD

include "onnxc/Dialect/ONNX/MathOps.td"
include "onnxc/Dialect/ONNX/NNOps.td"
include "onnxc/Dialect/ONNX/TensorOps.td"
include "onnxc/Dialect/ONNX/ControlFlowOps.td"
include "onnxc/Dialect/ONNX/FusedOps.td"
include "onnxc/Dialect/ONNX/QuantOps.td"

#endif
