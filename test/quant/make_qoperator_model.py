#!/usr/bin/python3
"""Writes a small QOperator model (ONNX Runtime's QOperator format: uint8
activations, QLinearConv and QLinearMatMul with constant weights, and ONNX
Runtime's com.microsoft QLinear* ops between them) and its reference output,
computed here with ONNX's float requantization of each op (round half to
even, saturate; a com.microsoft op is its float op between dequantized
inputs and a quantized output), for check_qdq.py:

    make_qoperator_model.py OUT_DIR

    x (float) -> QuantizeLinear (uint8)
      -> QLinearConv 3x3 (3->8, int8 weights per channel, int32 bias) = c
      -> QLinearAdd(QLinearMul(c, QLinearSigmoid(c)), QLinearLeakyRelu(c))
      -> QLinearConcat with c (16 channels)
      -> QLinearAveragePool 2x2 / 2
      -> QLinearConv 1x1 (16->4, uint8 weights at zero point 128, per tensor) = d
      -> QLinearMul(d, QLinearGlobalAveragePool(d)) (broadcast)
      -> Reshape (1, 64)
      -> QLinearMatMul (64x10, int8 weights per column)
      -> DequantizeLinear -> y (float)
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(4)


def quantize(x, s, z, lo, hi):
    return np.clip(np.round(x / s) + z, lo, hi)  # np.round: half to even


def uint8_params(t):
    lo, hi = min(float(t.min()), 0.0), max(float(t.max()), 0.0)
    s = np.float32((hi - lo) / 255.0)
    return s, np.uint8(np.clip(np.round(-lo / s), 0, 255))


def conv_acc(xq, xz, wq, wz, b, pad):
    x = torch.from_numpy((xq.astype(np.float64) - float(xz)))
    w = torch.from_numpy((wq.astype(np.float64) - wz))
    return F.conv2d(x, w, None if b is None else torch.from_numpy(b.astype(np.float64)),
                    padding=pad).numpy()


def dq(q, s, z):
    return (q.astype(np.float64) - float(z)) * np.float64(s)


def requantized(v, s=None, z=None):
    """v quantized to uint8 with (s, z), or with parameters of its own range."""
    if s is None:
        s, z = uint8_params(v)
    return quantize(v, np.float64(s), z, 0, 255), s, z


def main():
    out = sys.argv[1]
    x = rng.normal(size=(1, 3, 8, 8)).astype(np.float32)
    w1 = (rng.normal(size=(8, 3, 3, 3)) * 0.3).astype(np.float32)
    b1 = (rng.normal(size=8) * 0.1).astype(np.float32)
    w2 = (rng.normal(size=(4, 16, 1, 1)) * 0.3).astype(np.float32)
    w3 = (rng.normal(size=(64, 10)) * 0.1).astype(np.float32)

    # Quantized weights: conv1 int8 per channel, conv2 uint8 at 128, matmul int8 per column.
    w1s = (np.abs(w1).reshape(8, -1).max(1) / 127).astype(np.float32)
    w1q = quantize(w1, w1s[:, None, None, None], 0, -127, 127).astype(np.int8)
    w2s = np.float32(np.abs(w2).max() / 127)
    w2q = quantize(w2, w2s, 128, 0, 255).astype(np.uint8)
    w3s = (np.abs(w3).max(0) / 127).astype(np.float32)
    w3q = quantize(w3, w3s[None, :], 0, -127, 127).astype(np.int8)

    # The reference, ONNX's QOperator arithmetic, op by op; each activation's
    # parameters from the range of its own float values.
    xs, xz = uint8_params(x)
    xq = quantize(x, xs, xz, 0, 255)
    b1q = np.round(b1 / (xs * w1s)).astype(np.int32)
    acc1 = conv_acc(xq, xz, w1q, 0, b1q, 1)
    f1 = acc1 * (np.float64(xs) * w1s[None, :, None, None])
    c, cs, cz = requantized(f1)
    sg, gs, gz = requantized(1 / (1 + np.exp(-dq(c, cs, cz))), np.float32(1 / 256), np.uint8(0))
    m, ms, mz = requantized(dq(c, cs, cz) * dq(sg, gs, gz))
    fc = dq(c, cs, cz)
    lr, ls, lz = requantized(np.where(fc >= 0, fc, fc * np.float64(np.float32(0.2))))
    a, as_, az = requantized(dq(m, ms, mz) + dq(lr, ls, lz))
    cat = np.concatenate([dq(a, as_, az), dq(c, cs, cz)], axis=1)
    k, ks, kz = requantized(cat)
    pooled = dq(k, ks, kz).reshape(1, 16, 4, 2, 4, 2).mean(axis=(3, 5))
    p, ps, pz = requantized(pooled)
    acc2 = conv_acc(p, pz, w2q, 128, None, 0)
    d, ds, dz = requantized(acc2 * (np.float64(ps) * w2s))
    g, gps, gpz = requantized(dq(d, ds, dz).mean(axis=(2, 3), keepdims=True))
    e, es, ez = requantized(dq(d, ds, dz) * dq(g, gps, gpz))
    acc3 = (e.reshape(1, 64) - float(ez)) @ w3q.astype(np.float64)
    q3, s3, z3 = requantized(acc3 * (np.float64(es) * w3s[None, :]))
    y = ((q3 - float(z3)) * s3).astype(np.float32)

    def scalar(name, v, t):
        return helper.make_tensor(name, t, [], [v])

    def params(name, s, z):
        return [scalar(name + "s", s, TensorProto.FLOAT), scalar(name + "z", z, TensorProto.UINT8)]

    inits = [
        *params("x", xs, xz), *params("c", cs, cz), *params("g", gs, gz), *params("m", ms, mz),
        *params("l", ls, lz), *params("a", as_, az), *params("k", ks, kz), *params("p", ps, pz),
        *params("d", ds, dz), *params("gp", gps, gpz), *params("e", es, ez),
        *params("y", s3, z3),
        numpy_helper.from_array(w1q, "w1"), numpy_helper.from_array(w1s, "w1s"),
        numpy_helper.from_array(np.zeros(8, np.int8), "w1z"), numpy_helper.from_array(b1q, "b1"),
        numpy_helper.from_array(w2q, "w2"), scalar("w2s", w2s, TensorProto.FLOAT),
        scalar("w2z", 128, TensorProto.UINT8),
        numpy_helper.from_array(np.array([1, 64], np.int64), "shape"),
        numpy_helper.from_array(w3q, "w3"), numpy_helper.from_array(w3s, "w3s"),
        numpy_helper.from_array(np.zeros(10, np.int8), "w3z"),
    ]
    ms_ = "com.microsoft"
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="quantize_x"),
        helper.make_node("QLinearConv", ["xq", "xs", "xz", "w1", "w1s", "w1z", "cs", "cz", "b1"],
                         ["c"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("QLinearSigmoid", ["c", "cs", "cz", "gs", "gz"], ["sg"], name="sigmoid",
                         domain=ms_),
        helper.make_node("QLinearMul", ["c", "cs", "cz", "sg", "gs", "gz", "ms", "mz"], ["m"],
                         name="swish", domain=ms_),
        helper.make_node("QLinearLeakyRelu", ["c", "cs", "cz", "ls", "lz"], ["lr"],
                         name="leaky", domain=ms_, alpha=0.2),
        helper.make_node("QLinearAdd", ["m", "ms", "mz", "lr", "ls", "lz", "as", "az"], ["a"],
                         name="add", domain=ms_),
        helper.make_node("QLinearConcat", ["ks", "kz", "a", "as", "az", "c", "cs", "cz"], ["k"],
                         name="concat", domain=ms_, axis=1),
        helper.make_node("QLinearAveragePool", ["k", "ks", "kz", "ps", "pz"], ["p"],
                         name="pool", domain=ms_, kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("QLinearConv", ["p", "ps", "pz", "w2", "w2s", "w2z", "ds", "dz"],
                         ["d"], name="conv2"),
        helper.make_node("QLinearGlobalAveragePool", ["d", "ds", "dz", "gps", "gpz"], ["g"],
                         name="squeeze", domain=ms_, channels_last=0),
        helper.make_node("QLinearMul", ["d", "ds", "dz", "g", "gps", "gpz", "es", "ez"], ["e"],
                         name="excite", domain=ms_),
        helper.make_node("Reshape", ["e", "shape"], ["er"], name="flatten"),
        helper.make_node("QLinearMatMul", ["er", "es", "ez", "w3", "w3s", "w3z", "ys", "yz"],
                         ["q3"], name="fc"),
        helper.make_node("DequantizeLinear", ["q3", "ys", "yz"], ["y"], name="dequantize_y"),
    ]
    graph = helper.make_graph(nodes, "qoperator",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid(ms_, 1)])
    onnx.checker.check_model(model)
    data = os.path.join(out, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
    print(f"wrote {out}/model.onnx: QLinearConv x2, QLinearMatMul, com.microsoft QLinear* x8; "
          f"output scale {s3:.6g}")


if __name__ == "__main__":
    main()
