//===- Passes.td - every onnxc graph pass, declared once -------------------===//
#ifndef ONNXC_PASSES_TD
#define ONNXC_PASSES_TD

include "mlir/Pass/PassBase.td"

def ShapeInferencePass : Pass<"onnxc-shape-inference", "mlir::func::FuncOp"> {
  let summary = "Infer every op's result types in program order";
  let description = [{
    Re-runs each op's ShapeInference interface in order and updates the
    function's result types, so types reflect what folding made known.

    Before:
      %s = onnx.Constant {value = dense<[1, 16]> : tensor<2xi64>}
      %r = onnx.Reshape(%x, %s) : (tensor<1x4x4xf32>, tensor<2xi64>) -> tensor<*xf32>
    After:
      %r = onnx.Reshape(%x, %s) : (...) -> tensor<1x16xf32>
  }];
}

def FoldQdqPass : Pass<"onnxc-fold-qdq", "mlir::func::FuncOp"> {
  let summary = "Turn a QDQ model's DequantizeLinear -> op -> QuantizeLinear chains into integer ops";
  let description = [{
    For each QuantizeLinear with per-tensor int8/uint8 parameters whose
    input is computed from DequantizeLinear'd values (per-tensor
    activations; weights constant int8, symmetric, per output channel or
    per tensor):
    - Conv, Gemm (transA 0, alpha = beta = 1) and MatMul with constant
      weights become onnx.QConv / onnx.QMatMul, the bias (a DequantizeLinear
      of int32, or float) re-expressed as int32 at x_scale * w_scale[c]; a
      Relu or constant Clip between the op and the QuantizeLinear becomes the
      output clamp [act_min, act_max];
    - Add becomes onnx.QAdd (with the clamp likewise), AveragePool and
      GlobalAveragePool onnx.QAveragePool;
    - ops that only move elements (Reshape, Flatten, Transpose, Squeeze,
      Unsqueeze, Slice, Gather, Concat, MaxPool, ...) run on the quantized
      values, followed (preceded, for Concat's inputs) by onnx.QRescale
      where the input and output quantizations differ;
    - a Relu or Clip that is a Q/DQ stage of its own (PyTorch's unfused
      Linear + ReLU) tightens the clamp of the integer op before it, or
      becomes a lookup table;
    - other element-wise functions of one value (Sigmoid, Tanh, HardSwish,
      ...) become onnx.QLookup with a 256-entry table built as
      QuantizeLinear(f(DequantizeLinear(every value))), which constant
      folding then evaluates with f's reference kernel;
    - QuantizeLinear(DequantizeLinear(x)) becomes x, or onnx.QRescale when
      the two quantizations differ.
    Runs between two constant-folding runs: the first (keep-dequantize)
    resolves the parameters exporters compute and drops same-type Casts
    (PyTorch writes QuantizeLinear -> Cast(to=uint8) -> DequantizeLinear), the
    second would otherwise turn the weights' DequantizeLinear into float
    constants. What does not match stays as it is and runs in float between
    its Q and DQ.

    Before:
      %x = onnx.DequantizeLinear(%xq, %xs, %xz) : (tensor<1x3x8x8xi8>, ...) -> tensor<1x3x8x8xf32>
      %w = onnx.DequantizeLinear(%wq, %ws, %wz) {axis = 0} : (tensor<4x3x3x3xi8>, tensor<4xf32>, ...)
      %c = onnx.Conv(%x, %w, %none) : ... -> tensor<1x4x6x6xf32>
      %r = onnx.Relu(%c)
      %y = onnx.QuantizeLinear(%r, %ys, %yz) : ... -> tensor<1x4x6x6xi8>
    After:
      %y = onnx.QConv(%xq, %wq, %none) {x_scale = ..., w_scale = array<f32: ...>,
             y_scale = ..., act_min = <y zero point>, act_max = 127} -> tensor<1x4x6x6xi8>
  }];
}

