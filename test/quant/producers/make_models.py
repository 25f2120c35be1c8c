#!/usr/bin/python3
"""Writes the bundled Fashion-MNIST CNN quantized the way each tool users
arrive with writes it, and ONNX Runtime's outputs for each, into
test/quant/producers/FAMILY/ (model.onnx, test_data_set_0/input_0.pb and
output_0.pb: the layout `onnxc run` and check_qdq.py read). The files are
committed; run this again only when the set changes. It needs bench/'s
onnxruntime-node (cd bench && npm install --ignore-scripts).

    /usr/bin/python3 test/quant/producers/make_models.py [--only FAMILY ...]

The families (README, "Models quantized by other tools"):

  pytorch_eager_fbgemm   torch.ao.quantization eager mode, fbgemm qconfig
                         (per-channel weights, reduce_range activations),
                         Conv+ReLU fused, Linear and ReLU apart, exported by
                         torch.onnx.export: Q -> Cast(uint8) -> DQ, Constant
                         nodes, bias zero points from ConstantOfShape -> Cast
  pytorch_eager_qnnpack  the same with the qnnpack qconfig (per-tensor weights)
  pytorch_fx             FX graph mode (prepare_fx / convert_fx), fbgemm
  ort_qdq_u8s8           ONNX Runtime's quantize_static, QDQ: uint8
                         activations, int8 weights per channel, the Relus
                         removed into their Conv's/Gemm's output range
  ort_qdq_s8s8_rr        QDQ, int8 activations, int8 weights per tensor with
                         reduce_range (7 bits), Relus kept between Q/DQ pairs
  ort_qdq_u8u8           QDQ with ONNX Runtime's older QUInt8 weights
                         (asymmetric uint8 per tensor): weights minus zero
                         point leave int8, so the layers stay float, named
                         by the summary (the fallback case)
  ort_qoperator          QuantFormat.QOperator: QLinearConv, MaxPool and
                         Flatten on uint8, com.microsoft QGemm
  ort_dynamic            quantize_dynamic: DynamicQuantizeLinear ->
                         ConvInteger / MatMulInteger -> Cast -> Mul -> Add
  tf2onnx_qdq            tf2onnx's form of a quantization-aware TF model:
                         NHWC input, float weights through QuantizeLinear ->
                         DequantizeLinear, Transposes between Q/DQ pairs,
                         Dense as MatMul + Add with a float bias

Where the tool itself is not installable here (ONNX Runtime's Python
quantizer, TensorFlow/tf2onnx), the model is written node by node as that
tool writes it. Debian's torch has no fbgemm engine: the fbgemm qconfig's
parameters are computed as fbgemm would, and the model is converted with the
qnnpack engine (the exported graph is the same).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
FLOAT_MODEL = os.path.join(ROOT, "examples", "fashion-mnist", "fashion_cnn.onnx")
ORT_RUNNER = os.path.join(ROOT, "test", "realworld", "ort_reference.js")
sys.path.insert(0, os.path.dirname(HERE))
from fashion_data import load  # noqa: E402

BATCH = 16           # test images per model
CALIBRATION = 256    # training images for the ranges


def float_weights():
    m = onnx.load(FLOAT_MODEL)
    w = {t.name: numpy_helper.to_array(t).copy() for t in m.graph.initializer}
    convs = [n for n in m.graph.node if n.op_type == "Conv"]
    gemms = [n for n in m.graph.node if n.op_type == "Gemm"]
    return {"conv1": (w[convs[0].input[1]], w[convs[0].input[2]]),
            "conv2": (w[convs[1].input[1]], w[convs[1].input[2]]),
            "fc1": (w[gemms[0].input[1]], w[gemms[0].input[2]]),
            "fc2": (w[gemms[1].input[1]], w[gemms[1].input[2]])}


# --- PyTorch ------------------------------------------------------------------

class TorchCNN(torch.nn.Module):
    """The bundled CNN (BatchNorm folded) with quantization stubs."""

    def __init__(self, weights):
        super().__init__()
        import torch.ao.quantization as tq
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.conv1, self.relu1 = torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU()
        self.pool1 = torch.nn.MaxPool2d(2)
        self.conv2, self.relu2 = torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU()
        self.pool2 = torch.nn.MaxPool2d(2)
        self.flat = torch.nn.Flatten()
        self.fc1, self.relu3 = torch.nn.Linear(1568, 64), torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(64, 10)
        with torch.no_grad():
            for name, (w, b) in weights.items():
                getattr(self, name).weight.copy_(torch.from_numpy(w))
                getattr(self, name).bias.copy_(torch.from_numpy(b))

    def forward(self, x):
        x = self.quant(x)
        x = self.pool1(self.relu1(self.conv1(x)))
        x = self.pool2(self.relu2(self.conv2(x)))
        x = self.relu3(self.fc1(self.flat(x)))
        return self.dequant(self.fc2(x))


def torch_export(net, x, path):
    torch.onnx.export(net, torch.from_numpy(x), path, opset_version=13,
                      input_names=["image"], output_names=["logits"])


def pytorch_eager(qconfig_name):
    """Eager-mode static quantization: fuse Conv+ReLU (torch.onnx cannot
    export a fused Linear+ReLU), observe, convert."""
    import torch.ao.quantization as tq

    def make(path, x, calibration):
        torch.backends.quantized.engine = "qnnpack"
        net = TorchCNN(float_weights()).eval()
        net.qconfig = tq.get_default_qconfig(qconfig_name)
        tq.fuse_modules(net, [["conv1", "relu1"], ["conv2", "relu2"]], inplace=True)
        tq.prepare(net, inplace=True)
        with torch.no_grad():
            net(torch.from_numpy(calibration))
        tq.convert(net, inplace=True)
        torch_export(net, x, path)
    return make


def pytorch_fx(path, x, calibration):
    """FX graph mode with the fbgemm qconfig mapping; the backend config
    without the Linear+ReLU fusion torch.onnx cannot export."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.backend_config import BackendConfig, get_native_backend_config
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.backends.quantized.engine = "qnnpack"
    net = TorchCNN(float_weights()).eval()
    net.quant, net.dequant = torch.nn.Identity(), torch.nn.Identity()
    native = get_native_backend_config()
    configs = [c for p, c in native.configs.items()
               if not ("Linear" in str(p) and "ReLU" in str(p).replace("relu", "ReLU"))]
    backend = BackendConfig("native_without_linear_relu").set_backend_pattern_configs(configs)
    prepared = prepare_fx(net, get_default_qconfig_mapping("fbgemm"),
                          (torch.from_numpy(x[:1]),), backend_config=backend)
    with torch.no_grad():
        prepared(torch.from_numpy(calibration))
    torch_export(convert_fx(prepared, backend_config=backend), x, path)


