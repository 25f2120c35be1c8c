#!/usr/bin/python3
"""Writes an ONNX Runtime-style QDQ model of the bundled Fashion-MNIST CNN
and its reference outputs, the way a quantization tool outside onnxc would.

    make_qdq_model.py OUT_DIR [--batch 16] [--calibration 256]

The float model (examples/fashion-mnist/fashion_cnn.onnx, trained) is
calibrated on training images (per-tensor min/max of every activation), and
rewritten as ONNX Runtime's static quantizer writes QDQ models: int8
activations (asymmetric, per tensor) with QuantizeLinear -> DequantizeLinear
pairs on every activation, int8 weights symmetric per output channel, int32
biases at x_scale * w_scale, Relu inside the Q/DQ of the op it follows, and
MaxPool/Flatten keeping their input's parameters. The graph takes and returns
float.

OUT_DIR/model.onnx and OUT_DIR/test_data_set_0 (input_0.pb: a batch of test
images; output_0.pb: the reference) are written. The reference runs the QDQ
graph's semantics exactly: every QuantizeLinear rounds half to even and
saturates, and the float ops between them run in float64 on the dequantized
values (what a runtime computing the integer ops exactly, then requantizing,
gives). ONNX Runtime's own outputs can be compared the same way (bench/).
"""
import argparse
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "examples", "fashion-mnist", "fashion_cnn.onnx")
sys.path.insert(0, HERE)
from fashion_data import load  # noqa: E402


def images(kind, count):
    return load(kind)[0][:count]


def run(graph, inits, x, quant=None):
    """Evaluates the float model's graph in float64 with torch; `quant`
    (tensor name -> (scale, zero point)) fake-quantizes those tensors
    (round half to even, saturate to int8) where they are produced, and
    the weights are fake-quantized per channel. Returns every tensor."""
    env = {graph.input[0].name: torch.from_numpy(x.copy()).double()}
    if quant and graph.input[0].name in quant:
        env[graph.input[0].name] = fake_quant(env[graph.input[0].name], *quant[graph.input[0].name])
    w = {k: torch.from_numpy(np.array(v)).double() for k, v in inits.items()}
    for n in graph.node:
        a = {at.name: helper.get_attribute_value(at) for at in n.attribute}
        ins = [env[i] if i in env else w[i] for i in n.input]
        if n.op_type == "Conv":
            y = F.conv2d(ins[0], ins[1], ins[2] if len(ins) > 2 else None,
                         stride=tuple(a.get("strides", [1, 1])),
                         padding=tuple(a.get("pads", [0, 0, 0, 0])[:2]))
        elif n.op_type == "Relu":
            y = torch.relu(ins[0])
        elif n.op_type == "MaxPool":
            y = F.max_pool2d(ins[0], tuple(a["kernel_shape"]), tuple(a.get("strides", [1, 1])))
        elif n.op_type == "Flatten":
            y = torch.flatten(ins[0], a.get("axis", 1))
        elif n.op_type == "Gemm":
            b = ins[1].t() if a.get("transB", 0) else ins[1]
            y = ins[0] @ b + ins[2]
        else:
            sys.exit(f"make_qdq_model: no evaluator for {n.op_type}")
        out = n.output[0]
        if quant and out in quant:
            y = fake_quant(y, *quant[out])
        env[out] = y
    return env


def fake_quant(x, scale, zp):
    q = torch.clamp(torch.round(x / scale) + zp, -128, 127)  # torch.round: half to even
    return (q - zp) * scale