def ConstantFoldingPass : Pass<"onnxc-constant-folding", "mlir::func::FuncOp"> {
  let summary = "Evaluate ops whose inputs are all constants, with the runtime kernels";
  let description = [{
    Walks the function in order. Each op first has its types refreshed (a
    folded Reshape shape makes the Reshape static, which makes a later Shape
    foldable), then, if every operand is a constant, is evaluated by running
    its kernel calls on the host through the same runtime-lite kernels the
    generated code uses, and replaced by an onnx.Constant. Shape and Size of
    static tensors fold without kernels. This resolves the Shape -> Gather ->
    Concat -> Reshape chains exporters emit in one walk. Results larger than
    their inputs (ConstantOfShape, Expand, Tile) fold only below
    `max-grow-bytes`, so weights do not balloon. Ops whose fold hook returns
    an operand (Identity, a Reshape/Cast/Expand to the same type, an identity
    Transpose, a Pad by zeros, a Resize to the input's own size but
    tf_crop_and_resize) are replaced by it. Shape and Size over a dim whose
    size the data decides do not fold (DataDependentDims.h).

    Before:
      %0 = onnx.Shape(%x) : (tensor<1x8x4xf32>) -> tensor<3xi64>
      %1 = onnx.Gather(%0, %c0) {axis = 0} : (...) -> tensor<i64>
    After:
      %1 = onnx.Constant {value = dense<1> : tensor<i64>}
  }];
  let options = [
    Option<"maxGrowBytes", "max-grow-bytes", "int64_t", /*default=*/"65536",
           "Largest result (bytes) that may exceed the size of its inputs">,
    Option<"keepDequantize", "keep-dequantize", "bool", /*default=*/"false",
           "Leave every DequantizeLinear as it is (the run before onnxc-fold-qdq: "
           "it resolves the quantization parameters exporters compute, such as "
           "PyTorch's zero points from ConstantOfShape -> Cast, and drops their "
           "same-type Casts, but keeps the quantized weights fold-qdq reads)">,
  ];
}