# --- models written node by node ----------------------------------------------

def ranges(calibration):
    """min/max of the input and of each layer's output (pre- and post-ReLU)
    over the calibration images, in float64."""
    w = {k: (torch.from_numpy(a).double(), torch.from_numpy(b).double())
         for k, (a, b) in float_weights().items()}
    F = torch.nn.functional
    t = {"input": torch.from_numpy(calibration).double()}
    t["conv1"] = F.conv2d(t["input"], *w["conv1"], padding=1)
    t["relu1"] = F.relu(t["conv1"])
    t["pool1"] = F.max_pool2d(t["relu1"], 2)
    t["conv2"] = F.conv2d(t["pool1"], *w["conv2"], padding=1)
    t["relu2"] = F.relu(t["conv2"])
    t["pool2"] = F.max_pool2d(t["relu2"], 2)
    t["flat"] = t["pool2"].flatten(1)
    t["fc1"] = t["flat"] @ w["fc1"][0].t() + w["fc1"][1]
    t["relu3"] = F.relu(t["fc1"])
    t["fc2"] = t["relu3"] @ w["fc2"][0].t() + w["fc2"][1]
    return {k: (float(v.min()), float(v.max())) for k, v in t.items()}


def activation_params(lo, hi, dtype):
    """ONNX Runtime's MinMax parameters: asymmetric, covering 0."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    qmin = 0 if dtype == np.uint8 else -128
    zp = int(np.clip(np.round(qmin - lo / scale), qmin, qmin + 255))
    return scale, dtype(zp)


def weight_params(w, per_channel, reduce_range, axis=0):
    """Symmetric int8 weights (ORT: [-127, 127], reduce_range [-64, 64])."""
    qmax = 64.0 if reduce_range else 127.0
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    amax = np.abs(moved).max(axis=1) if per_channel else np.array([np.abs(w).max()])
    scale = (np.maximum(amax, 1e-12) / qmax).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    s = scale.reshape(shape) if per_channel else scale[0]
    q = np.clip(np.round(w / s), -qmax, qmax).astype(np.int8)
    return q, scale if per_channel else scale.reshape(())


class Graph:
    """Nodes and initializers of a model under construction."""

    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def init(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def node(self, op, inputs, base=None, domain=None, outputs=1, **attrs):
        outs = [self.name(base or op) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name(op + "_node"),
                                           domain=domain, **attrs))
        return outs[0] if outputs == 1 else outs

    def qdq(self, x, scale, zp):
        s, z = self.init("scale", scale), self.init("zero_point", zp)
        return self.node("DequantizeLinear", [self.node("QuantizeLinear", [x, s, z]), s, z])

    def model(self, x_shape, opsets, producer):
        inp = helper.make_tensor_value_info("image", TensorProto.FLOAT, list(x_shape))
        out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, [x_shape[0], 10])
        m = helper.make_model(helper.make_graph(self.nodes, "fashion_cnn", [inp], [out], self.inits),
                              opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                              producer_name=producer)
        onnx.checker.check_model(m)
        return m


def asymmetric_weights(w):
    """ONNX Runtime's QUInt8 weights: asymmetric uint8 per tensor."""
    scale, zp = activation_params(float(w.min()), float(w.max()), np.uint8)
    q = np.clip(np.round(w / scale) + int(zp), 0, 255).astype(np.uint8)
    return q, np.array(scale, np.float32), np.array(zp, np.uint8)


