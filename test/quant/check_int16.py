#!/usr/bin/python3
"""int16 activations (the 16x8 scheme) through onnxc, on MLPerf Tiny's
keyword-spotting DS-CNN (bench/mlperf_tiny/make_models.py's, seeded weights):

    check_int16.py ONNXC WORK_DIR [--target T ...]

1. `onnxc --quantize int8`, `--quantize int16x8` and `--quantize int8
   --quantize-int16 NODE` (the second convolution int16, and so the first,
   which makes its input; the rest int8) each write a QDQ model (--emit
   qdq-onnx). The int16 pairs are
   com.microsoft QuantizeLinear/DequantizeLinear (the model is opset 13), as
   ONNX Runtime's quantizer writes them.
2. Each QDQ model is evaluated here with its exact ONNX semantics (float
   ops between DequantizeLinear and QuantizeLinear, round half to even,
   saturation; qdq_eval below) on 8 inputs, and `onnxc run` of the same file
   (integer kernels: the summary must put every convolution on them, the
   int16 ones counted) must match it within one output step on each
   --target.
3. Against PyTorch's float outputs: int16x8 must be closer than int8 by at
   least 3 dB of SQNR, and the mixed model no worse than int8.
4. `--quantize int16x8 --io int16` (the interface an audio pipeline holding
   int16 samples uses): the header declares int16_t input and output with
   their scales, and run on the inputs quantized with that scale it gives
   the float-interface model's integers, on each --target.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "mlperf_tiny"))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
from make_models import dscnn, randomize_batchnorm  # noqa: E402
from onnx_tensors import load_tensor  # noqa: E402

SHAPE = (1, 1, 49, 10)
TYPES = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255),
         np.dtype(np.int16): (-32768, 32767), np.dtype(np.uint16): (0, 65535)}


def qdq_eval(model, x):
    """The QDQ model's output on x, computed as ONNX defines each op (the
    ops a quantized DS-CNN has), in float64 between Q and DQ."""
    g = model.graph
    v = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    v[g.input[0].name] = x

    def attr(n, name, default):
        for a in n.attribute:
            if a.name == name:
                return list(a.ints) if a.ints else (a.i if a.type == a.INT else a.f)
        return default

    def per_axis(a, s, n, rank):
        if np.ndim(s) == 0 or np.size(s) == 1:
            return np.reshape(s, ())
        shape = [1] * rank
        shape[attr(n, "axis", 1) % rank] = -1
        return np.reshape(s, shape)

    for n in g.node:
        i = [v[name] if name else None for name in n.input]
        op = n.op_type
        if op == "QuantizeLinear":
            lo, hi = TYPES[i[2].dtype]
            s = per_axis(i[0], i[1].astype(np.float64), n, i[0].ndim)
            z = per_axis(i[0], i[2].astype(np.float64), n, i[0].ndim)
            # ONNX divides in float32: x / scale rounded to float first.
            q = np.round((i[0].astype(np.float32) / s.astype(np.float32)).astype(np.float64)) + z
            y = np.clip(q, lo, hi).astype(i[2].dtype)
        elif op == "DequantizeLinear":
            s = per_axis(i[0], i[1].astype(np.float32), n, i[0].ndim)
            z = per_axis(i[0], i[2].astype(np.float32), n, i[0].ndim)
            y = ((i[0].astype(np.float32) - z) * s).astype(np.float32)
        elif op == "Conv":
            p = attr(n, "pads", [0, 0, 0, 0])
            t = F.pad(torch.from_numpy(i[0].astype(np.float64)), (p[1], p[3], p[0], p[2]))
            t = F.conv2d(t, torch.from_numpy(i[1].astype(np.float64)),
                         None if len(i) < 3 else torch.from_numpy(i[2].astype(np.float64)),
                         stride=attr(n, "strides", [1, 1]), groups=attr(n, "group", 1),
                         dilation=attr(n, "dilations", [1, 1]))
            y = t.numpy().astype(np.float32)
        elif op == "Relu":
            y = np.maximum(i[0], 0)
        elif op == "GlobalAveragePool":
            y = i[0].astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float32)
        elif op == "Flatten":
            y = i[0].reshape(i[0].shape[0], -1)
        elif op == "Gemm":
            b = i[1].T if attr(n, "transB", 0) else i[1]
            y = (i[0].astype(np.float64) @ b.astype(np.float64) +
                 (0 if len(i) < 3 else i[2])).astype(np.float32)
        else:
            sys.exit(f"qdq_eval: no {op} (node {n.name})")
        v[n.output[0]] = y
    return v[g.output[0].name]


def output_step(model):
    """The scale of the DequantizeLinear that makes the graph's output."""
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    for n in g.node:
        if n.output[0] == g.output[0].name:
            assert n.op_type == "DequantizeLinear", n.op_type
            return float(inits[n.input[1]])