def ExpandControlFlowPass : Pass<"onnxc-expand-control-flow", "mlir::func::FuncOp"> {
  let summary = "Turn If, Loop and Scan into straight-line code";
  let description = [{
    onnxc compiles to a flat schedule, so control flow is expanded statically:
    - If with a constant condition: the chosen branch is inlined. With a
      run-time condition: both branches are inlined (ONNX ops have no side
      effects) and each output is Where(cond, then, else); the branches must
      then agree on output types.
    - Loop with a constant trip count whose body passes the condition through
      unchanged: the body is unrolled; scan outputs are stacked with
      Unsqueeze + Concat.
    - Scan: the body is unrolled over the (static) scan length, slices taken
      with Gather, outputs stacked.
    Anything else (a data-dependent exit, an unknown trip count) is reported
    as not supported. Run after constant folding (trip counts fold) and
    before it again (the unrolled code folds further).

    Before:
      %r = "onnx.Loop"(%m3, %true, %v) ({ ^bb0(%i, %c, %x): ... "onnx.Yield"(%c, %y) })
    After:
      %y0 = ... (%v), %y1 = ... (%y0), %r = ... (%y1)
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "int64_t", /*default=*/"4096",
           "Largest trip count that is unrolled">,
  ];
}

def DeadCodeEliminationPass : Pass<"onnxc-dce", "mlir::func::FuncOp"> {
  let summary = "Remove ops whose results are unused";
  let description = [{
    onnx ops have no side effects; any op with no used result is erased,
    in reverse order so whole dead chains (and unused weights) go at once.
  }];
}

def FuseOpsPass : Pass<"onnxc-fuse-ops", "mlir::func::FuncOp"> {
  let summary = "Fuse bias, residual add and activation into Conv/Gemm; MatMul+Add into Gemm; recognise LayerNorm";
  let description = [{
    Rewrites op chains so one kernel call computes them and writes the
    result once (optimised kernels apply the fused part while each output
    tile is in cache; the reference path runs the same steps in place):
    - MatMul(A, W) + bias, W a constant matrix and bias a constant vector
      of its columns, becomes Gemm (A of rank > 2 is reshaped to 2-D and
      back: views, no copies).
    - Conv + Add(conv, Z), Z of the conv's type and the conv used only
      there, becomes FusedConv with residual Z (ResNet's skip connection).
    - Conv/FusedConv/Gemm followed by its only user Relu, LeakyRelu,
      Sigmoid, HardSigmoid, HardSwish, Tanh, Elu, Gelu or Clip (constant
      bounds: Clamp), or by x * Sigmoid(x) (SiLU), takes that activation;
      a Gemm takes one that follows it through a Reshape (elementwise, so
      it commutes with the view).
    - LayerNorm as exported before opset 17 over the last axis,
        d = x - ReduceMean(x); v = ReduceMean(Pow(d, 2)) (or d * d);
        y = d / Sqrt(v + eps) * scale (+ bias), scale/bias constant vectors,
      becomes LayerNormalization(x, scale, bias) {axis = -1, epsilon = eps}.
    - A Transpose that only moves dims of size 1 (the others keep their
      order) becomes a Reshape: no data moves, and a Reshape is a view.
    Only float32 ops fuse, and only when the intermediate results have no
    other users.

    Before:
      %c = onnx.Conv(%x, %w, %b)
      %s = onnx.Add(%c, %skip)
      %r = onnx.Relu(%s)
    After:
      %r = onnx.FusedConv(%x, %w, %b, %skip) {activation = "Relu"}
  }];
}

def FoldBatchNormPass : Pass<"onnxc-fold-batchnorm", "mlir::func::FuncOp"> {
  let summary = "Fold inference BatchNormalization into the preceding Conv or Gemm";
  let description = [{
    When a BatchNormalization consumes a Conv or a Gemm with constant weights
    (and it has no other user), the per-channel affine transform is folded
    into its weights and bias (a Gemm's output channels are op(B)'s columns;
    its C must be per-column or absent, with beta = 1 where present):
      W' = W * scale / sqrt(var + eps),  B' = (B - mean) * scale / sqrt(var + eps) + beta

    Before:
      %y = onnx.Conv(%x, %w, %b)
      %z = onnx.BatchNormalization(%y, %scale, %beta, %mean, %var)
    After:
      %z = onnx.Conv(%x, %w', %b')
  }];
}

def DataDependentDimsPass : Pass<"onnxc-data-dependent-dims", "mlir::func::FuncOp"> {
  let summary = "Carry sizes the data decides through the ops that keep rows apart; refuse the rest";
  let description = [{
    NonZero, Unique and NonMaxSuppression results have a dim whose size the
    data decides: the type holds the bound, an extent result the size of a
    run (DataDependentDims.h). This pass first rewrites what can become such
    ops (Compress with a run-time condition: Gather by NonZero's indices;
    Transpose after NonZero: NonZero's transposed form), then works out which
    dims of which values carry such a size (element-wise ops, views,
    Transpose, Gather/GatherND by such indices, Slice, Split and Concat
    along other dims), refuses any other reader, naming its node and the
    producer, and gives each graph output carrying such a size its extent
    result (onnx.outputs' "extent", "extent_dim") and zeros past it.

    Before:
      %i, %n = onnx.NonZero(%m) : (tensor<6xi1>) -> (tensor<1x6xi64>, tensor<i64>)
      %j = onnx.Squeeze(%i, %zero) : ... -> tensor<6xi64>
      %y = onnx.Gather(%x, %j) {axis = 0} : ... -> tensor<6x4xf32>
      return %y
    After: `return %y', %n`, %y' = Where(iota < %n, %y, 0), and onnx.outputs
    maps output 0 to extent result 1, dim 0.
  }];
}

def SelectKernelsPass : Pass<"onnxc-select-kernels", "mlir::func::FuncOp"> {
  let summary = "Choose each op's kernels once, through the target's providers";
  let description = [{
    Asks the kernel providers of the module's target (`onnxc.target`), then
    the reference provider, how each op runs, and records the answer on the
    op as `onnxc.kernel`: the calls (callee, template arguments, header), and
    their arguments with operands and results by index, compile-time packed
    or transformed weights as dense constants, and scratch sizes. Memory
    planning and the EmitC lowering read the record, so weights are packed
    once. An op no kernel can run is an error naming its node.

    Before (module attributes {onnxc.target = #onnx.target<name = "generic">}):
      %y = onnx.Softmax(%x) {axis = -1} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    After (the record, abridged):
      %y = onnx.Softmax(%x) {axis = -1, onnxc.kernel = {kind = "calls", calls = [
             {callee = "onnxc_rt::ref::softmax", args = [
                {kind = "tensor", operand = 0}, {kind = "tensor", result = 0, writes},
                2, 8, 1, 0 ] } ] } }
  }];
}

def MemoryPlanningPass : Pass<"onnxc-memory-planning", "mlir::func::FuncOp"> {
  let summary = "Place every intermediate tensor at an offset of one arena";
  let description = [{
    Computes each buffer's live range over the (already scheduled) op order,
    then packs buffers greedily, largest first, at the lowest 64-byte-aligned
    offset not overlapping a buffer live at the same time (TFLM's offline
    planner). Views (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout)
    share their operand's buffer; an elementwise op whose input dies at it
    writes in place; a batch-1 Concat whose operands are arena buffers of
    their own, 64-byte multiples, gets them as parts of its result (their
    producers write there) and is marked `onnxc.in_place` (it copies
    nothing). Graph outputs are written straight into the caller's
    buffers. Kernel scratch space is planned the same way.

    Results carry `onnxc.offset` (bytes into the arena, or -1 for buffers
    that are not in the arena); the function gets `onnxc.arena_size` and
    `onnxc.naive_size` (the sum of all intermediates, for comparison).

    Before:
      %1 = onnx.Relu(%0) : (tensor<1x64xf32>) -> tensor<1x64xf32>
    After:
      %1 = onnx.Relu(%0) {onnxc.offset = [0]} : (tensor<1x64xf32>) -> tensor<1x64xf32>
  }];
}

def LowerToEmitCPass : Pass<"onnxc-lower-to-emitc", "mlir::ModuleOp"> {
  let summary = "Lower the planned onnx function to EmitC: one kernel call per op";
  let description = [{
    Replaces the (memory-planned) onnx function `@NAME` by an EmitC function
    `NAME_run(inputs..., outputs..., void* arena)` that calls runtime-lite
    kernels on pointers into the arena, the caller's buffers and the weights
    blob `NAME_weights`. Shape and stride arrays become `static const`
    globals. The constants' bytes are kept on the module as `onnxc.weights`
    (with `onnxc.weight_offsets`) for the weights emitter; MLIR's C++
    translator prints the result.

    Before:
      func.func @m(%x: tensor<4xf32>) -> tensor<4xf32> {
        %y = onnx.Relu(%x) {onnxc.offset = array<i64: -1>}
        return %y
      }
    After:
      emitc.func @m_run(%x: !emitc.ptr<!emitc.opaque<"const float">>,
                        %y: !emitc.ptr<!emitc.opaque<"float">>, %arena: ...) {
        emitc.call_opaque "onnxc_rt::ref::unary"(%x, %y) {...}
      }

    With `device-runtime=NS` the code runs on a device (a GPU) whose host
    runtime lives in namespace NS: the function is `static int
    NAME_schedule(inputs..., outputs..., const void* weights, void* arena,
    void* stream)`, enqueueing the kernels on `NS::Stream* stream`; the
    weights are the device copy passed in, not a symbol; an output that is
    a view of an input or a constant is copied by `NS::copy_bytes(stream,
    src, dst, n)`; the target's emitter writes the entry points.
  }];
  let options = [
    Option<"deviceRuntime", "device-runtime", "std::string", /*default=*/"\"\"",
           "Namespace of the device runtime the schedule is enqueued through "
           "(empty: host code)">,
  ];
  let dependentDialects = ["mlir::emitc::EmitCDialect"];
}

#endif
