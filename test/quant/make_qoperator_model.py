#!/usr/bin/python3
"""Writes a small QOperator model (ONNX Runtime's QOperator format: uint8
activations, QLinearConv and QLinearMatMul with constant weights) and its
reference output, computed here with ONNX's float requantization of each op
(round half to even, saturate), for check_qdq.py:

    make_qoperator_model.py OUT_DIR

    x (float) -> QuantizeLinear (uint8)
      -> QLinearConv 3x3 (3->8, int8 weights per channel, int32 bias)
      -> QLinearConv 1x1 (8->4, uint8 weights at zero point 128, per tensor)
      -> Reshape (1, 256)
      -> QLinearMatMul (256x10, int8 weights per column)
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


def main():
    out = sys.argv[1]
    x = rng.normal(size=(1, 3, 8, 8)).astype(np.float32)
    w1 = (rng.normal(size=(8, 3, 3, 3)) * 0.3).astype(np.float32)
    b1 = (rng.normal(size=8) * 0.1).astype(np.float32)
    w2 = (rng.normal(size=(4, 8, 1, 1)) * 0.3).astype(np.float32)
    w3 = (rng.normal(size=(256, 10)) * 0.1).astype(np.float32)

    # Quantized weights: conv1 int8 per channel, conv2 uint8 at 128, matmul int8 per column.
    w1s = (np.abs(w1).reshape(8, -1).max(1) / 127).astype(np.float32)
    w1q = quantize(w1, w1s[:, None, None, None], 0, -127, 127).astype(np.int8)
    w2s = np.float32(np.abs(w2).max() / 127)
    w2q = quantize(w2, w2s, 128, 0, 255).astype(np.uint8)
    w3s = (np.abs(w3).max(0) / 127).astype(np.float32)
    w3q = quantize(w3, w3s[None, :], 0, -127, 127).astype(np.int8)

    # Activation parameters from the float model's ranges.
    xs, xz = uint8_params(x)
    f1 = F.conv2d(torch.from_numpy(x), torch.from_numpy(w1), torch.from_numpy(b1), padding=1).numpy()
    s1, z1 = uint8_params(f1)
    f2 = F.conv2d(torch.from_numpy(f1), torch.from_numpy(w2)).numpy()
    s2, z2 = uint8_params(f2)
    f3 = f2.reshape(1, 256) @ w3
    s3, z3 = uint8_params(f3)
    b1q = np.round(b1 / (xs * w1s)).astype(np.int32)

    # The reference: ONNX's QOperator arithmetic.
    xq = quantize(x, xs, xz, 0, 255)
    acc1 = conv_acc(xq, xz, w1q, 0, b1q, 1)
    q1 = quantize(acc1 * (np.float64(xs) * w1s[None, :, None, None] / s1), 1, z1, 0, 255)
    acc2 = conv_acc(q1, z1, w2q, 128, None, 0)
    q2 = quantize(acc2 * (np.float64(s1) * w2s / s2), 1, z2, 0, 255)
    acc3 = (q2.reshape(1, 256) - float(z2)) @ w3q.astype(np.float64)
    q3 = quantize(acc3 * (np.float64(s2) * w3s[None, :] / s3), 1, z3, 0, 255)
    y = ((q3 - float(z3)) * s3).astype(np.float32)

    def scalar(name, v, t):
        return helper.make_tensor(name, t, [], [v])

    inits = [
        scalar("xs", xs, TensorProto.FLOAT), scalar("xz", xz, TensorProto.UINT8),
        numpy_helper.from_array(w1q, "w1"), numpy_helper.from_array(w1s, "w1s"),
        numpy_helper.from_array(np.zeros(8, np.int8), "w1z"), numpy_helper.from_array(b1q, "b1"),
        scalar("s1", s1, TensorProto.FLOAT), scalar("z1", z1, TensorProto.UINT8),
        numpy_helper.from_array(w2q, "w2"), scalar("w2s", w2s, TensorProto.FLOAT),
        scalar("w2z", 128, TensorProto.UINT8),
        scalar("s2", s2, TensorProto.FLOAT), scalar("z2", z2, TensorProto.UINT8),
        numpy_helper.from_array(np.array([1, 256], np.int64), "shape"),
        numpy_helper.from_array(w3q, "w3"), numpy_helper.from_array(w3s, "w3s"),
        numpy_helper.from_array(np.zeros(10, np.int8), "w3z"),
        scalar("s3", s3, TensorProto.FLOAT), scalar("z3", z3, TensorProto.UINT8),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="quantize_x"),
        helper.make_node("QLinearConv", ["xq", "xs", "xz", "w1", "w1s", "w1z", "s1", "z1", "b1"],
                         ["q1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("QLinearConv", ["q1", "s1", "z1", "w2", "w2s", "w2z", "s2", "z2"],
                         ["q2"], name="conv2"),
        helper.make_node("Reshape", ["q2", "shape"], ["q2r"], name="flatten"),
        helper.make_node("QLinearMatMul", ["q2r", "s2", "z2", "w3", "w3s", "w3z", "s3", "z3"],
                         ["q3"], name="fc"),
        helper.make_node("DequantizeLinear", ["q3", "s3", "z3"], ["y"], name="dequantize_y"),
    ]
    graph = helper.make_graph(nodes, "qoperator",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    data = os.path.join(out, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
    print(f"wrote {out}/model.onnx: QLinearConv x2, QLinearMatMul; output scale {s3:.6g}")


if __name__ == "__main__":
    main()