def ort_qdq(act_type, per_channel, reduce_range, keep_relu, weight_type=np.int8):
    """ONNX Runtime's quantize_static, QuantFormat.QDQ."""
    def make(path, x, calibration):
        r = ranges(calibration)
        w = float_weights()
        g = Graph()

        def a(key):
            return activation_params(*r[key], act_type)

        def weighted(op, x_dq, key, in_key, **attrs):
            if weight_type == np.uint8:
                wq, ws, wz = asymmetric_weights(w[key][0])
            else:
                wq, ws = weight_params(w[key][0], per_channel, reduce_range)
                wz = np.zeros(ws.shape, np.int8)
            w_dq = g.node("DequantizeLinear", [g.init(key + "_w", wq), g.init("w_scale", ws),
                                               g.init("w_zp", wz)], axis=0)
            bs = (np.float32(a(in_key)[0]) * ws).astype(np.float32)
            bq = np.round(w[key][1] / bs).astype(np.int32)
            b_dq = g.node("DequantizeLinear", [g.init(key + "_b", bq), g.init("b_scale", bs),
                                               g.init("b_zp", np.zeros(bs.shape, np.int32))],
                          axis=0)
            return g.node(op, [x_dq, w_dq, b_dq], **attrs)

        def relu_stage(y, post):
            # Removed, the output range starting at 0 (its zero point
            # clamps), or kept inside the op's Q/DQ pair.
            return g.qdq(g.node("Relu", [y]) if keep_relu else y, *a(post))

        h = g.qdq("image", *a("input"))
        h = relu_stage(weighted("Conv", h, "conv1", "input", pads=[1, 1, 1, 1]), "relu1")
        h = g.qdq(g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2]), *a("relu1"))
        h = relu_stage(weighted("Conv", h, "conv2", "relu1", pads=[1, 1, 1, 1]), "relu2")
        h = g.qdq(g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2]), *a("relu2"))
        h = g.qdq(g.node("Flatten", [h], axis=1), *a("relu2"))
        h = relu_stage(weighted("Gemm", h, "fc1", "relu2", transB=1), "relu3")
        h = g.qdq(weighted("Gemm", h, "fc2", "relu3", transB=1), *a("fc2"))
        g.nodes.append(helper.make_node("Identity", [h], ["logits"], name="output"))
        onnx.save(g.model(x.shape, [("", 13)], "onnxc test (ONNX Runtime QDQ form)"), path)
    return make


