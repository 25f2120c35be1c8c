#!/usr/bin/python3
"""Checks a QDQ (or QOperator) model through onnxc: it must compile to integer ops (no float
Conv, Gemm or MatMul left, only the QuantizeLinear of the float input and the
DequantizeLinear of the float output), and `onnxc run --target T` must match
the reference outputs within one quantization step of the output on every
element (the qs8 scheme's fixed-point requantization differs from exact
arithmetic by at most one step per layer) with the same top-1 class.

    check_qdq.py --onnxc ONNXC --model-dir DIR [--target generic] [--max-steps 1]

DIR holds model.onnx and test_data_set_0 (make_qdq_model.py writes them).
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
    (through views: Identity, Flatten, Reshape)."""
    g = model.graph
    producers = {o: n for n in g.node for o in n.output}
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    n = producers[g.output[0].name]
    while n.op_type in ("Identity", "Flatten", "Reshape"):
        n = producers[n.input[0]]
    if n.op_type != "DequantizeLinear":
        sys.exit(f"the output is made by {n.op_type}, not DequantizeLinear")
    return float(inits[n.input[1]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--target", default="generic")
    ap.add_argument("--max-steps", type=float, default=1.0)
    args = ap.parse_args()
    model_path = os.path.join(args.model_dir, "model.onnx")
    data = os.path.join(args.model_dir, "test_data_set_0")
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([args.onnxc, model_path, "-o", work, "--name", "m", "--emit", "mlir",
                        "--target", args.target, "--quiet"], check=True)
        ir = open(os.path.join(work, "m.mlir")).read()
        ops = re.findall(r'"onnx\.(\w+)"', ir)
        counts = {op: ops.count(op) for op in sorted(set(ops)) if op != "Constant"}
        print("compiled ops:", counts)
        # (QLinearConv / QLinearMatMul left as they are requantize in float.)
        float_math = [op for op in ("Conv", "Gemm", "MatMul", "Add", "Mul", "Relu", "Sigmoid",
                                    "AveragePool", "GlobalAveragePool", "QLinearConv",
                                    "QLinearMatMul") if op in counts]
        if float_math or counts.get("QuantizeLinear", 0) > 1 or counts.get("DequantizeLinear", 0) > 1:
            sys.exit(f"float arithmetic left between Q and DQ: {counts}")
        out = os.path.join(work, "out")
        subprocess.run([args.onnxc, "run", model_path, "--inputs", data, "--outputs", out,
                        "--target", args.target, "--quiet"], check=True)
        got = load_tensor(os.path.join(out, "output_0.pb"))
    ref = load_tensor(os.path.join(data, "output_0.pb"))
    step = output_scale(onnx.load(model_path))
    steps = np.round(np.abs(got.astype(np.float64) - ref) / step).astype(int)
    values, counts = np.unique(steps, return_counts=True)
    print(f"{args.target}: elements per difference in output steps (step {step:.6g}): "
          + ", ".join(f"{v}: {c}" for v, c in zip(values, counts)))
    top1 = float(np.mean(got.argmax(-1) == ref.argmax(-1)))
    print(f"top-1 agreement with the reference: {top1:.3f}")
    if steps.max() > args.max_steps:
        sys.exit(f"an output differs by {steps.max()} steps (at most {args.max_steps} allowed)")
    if top1 < 1.0:
        sys.exit("a top-1 class differs from the reference")
    print("QDQ model: integer ops, within one step of the reference")


if __name__ == "__main__":
    main()