def sqnr(ref, got):
    return 10 * np.log10(np.sum(ref.astype(np.float64) ** 2) /
                         np.sum((got.astype(np.float64) - ref) ** 2))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("work")
    ap.add_argument("--target", action="append", default=[])
    a = ap.parse_args()
    targets = a.target or ["generic"]
    os.makedirs(a.work, exist_ok=True)
    gen = torch.Generator().manual_seed(1001)  # make_models.py's DS-CNN
    torch.manual_seed(1001)
    net = dscnn()
    randomize_batchnorm(net, gen)
    net.eval()
    float_path = os.path.join(a.work, "dscnn.onnx")
    torch.onnx.export(net, torch.zeros(SHAPE), float_path, input_names=["input"],
                      output_names=["output"], opset_version=13)
    rng = np.random.default_rng(7)
    calib = os.path.join(a.work, "calibration")
    for s in range(32):
        d = os.path.join(calib, f"sample_{s:03d}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(rng.standard_normal(SHAPE).astype(np.float32),
                                            "input").SerializeToString())
    tests = os.path.join(a.work, "tests")
    xs = rng.standard_normal((8,) + SHAPE).astype(np.float32)
    for k, x in enumerate(xs):
        d = os.path.join(tests, f"sample_{k}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, "input").SerializeToString())
    with torch.no_grad():
        want = np.stack([net(torch.from_numpy(x)).numpy() for x in xs])

    convs = [n.name for n in onnx.load(float_path).graph.node if n.op_type == "Conv"]
    kinds = {"int8": ["--quantize", "int8"], "int16x8": ["--quantize", "int16x8"],
             "mixed": ["--quantize", "int8", "--quantize-int16", convs[1]]}
    int16_ops = {"int8": None, "int16x8": "11", "mixed": "2"}
    quality = {}
    for kind, flags in kinds.items():
        out = os.path.join(a.work, kind)
        run([a.onnxc, float_path, "-o", out, "--name", "m", "--emit", "qdq-onnx", "--calibration",
             calib, "--quiet"] + flags)
        qdq_path = os.path.join(out, "m.qdq.onnx")
        qdq = onnx.load(qdq_path)
        widths = {numpy_helper.to_array(t).dtype.name for t in qdq.graph.initializer
                  if t.name.endswith("__zp")}
        domains = {n.domain for n in qdq.graph.node if n.op_type == "QuantizeLinear"}
        print(f"{kind}: activation types {sorted(widths)}, QuantizeLinear domains "
              f"{sorted(d or 'ai.onnx' for d in domains)}")
        expect = {"int8": {"int8"}, "int16x8": {"int16"}, "mixed": {"int8", "int16"}}[kind]
        if widths != expect:
            sys.exit(f"{kind}: activations {widths}, expected {expect}")
        ref = np.stack([qdq_eval(qdq, x) for x in xs])
        step = output_step(qdq)
        for target in targets:
            summary = run([a.onnxc, qdq_path, "-o", os.path.join(out, "c_" + target), "--name",
                           "m", "--target", target])
            line = re.search(r"int8 +(\d+) of (\d+) convolutions[^\n]*", summary)
            print(f"  {target}: {line.group(0) if line else summary}")
            if not line or line.group(1) != line.group(2):
                sys.exit(f"{kind}: not every convolution on integer kernels")
            count = re.search(r"\((\d+) integer ops on int16", line.group(0))
            if (count.group(1) if count else None) != int16_ops[kind]:
                sys.exit(f"{kind}: the summary's int16 count is not {int16_ops[kind]}")
            res = os.path.join(out, "out_" + target)
            run([a.onnxc, "run", qdq_path, "--inputs", tests, "--outputs", res, "--target",
                 target, "--quiet"])
            got = np.stack([load_tensor(os.path.join(res, f"sample_{k}", "output_0.pb"))
                            for k in range(len(xs))])
            steps = np.abs(got.astype(np.float64) - ref) / step
            print(f"  {target}: largest difference from the QDQ semantics "
                  f"{steps.max():.2f} output steps (step {step:.3g})")
            if steps.max() > 1.0 + 1e-6:
                sys.exit(f"{kind} on {target}: {steps.max():.2f} steps from the QDQ semantics")
        quality[kind] = sqnr(want, got)
        print(f"  SQNR against PyTorch's float outputs: {quality[kind]:.1f} dB")
    if quality["int16x8"] < quality["int8"] + 3:
        sys.exit(f"int16x8 ({quality['int16x8']:.1f} dB) is not 3 dB closer to float than "
                 f"int8 ({quality['int8']:.1f} dB)")
    if quality["mixed"] < quality["int8"] - 0.5:
        sys.exit("int8 with an int16 first layer is further from float than int8")
    # --io int16: the same integers through an int16 interface.
    io = os.path.join(a.work, "io16")
    summary = run([a.onnxc, float_path, "-o", io, "--name", "kws", "--quantize", "int16x8",
                   "--calibration", calib, "--io", "int16"])
    header = open(os.path.join(io, "kws.h")).read()
    scales = {k: float(v) for k, v in re.findall(r"#define kws_(\w+)_SCALE ([0-9.e+-]+)f", header)}
    if "int kws_run(const int16_t* input, int16_t* output" not in header or \
            set(scales) != {"input", "output"}:
        sys.exit(f"--io int16: the header does not declare int16 input and output:\n{header}")
    qtests = os.path.join(a.work, "tests_int16")
    for k, x in enumerate(xs):
        d = os.path.join(qtests, f"sample_{k}")
        os.makedirs(d, exist_ok=True)
        q = np.clip(np.rint(x / np.float32(scales["input"])), -32768, 32767).astype(np.int16)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(q, "input").SerializeToString())
    float_io = np.stack([load_tensor(os.path.join(a.work, "int16x8", "out_" + targets[0],
                                                  f"sample_{k}", "output_0.pb"))
                         for k in range(len(xs))])
    for target in targets:
        res = os.path.join(io, "out_" + target)
        run([a.onnxc, "run", float_path, "--quantize", "int16x8", "--calibration", calib,
             "--io", "int16", "--inputs", qtests, "--outputs", res, "--target", target, "--quiet"])
        got = np.stack([load_tensor(os.path.join(res, f"sample_{k}", "output_0.pb"))
                        for k in range(len(xs))])
        if got.dtype != np.int16:
            sys.exit(f"--io int16 on {target}: the output is {got.dtype}")
        steps = np.abs(got.astype(np.float64) * np.float32(scales["output"]) - float_io) / \
            scales["output"]
        print(f"  --io int16 on {target}: {steps.max():.2f} output steps from the float interface")
        if steps.max() > 1e-3:
            sys.exit(f"--io int16 on {target}: the integers differ from the float interface's")
    print("int16 activations: integer kernels matching the QDQ semantics, closer to float")


if __name__ == "__main__":
    main()