def ort_qoperator(path, x, calibration):
    """ONNX Runtime's quantize_static, QuantFormat.QOperator (uint8
    activations, int8 weights per channel): QLinearConv with the Relu in
    its output range, MaxPool and Flatten on uint8, QGemm for the Gemms."""
    r = ranges(calibration)
    w = float_weights()
    g = Graph()

    def a(key):
        s, z = activation_params(*r[key], np.uint8)
        return g.init("scale", s), g.init("zero_point", z), s

    def weighted(x_q, in_key, key, out_key):
        xs, xz, xsv = a(in_key)
        ys, yz, _ = a(out_key)
        wq, ws = weight_params(w[key][0], True, False)
        bq = np.round(w[key][1] / (np.float32(xsv) * ws)).astype(np.int32)
        ins = [x_q, xs, xz, g.init(key + "_w", wq), g.init("w_scale", ws),
               g.init("w_zp", np.zeros(ws.shape, np.int8))]
        if key.startswith("conv"):
            return g.node("QLinearConv", ins + [ys, yz, g.init(key + "_b", bq)], pads=[1, 1, 1, 1])
        return g.node("QGemm", ins + [g.init(key + "_b", bq), ys, yz], domain="com.microsoft",
                      transB=1)

    s, z, _ = a("input")
    h = g.node("QuantizeLinear", ["image", s, z])
    h = weighted(h, "input", "conv1", "relu1")
    h = g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = weighted(h, "relu1", "conv2", "relu2")
    h = g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("Flatten", [h], axis=1)
    h = weighted(h, "relu2", "fc1", "relu3")
    h = weighted(h, "relu3", "fc2", "fc2")
    s, z, _ = a("fc2")
    g.nodes.append(helper.make_node("DequantizeLinear", [h, s, z], ["logits"], name="output"))
    onnx.save(g.model(x.shape, [("", 13), ("com.microsoft", 1)],
                      "onnxc test (ONNX Runtime QOperator form)"), path)


def ort_dynamic(path, x, calibration):
    """ONNX Runtime's quantize_dynamic (op types Conv and MatMul; the Gemms
    written as MatMul + Add, as exporters of Linear layers do): each input
    quantized at run time by DynamicQuantizeLinear (uint8), int8 weights per
    tensor, ConvInteger / MatMulInteger, the product Cast to float and
    scaled by x_scale * w_scale, then the float bias."""
    w = float_weights()
    g = Graph()

    def integer(op, x_f, key, **attrs):
        xq, xs, xz = g.node("DynamicQuantizeLinear", [x_f], outputs=3)
        weight = w[key][0] if op == "ConvInteger" else w[key][0].T.copy()
        wq, ws = weight_params(weight, False, False)
        acc = g.node(op, [xq, g.init(key + "_w", wq), xz, g.init("w_zp", np.int8(0))], **attrs)
        scaled = g.node("Mul", [g.node("Cast", [acc], to=TensorProto.FLOAT),
                                g.node("Mul", [xs, g.init("w_scale", ws)])])
        bias = w[key][1].reshape((-1, 1, 1)) if op == "ConvInteger" else w[key][1]
        return g.node("Add", [scaled, g.init(key + "_b", bias)])

    h = g.node("Relu", [integer("ConvInteger", "image", "conv1", pads=[1, 1, 1, 1])])
    h = g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("Relu", [integer("ConvInteger", h, "conv2", pads=[1, 1, 1, 1])])
    h = g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("Flatten", [h], axis=1)
    h = g.node("Relu", [integer("MatMulInteger", h, "fc1")])
    h = integer("MatMulInteger", h, "fc2")
    g.nodes.append(helper.make_node("Identity", [h], ["logits"], name="output"))
    onnx.save(g.model(x.shape, [("", 13)], "onnxc test (ONNX Runtime dynamic form)"), path)


