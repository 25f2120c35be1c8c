#!/usr/bin/python3
"""Checks a quantized model through onnxc: it must compile to integer ops
(no float Conv, Gemm or MatMul left, and the compile summary must say so:
"int8 N of N convolutions and matrix products on integer kernels"); a
statically quantized model must have no float arithmetic left between Q and
DQ (only the QuantizeLinear of the float input and the DequantizeLinear of
the float output). `onnxc run --target T` must match the reference outputs
within one quantization step of the output on every element (the qs8
scheme's fixed-point requantization differs from exact arithmetic by at
most one step per layer) with the same top-1 class; a dynamically quantized
model (its output not made by a DequantizeLinear) within float rounding.

    check_qdq.py --onnxc ONNXC --model-dir DIR [--target generic] [--max-steps 1]
                 [--expect-float N]

--expect-float N: a model with N convolutions or matrix products onnxc
cannot run on integer kernels; the summary must name N in float (each
with its reason) and the outputs still match.

--float-op OP (repeatable): an element-wise op with no integer form for the
model's type (a Sigmoid on int16 activations: no lookup table) that may
stay in float between its own DequantizeLinear and QuantizeLinear.

DIR holds model.onnx and test_data_set_0 (make_qdq_model.py and
producers/make_models.py write them).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
from onnx_tensors import load_tensor  # noqa: E402


def output_scale(model):
    """The scale of the DequantizeLinear that produces the graph's output
    (through Identity, Flatten, Reshape, Cast), from an initializer or a
    Constant node; None when a float op makes the output."""
    g = model.graph
    producers = {o: n for n in g.node for o in n.output}
    values = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    for n in g.node:
        if n.op_type == "Constant":
            values[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    n = producers[g.output[0].name]
    while n.op_type in ("Identity", "Flatten", "Reshape", "Cast"):
        n = producers[n.input[0]]
    if n.op_type != "DequantizeLinear":
        return None
    return float(values[n.input[1]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--target", default="generic")
    ap.add_argument("--max-steps", type=float, default=1.0)
    ap.add_argument("--expect-float", type=int, default=0)
    ap.add_argument("--float-op", action="append", default=[])
    args = ap.parse_args()
    model_path = os.path.join(args.model_dir, "model.onnx")
    data = os.path.join(args.model_dir, "test_data_set_0")
    step = output_scale(onnx.load(model_path))
    with tempfile.TemporaryDirectory() as work:
        summary = subprocess.run([args.onnxc, model_path, "-o", work, "--name", "m", "--emit",
                                  "mlir", "--target", args.target],
                                 check=True, capture_output=True, text=True).stdout
        ir = open(os.path.join(work, "m.mlir")).read()
        ops = re.findall(r'"onnx\.(\w+)"', ir)
        counts = {op: ops.count(op) for op in sorted(set(ops)) if op != "Constant"}
        print("compiled ops:", counts)
        line = re.search(r"int8 +(\d+) of (\d+) convolutions and matrix products[^\n]*", summary)
        print("summary:", line.group(0) if line else "(no int8 line)")
        if args.expect_float:
            named = re.findall(r"^ +(?:Conv|Gemm|MatMul) '[^']*': .+$", summary, re.M)
            print("\n".join(named))
            if not line or int(line.group(2)) - int(line.group(1)) != args.expect_float or \
                    len(named) != args.expect_float:
                sys.exit(f"the summary does not name {args.expect_float} layers in float:\n"
                         f"{summary}")
        elif not line or line.group(1) != line.group(2) or line.group(1) == "0":
            sys.exit(f"the summary does not report every convolution on integer kernels:\n{summary}")
        # (QLinearConv / QLinearMatMul left as they are requantize in float.)
        float_math = [op for op in ("Conv", "Gemm", "MatMul", "FusedConv", "ConvTranspose",
                                    "QLinearConv", "QLinearMatMul") if op in counts]
        if args.expect_float:
            float_math = []
        elif step is not None:  # static: nothing in float between the edges
            float_math += [op for op in ("Add", "Mul", "Relu", "Sigmoid", "AveragePool",
                                         "GlobalAveragePool")
                           if op in counts and op not in args.float_op]
            edges = 1 + sum(counts.get(op, 0) for op in args.float_op)
            if counts.get("QuantizeLinear", 0) > edges or \
                    counts.get("DequantizeLinear", 0) > edges:
                float_math.append("QuantizeLinear/DequantizeLinear")
        if float_math:
            sys.exit(f"float arithmetic left: {float_math} in {counts}")
        out = os.path.join(work, "out")
        subprocess.run([args.onnxc, "run", model_path, "--inputs", data, "--outputs", out,
                        "--target", args.target, "--quiet"], check=True)
        got = load_tensor(os.path.join(out, "output_0.pb"))
    ref = load_tensor(os.path.join(data, "output_0.pb"))
    top1 = float(np.mean(got.argmax(-1) == ref.argmax(-1)))
    if step is None:
        err = float(np.abs(got.astype(np.float64) - ref).max())
        print(f"{args.target}: max difference {err:.3g} (outputs up to {np.abs(ref).max():.3g})")
        print(f"top-1 agreement with the reference: {top1:.3f}")
        if not np.allclose(got, ref, rtol=1e-5, atol=1e-5 * float(np.abs(ref).max())):
            sys.exit("the outputs differ from the reference beyond float rounding")
    else:
        steps = np.round(np.abs(got.astype(np.float64) - ref) / step).astype(int)
        values, counts = np.unique(steps, return_counts=True)
        print(f"{args.target}: elements per difference in output steps (step {step:.6g}): "
              + ", ".join(f"{v}: {c}" for v, c in zip(values, counts)))
        print(f"top-1 agreement with the reference: {top1:.3f}")
        if steps.max() > args.max_steps:
            sys.exit(f"an output differs by {steps.max()} steps (at most {args.max_steps} allowed)")
    if top1 < 1.0:
        sys.exit("a top-1 class differs from the reference")
    print(f"quantized model: {args.expect_float} layers named in float, the rest on integer "
          "kernels; matching the reference" if args.expect_float else
          "quantized model: integer kernels, matching the reference")


if __name__ == "__main__":
    main()
