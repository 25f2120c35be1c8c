//===- ControlFlowOps.td - If, Loop, Scan with their subgraphs ------------===//
//
// ONNX subgraphs become regions; a body reads values of the enclosing graph
// directly (ONNX's outer-scope references) and ends in onnx.Yield. The
// onnxc-expand-control-flow pass turns these into straight-line code.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_ONNX_CONTROL_FLOW_OPS_TD
#define ONNXC_ONNX_CONTROL_FLOW_OPS_TD

include "onnxc/Dialect/ONNX/ONNXBase.td"

def ONNX_YieldOp : Op<ONNX_Dialect, "Yield", [Pure, Terminator, ReturnLike]> {
  let summary = "the outputs of a subgraph (not an ONNX operator)";
  let arguments = (ins Variadic<AnyType>:$outputs);
  let assemblyFormat = ?;
}

def ONNX_IfOp : ONNX_Op<"If", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "the outputs of then_branch or else_branch, by a boolean scalar";
  let arguments = (ins AnyTensor:$cond);
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region SizedRegion<1>:$then_branch, SizedRegion<1>:$else_branch);
}

def ONNX_LoopOp : ONNX_Op<"Loop", [RecursiveMemoryEffects]> {
  let summary = "run body while i < M and cond; loop-carried values and scan outputs";
  let description = [{
    The body's arguments are (iteration number, condition, carried values...)
    and it yields (condition, carried values..., scan outputs...). Results:
    the final carried values, then each scan output stacked over iterations.
  }];
  let arguments = (ins ONNX_TensorOrNone:$M, ONNX_TensorOrNone:$cond,
                   Variadic<AnyTensor>:$v_initial);
  let results = (outs Variadic<AnyTensor>:$v_final_and_scan_outputs);
  let regions = (region SizedRegion<1>:$body);
}

def ONNX_ScanOp : ONNX_Op<"Scan", [RecursiveMemoryEffects]> {
  let summary = "run body once per slice of the scan inputs (opset 9+ form)";
  let description = [{
    Operands: the initial states, then num_scan_inputs scan inputs. The body
    takes (states..., one slice of each scan input...) and yields (states...,
    scan output slices...). Results: final states, then scan outputs.
  }];
  let arguments = (ins Variadic<AnyTensor>:$initial_state_and_scan_inputs,
                   I64Attr:$num_scan_inputs,
                   OptionalAttr<DenseI64ArrayAttr>:$scan_input_axes,
                   OptionalAttr<DenseI64ArrayAttr>:$scan_input_directions,
                   OptionalAttr<DenseI64ArrayAttr>:$scan_output_axes,
                   OptionalAttr<DenseI64ArrayAttr>:$scan_output_directions);
  let results = (outs Variadic<AnyTensor>:$final_state_and_scan_outputs);
  let regions = (region SizedRegion<1>:$body);
}

#endif