def tf2onnx_qdq(path, x, calibration):
    """tf2onnx's conversion of a quantization-aware Keras model (NHWC): the
    input Transposed to NCHW between Q/DQ pairs, float weights through
    QuantizeLinear -> DequantizeLinear (FakeQuant's per-channel symmetric
    int8), float biases, int8 activations, the flatten of NHWC order as
    Transpose + Reshape, Dense as MatMul + Add."""
    r = ranges(calibration)
    w = float_weights()
    g = Graph()

    def a(key):
        return activation_params(*r[key], np.int8)

    def fake_quant_weights(array, axis):
        _, ws = weight_params(array, True, False, axis)
        s, z = g.init("w_scale", ws), g.init("w_zp", np.zeros(ws.shape, np.int8))
        q = g.node("QuantizeLinear", [g.init("w", array), s, z], axis=axis)
        return g.node("DequantizeLinear", [q, s, z], axis=axis)

    def conv(h, key):
        return g.node("Conv", [h, fake_quant_weights(w[key][0], 0), g.init("b", w[key][1])],
                      pads=[1, 1, 1, 1])

    def dense(h, key):
        mm = g.node("MatMul", [h, fake_quant_weights(w[key][0].T.copy(), 1)])
        return g.node("Add", [mm, g.init("b", w[key][1])])

    h = g.qdq("image", *a("input"))
    h = g.qdq(g.node("Transpose", [h], perm=[0, 3, 1, 2]), *a("input"))
    h = g.qdq(g.node("Relu", [conv(h, "conv1")]), *a("relu1"))
    h = g.qdq(g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2]), *a("relu1"))
    h = g.qdq(g.node("Relu", [conv(h, "conv2")]), *a("relu2"))
    h = g.qdq(g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2]), *a("relu2"))
    # Keras flattens NHWC: the model's Dense weights are in that order.
    h = g.qdq(g.node("Transpose", [h], perm=[0, 2, 3, 1]), *a("relu2"))
    h = g.qdq(g.node("Reshape", [h, g.init("shape", np.array([-1, 1568], np.int64))]), *a("relu2"))
    fc1 = w["fc1"][0].reshape(64, 32, 7, 7).transpose(0, 2, 3, 1).reshape(64, 1568)
    w["fc1"] = (np.ascontiguousarray(fc1), w["fc1"][1])
    h = g.qdq(g.node("Relu", [dense(h, "fc1")]), *a("relu3"))
    h = g.qdq(dense(h, "fc2"), *a("fc2"))
    g.nodes.append(helper.make_node("Identity", [h], ["logits"], name="output"))
    nhwc = (x.shape[0], 28, 28, 1)
    onnx.save(g.model(nhwc, [("", 13)], "onnxc test (tf2onnx QDQ form)"), path)


FAMILIES = {
    "pytorch_eager_fbgemm": pytorch_eager("fbgemm"),
    "pytorch_eager_qnnpack": pytorch_eager("qnnpack"),
    "pytorch_fx": pytorch_fx,
    "ort_qdq_u8s8": ort_qdq(np.uint8, per_channel=True, reduce_range=False, keep_relu=False),
    "ort_qdq_s8s8_rr": ort_qdq(np.int8, per_channel=False, reduce_range=True, keep_relu=True),
    "ort_qdq_u8u8": ort_qdq(np.uint8, per_channel=False, reduce_range=False, keep_relu=False,
                            weight_type=np.uint8),
    "ort_qoperator": ort_qoperator,
    "ort_dynamic": ort_dynamic,
    "tf2onnx_qdq": tf2onnx_qdq,
}


def ort_outputs(model, x):
    with tempfile.TemporaryDirectory() as tmp:
        x.tofile(os.path.join(tmp, "x.bin"))
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump({"inputs": [{"name": "image", "type": "float32", "dims": list(x.shape),
                                   "file": os.path.join(tmp, "x.bin")}]}, f)
        subprocess.run(["node", ORT_RUNNER, model, os.path.join(tmp, "spec.json"),
                        os.path.join(tmp, "out")], check=True)
        with open(os.path.join(tmp, "out", "outputs.json")) as f:
            dims = json.load(f)[0]["dims"]
        return np.fromfile(os.path.join(tmp, "out", "output_0.bin"), np.float32).reshape(dims)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=list(FAMILIES))
    args = ap.parse_args()
    torch.manual_seed(0)
    x, labels = load("t10k")
    x, labels = x[:BATCH], labels[:BATCH]
    calibration = load("train")[0][:CALIBRATION]
    for family in args.only:
        out = os.path.join(HERE, family)
        os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
        model = os.path.join(out, "model.onnx")
        inputs = x.transpose(0, 2, 3, 1).copy() if family.startswith("tf2onnx") else x
        FAMILIES[family](model, inputs, calibration)
        ref = ort_outputs(model, inputs)
        with open(os.path.join(out, "test_data_set_0", "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(inputs, "image").SerializeToString())
        with open(os.path.join(out, "test_data_set_0", "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(ref, "logits").SerializeToString())
        print(f"{family}: {os.path.getsize(model)} bytes, ONNX Runtime top-1 "
              f"{np.mean(ref.argmax(1) == labels):.3f} on {BATCH} test images")


if __name__ == "__main__":
    main()
