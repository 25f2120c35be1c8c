#!/usr/bin/python3
"""Writes a small QDQ model that exercises every qs8 op onnxc folds into --
a residual Add, a squeeze-excite style Sigmoid and Mul, a Concat of two
quantizations (a rescale), AveragePool and GlobalAveragePool -- with the
exact QDQ semantics as its reference outputs (as make_qdq_model.py does).

    make_qdq_blocks.py OUT_DIR [--int16 | --uint16]

Graph (every arrow between ops is a QuantizeLinear -> DequantizeLinear pair
of int8, per tensor; weights int8 per channel, biases int32):

    x -> Conv 3x3 (8->8) -> Relu -> Add(x) -> Sigmoid -> Mul(Add) -> AveragePool 2x2
      -> Concat(with AveragePool(Conv 1x1 of x), another scale: rescaled)
      -> GlobalAveragePool -> Flatten (float, after the last DequantizeLinear) -> y

--int16: the activations are int16, symmetric (zero point 0, as TFLite's
16x8 scheme and ONNX Runtime's int16 QDQ), the weights still int8, in
opset 21 (whose QuantizeLinear takes int16). The Sigmoid has no integer
form there (a 16-bit lookup table would take 128 KB): it runs in float
between its DequantizeLinear and QuantizeLinear.

--uint16: uint16 activations, asymmetric (the A16W8 form Qualcomm's QNN
tools and ONNX Runtime's quantizer write for NPUs), int8 weights.
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper

rng = np.random.default_rng(1)
C, H = 8, 6
INT16 = "--int16" in sys.argv
UINT16 = "--uint16" in sys.argv
LO, HI = (-32768, 32767) if INT16 else (0, 65535) if UINT16 else (-128, 127)
ZP_TYPE = np.int16 if INT16 else np.uint16 if UINT16 else np.int8


def fq(x, s, z):
    """Q then DQ: round half to even, saturate to the activation type."""
    q = np.clip(np.round(x / s) + z, LO, HI)  # np.round: half to even
    return (q - z) * s


def params(t):
    if INT16:  # symmetric
        return float(np.float32(max(float(np.abs(t).max()), 1e-8) / 32767.0)), 0
    lo, hi = min(float(t.min()), 0.0), max(float(t.max()), 0.0)
    if UINT16:
        s = np.float32((hi - lo) / 65535.0)
        return float(s), int(np.clip(np.round(-lo / s), 0, 65535))
    s = np.float32((hi - lo) / 255.0)
    return float(s), int(np.clip(np.round(-128 - lo / s), -128, 127))


def conv(x, w, b, pad):
    return F.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                    padding=pad).numpy()


def forward(x, w3, b3, w1, b1, q=None):
    """The float graph; with q (name -> params) every named tensor is
    fake-quantized where it is produced."""
    f = (lambda name, t: fq(t, *q[name])) if q else (lambda name, t: t)
    t = {}
    t["x"] = f("x", x)
    t["relu"] = f("relu", np.maximum(conv(t["x"], w3, b3, 1), 0))
    t["add"] = f("add", t["relu"] + t["x"])
    t["sig"] = f("sig", 1 / (1 + np.exp(-t["add"])))
    t["mul"] = f("mul", t["sig"] * t["add"])
    t["pool"] = f("pool", F.avg_pool2d(torch.from_numpy(t["mul"]), 2).numpy())
    t["c1"] = f("c1", conv(t["x"], w1, b1, 0))
    t["side"] = f("side", F.avg_pool2d(torch.from_numpy(t["c1"]), 2).numpy())
    t["cat"] = f("cat", np.concatenate([t["pool"], t["side"]], axis=1))
    t["gap"] = f("gap", t["cat"].mean(axis=(2, 3), keepdims=True))
    t["y"] = t["gap"].reshape(t["gap"].shape[0], -1)
    return t


def main():
    out = sys.argv[1]
    w3 = rng.normal(0, 0.3, (C, C, 3, 3))
    b3 = rng.normal(0, 0.1, C)
    w1 = rng.normal(0, 0.5, (C, C, 1, 1))
    b1 = rng.normal(0, 0.1, C)
    calib = rng.normal(0, 1, (32, C, H, H))
    t = forward(calib, w3, b3, w1, b1)
    q = {k: params(v) for k, v in t.items() if k != "y"}
    # Concat's output takes its first input's parameters (the second is
    # rescaled), as ONNX Runtime's quantizer does for element-moving ops.
    q["cat"] = q["pool"]

    def weights(w):
        s = (np.abs(w.reshape(len(w), -1)).max(axis=1) / 127).astype(np.float32)
        wq = np.clip(np.round(w / s.reshape(-1, 1, 1, 1)), -127, 127)
        return wq.astype(np.int8), s, wq * s.reshape(-1, 1, 1, 1)

    w3q, w3s, w3r = weights(w3)
    w1q, w1s, w1r = weights(w1)
    b3s = (np.float32(q["x"][0]) * w3s).astype(np.float32)
    b1s = (np.float32(q["x"][0]) * w1s).astype(np.float32)
    b3q, b1q = np.round(b3 / b3s).astype(np.int32), np.round(b1 / b1s).astype(np.int32)

    nodes, inits = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(np.asarray(a), name))
        return name

    def qdq(name, src):
        s, z = q[name]
        sn, zn = const(name + "_s", np.float32(s)), const(name + "_z", ZP_TYPE(z))
        nodes.append(helper.make_node("QuantizeLinear", [src, sn, zn], [name + "_q"]))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", sn, zn], [name + "_dq"]))
        return name + "_dq"

    def dq_weights(name, wq, s, bq, bs):
        nodes.append(helper.make_node("DequantizeLinear", [const(name + "_wq", wq),
                     const(name + "_ws", s), const(name + "_wz", np.zeros(len(s), np.int8))],
                     [name + "_w"], axis=0))
        nodes.append(helper.make_node("DequantizeLinear", [const(name + "_bq", bq),
                     const(name + "_bs", bs), const(name + "_bz", np.zeros(len(bs), np.int32))],
                     [name + "_b"], axis=0))
        return name + "_w", name + "_b"

    x = qdq("x", "input")
    w, b = dq_weights("c3", w3q, w3s, b3q, b3s)
    nodes.append(helper.make_node("Conv", [x, w, b], ["c3_out"], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Relu", ["c3_out"], ["relu_out"]))
    relu = qdq("relu", "relu_out")
    nodes.append(helper.make_node("Add", [relu, x], ["add_out"]))
    add = qdq("add", "add_out")
    nodes.append(helper.make_node("Sigmoid", [add], ["sig_out"]))
    sig = qdq("sig", "sig_out")
    nodes.append(helper.make_node("Mul", [sig, add], ["mul_out"]))
    mul = qdq("mul", "mul_out")
    nodes.append(helper.make_node("AveragePool", [mul], ["pool_out"], kernel_shape=[2, 2],
                                  strides=[2, 2]))
    pool = qdq("pool", "pool_out")
    w, b = dq_weights("c1", w1q, w1s, b1q, b1s)
    nodes.append(helper.make_node("Conv", [x, w, b], ["c1_out"]))
    c1 = qdq("c1", "c1_out")
    nodes.append(helper.make_node("AveragePool", [c1], ["side_out"], kernel_shape=[2, 2],
                                  strides=[2, 2]))
    side = qdq("side", "side_out")
    nodes.append(helper.make_node("Concat", [pool, side], ["cat_out"], axis=1))
    cat = qdq("cat", "cat_out")
    nodes.append(helper.make_node("GlobalAveragePool", [cat], ["gap_out"]))
    gap = qdq("gap", "gap_out")
    nodes.append(helper.make_node("Flatten", [gap], ["y"]))
    graph = helper.make_graph(
        nodes, "qdq_blocks",
        [helper.make_tensor_value_info("input", onnx.TensorProto.FLOAT, [2, C, H, H])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 2 * C])], inits)
    wide = INT16 or UINT16
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21 if wide else 13)],
                              producer_name="onnxc test/quant/make_qdq_blocks.py")
    if not wide:  # (Debian's onnx predates opset 21)
        onnx.checker.check_model(model)
    os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))

    xin = rng.normal(0, 1, (2, C, H, H)).astype(np.float32)
    b3r, b1r = b3q * b3s.astype(np.float64), b1q * b1s.astype(np.float64)
    ref = forward(xin.astype(np.float64), w3r, b3r, w1r, b1r, q)["y"].astype(np.float32)
    with open(os.path.join(out, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(xin, "input").SerializeToString())
    with open(os.path.join(out, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ref, "y").SerializeToString())
    print(f"wrote {out}/model.onnx ({len(nodes)} nodes) and its reference")


if __name__ == "__main__":
    main()