def activation_params(lo, hi):
    """Asymmetric int8 parameters covering [lo, hi] and 0 (ORT's MinMax)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    zp = int(np.clip(np.round(-128 - lo / scale), -128, 127))
    return float(scale), zp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--calibration", type=int, default=256)
    args = ap.parse_args()
    model = onnx.load(MODEL)
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}

    # Calibration: min/max of the input and of every node's output.
    env = run(g, inits, images("train", args.calibration))
    names = [g.input[0].name] + [n.output[0] for n in g.node]
    ranges = {k: (float(env[k].min()), float(env[k].max())) for k in names}
    # Relu's input and MaxPool/Flatten's outputs take the parameters of the
    # tensor they are read as (Relu's output, the pool's input).
    producer = {n.output[0]: n for n in g.node}
    params = {}
    for k in names:
        params[k] = activation_params(*ranges[k])
    for n in g.node:
        if n.op_type in ("MaxPool", "Flatten"):
            params[n.output[0]] = params[n.input[0]]
    quantized = {k for k in names
                 if not (k in producer and any(m.op_type == "Relu" and m.input[0] == k
                                               for m in g.node))}

    nodes, new_inits = [], []

    def const(name, array):
        new_inits.append(numpy_helper.from_array(array, name))
        return name

    def qdq(tensor, key=None):
        """tensor -> Q -> DQ with `key`'s parameters; returns the dequantized name."""
        s, z = params[key or tensor]
        sn, zn = const(tensor + "_scale", np.array(s, np.float32)), \
            const(tensor + "_zp", np.array(z, np.int8))
        nodes.append(helper.make_node("QuantizeLinear", [tensor, sn, zn], [tensor + "_q"],
                                      name=tensor + "_Q"))
        nodes.append(helper.make_node("DequantizeLinear", [tensor + "_q", sn, zn],
                                      [tensor + "_dq"], name=tensor + "_DQ"))
        return tensor + "_dq"

    read = {g.input[0].name: qdq(g.input[0].name)}
    weight_scales = {}
    for n in g.node:
        ins = list(n.input)
        ins[0] = read[ins[0]]
        if n.op_type in ("Conv", "Gemm"):
            wname, bname = n.input[1], n.input[2]
            w = inits[wname]
            axis = 0
            ws = np.abs(w.reshape(w.shape[0], -1)).max(axis=1) / 127.0
            ws = np.maximum(ws, 1e-12).astype(np.float32)
            wq = np.clip(np.round(w / ws.reshape((-1,) + (1,) * (w.ndim - 1))), -127, 127)
            weight_scales[wname] = ws
            nodes.append(helper.make_node(
                "DequantizeLinear", [const(wname + "_q", wq.astype(np.int8)),
                                     const(wname + "_scale", ws),
                                     const(wname + "_zp", np.zeros(len(ws), np.int8))],
                [wname + "_dq"], name=wname + "_DQ", axis=axis))
            xs = params[n.input[0]][0]
            bs = (np.float32(xs) * ws).astype(np.float32)
            bq = np.round(inits[bname] / bs).astype(np.int32)
            nodes.append(helper.make_node(
                "DequantizeLinear", [const(bname + "_q", bq), const(bname + "_scale", bs),
                                     const(bname + "_zp", np.zeros(len(bs), np.int32))],
                [bname + "_dq"], name=bname + "_DQ", axis=0))
            ins[1], ins[2] = wname + "_dq", bname + "_dq"
        out = n.output[0]
        # The float model's output name is the QDQ model's (after its DQ).
        emitted = out + "_float" if out == g.output[0].name else out
        nodes.append(helper.make_node(n.op_type, ins, [emitted], name=n.name, **{
            a.name: helper.get_attribute_value(a) for a in n.attribute}))
        read[out] = qdq(emitted, out) if out in quantized else emitted
    final = g.output[0].name
    nodes.append(helper.make_node("Identity", [read[final]], [final], name="output"))

    x = images("t10k", args.batch)
    inp = helper.make_tensor_value_info(g.input[0].name, onnx.TensorProto.FLOAT, list(x.shape))
    out = helper.make_tensor_value_info(final, onnx.TensorProto.FLOAT, [args.batch, 10])
    qmodel = helper.make_model(helper.make_graph(nodes, "fashion_cnn_qdq", [inp], [out],
                                                 new_inits),
                               opset_imports=[helper.make_opsetid("", 13)],
                               producer_name="onnxc test/quant/make_qdq_model.py")
    onnx.checker.check_model(qmodel)
    os.makedirs(os.path.join(args.out, "test_data_set_0"), exist_ok=True)
    onnx.save(qmodel, os.path.join(args.out, "model.onnx"))

    # The reference: the QDQ graph's semantics in float64 (weights and biases
    # fake-quantized as the graph stores them).
    qinits = dict(inits)
    for n in g.node:
        if n.op_type in ("Conv", "Gemm"):
            w, ws = inits[n.input[1]], weight_scales[n.input[1]]
            shape = (-1,) + (1,) * (w.ndim - 1)
            qinits[n.input[1]] = (np.clip(np.round(w / ws.reshape(shape)), -127, 127)
                                  * ws.reshape(shape))
            bs = (np.float32(params[n.input[0]][0]) * ws).astype(np.float32)
            qinits[n.input[2]] = np.round(inits[n.input[2]] / bs) * bs
    quant = {k: params[k] for k in quantized}
    ref = run(g, qinits, x, quant)[final].numpy().astype(np.float32)
    with open(os.path.join(args.out, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, g.input[0].name).SerializeToString())
    with open(os.path.join(args.out, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ref, final).SerializeToString())
    s, _ = params[final]
    print(f"wrote {args.out}/model.onnx ({len(nodes)} nodes) and its reference; "
          f"output scale {s:.6g}")


if __name__ == "__main__":
    main()
