#!/usr/bin/python3
"""`onnxc --quantize int8` on Linear layers of a 3-D input, which PyTorch
exports as MatMul then an Add of the bias (as in a transformer): each
MatMul and its bias Add (and a Relu after it) must become one integer
QMatMul, with no float MatMul or Add left and the MatMul's own output never
rounded to int8, and the int8 build must stay close to PyTorch's float
outputs (cosine similarity and largest error against the output's range).
Then Linear + BatchNorm1d on a 2-D input (Gemm then BatchNormalization,
as the MLPerf Tiny autoencoder): the BatchNormalization must fold into the
Gemm, in the float build and in the int8 QDQ model, and both builds must
match PyTorch.

    check_linear_quantize.py --onnxc ONNXC
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
from onnx_tensors import load_tensor  # noqa: E402


class LinearBn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.bn1 = torch.nn.Linear(32, 24), torch.nn.BatchNorm1d(24)
        self.fc2, self.bn2 = torch.nn.Linear(24, 8), torch.nn.BatchNorm1d(8)
        for bn in (self.bn1, self.bn2):  # statistics as after training
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-0.2, 0.2)

    def forward(self, x):
        return self.bn2(self.fc2(torch.relu(self.bn1(self.fc1(x)))))


def export(model, samples, work, name):
    """The model exported to WORK/NAME.onnx (opset 13) on samples[0], its op
    types, and samples[1:] as a calibration folder."""
    path = os.path.join(work, name + ".onnx")
    torch.onnx.export(model, torch.from_numpy(samples[0]), path, input_names=["x"],
                      output_names=["y"], opset_version=13)
    cal = os.path.join(work, name + "_cal")
    for i, x in enumerate(samples[1:]):
        save_input(os.path.join(cal, f"s{i}"), x)
    return path, [n.op_type for n in onnx.load(path).graph.node], cal


def check_linear_batchnorm(onnxc, work):
    torch.manual_seed(1)
    model = LinearBn().eval()
    rng = np.random.default_rng(1)
    samples = [rng.standard_normal((1, 32)).astype(np.float32) for _ in range(17)]
    path, ops, cal = export(model, samples, work, "linear_bn")
    if ops.count("Gemm") != 2 or ops.count("BatchNormalization") != 2:
        sys.exit(f"the export is not Gemm + BatchNormalization per layer: {ops}")
    data = os.path.join(work, "bn_data")
    save_input(data, samples[0])
    quant = ["--quantize", "int8", "--calibration", cal]
    subprocess.run([onnxc, path, "-o", os.path.join(work, "bn_f"), "--name", "m", "--emit",
                    "mlir", "--target", "generic", "--quiet"], check=True)
    subprocess.run([onnxc, path, "-o", os.path.join(work, "bn_q"), "--name", "m", "--emit",
                    "qdq-onnx", "--quiet", *quant], check=True)
    if "BatchNormalization" in open(os.path.join(work, "bn_f", "m.mlir")).read():
        sys.exit("float build: a BatchNormalization after a Gemm was not folded")
    qdq_ops = [n.op_type for n in onnx.load(os.path.join(work, "bn_q", "m.qdq.onnx")).graph.node]
    if "BatchNormalization" in qdq_ops:
        sys.exit(f"int8 QDQ model: a BatchNormalization after a Gemm was not folded: {qdq_ops}")
    want = model(torch.from_numpy(samples[0])).detach().numpy().astype(np.float64).ravel()
    for name, extra, cos_min, err_max in (("float", [], 0.999999, 1e-5),
                                          ("int8", quant, 0.999, 0.03)):
        out = os.path.join(work, "bn_out_" + name)
        subprocess.run([onnxc, "run", path, "--inputs", data, "--outputs", out, "--target",
                        "generic", "--quiet", *extra], check=True)
        got = load_tensor(os.path.join(out, "output_0.pb")).astype(np.float64).ravel()
        cosine = float(got @ want / (np.linalg.norm(got) * np.linalg.norm(want)))
        worst = float(np.abs(got - want).max() / (want.max() - want.min()))
        print(f"Linear + BatchNorm1d, {name} against PyTorch: cosine {cosine:.7f}, "
              f"largest error {worst:.2e} of the range")
        if cosine < cos_min or worst > err_max:
            sys.exit(f"the {name} build of Linear + BatchNorm1d is too far from PyTorch")


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(24, 48)
        self.fc2 = torch.nn.Linear(48, 16)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def save_input(folder, x):
    os.makedirs(folder, exist_ok=True)
    t = numpy_helper.from_array(x, "x")
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(t.SerializeToString())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = Mlp().eval()
    rng = np.random.default_rng(0)
    samples = [rng.standard_normal((1, 10, 24)).astype(np.float32) for _ in range(9)]
    with tempfile.TemporaryDirectory() as work:
        path, ops, cal = export(model, samples, work, "mlp")
        if ops.count("MatMul") != 2 or ops.count("Add") != 2:
            sys.exit(f"the export is not MatMul + Add per layer: {ops}")
        quant = ["--quantize", "int8", "--calibration", cal, "--target", "generic", "--quiet"]
        subprocess.run([args.onnxc, path, "-o", work, "--name", "m", "--emit", "mlir", *quant],
                       check=True)
        ir = open(os.path.join(work, "m.mlir")).read()
        found = re.findall(r'"onnx\.(\w+)"', ir)
        counts = {op: found.count(op) for op in sorted(set(found)) if op != "Constant"}
        print("compiled ops:", counts)
        if counts.get("QMatMul") != 2 or "MatMul" in counts or "Add" in counts or \
                "Relu" in counts:
            sys.exit("each Linear layer must be one QMatMul (bias and Relu folded in)")
        data, out = os.path.join(work, "data"), os.path.join(work, "out")
        save_input(data, samples[0])
        subprocess.run([args.onnxc, "run", path, "--inputs", data, "--outputs", out, *quant],
                       check=True)
        got = load_tensor(os.path.join(out, "output_0.pb")).astype(np.float64).ravel()
    want = model(torch.from_numpy(samples[0])).detach().numpy().astype(np.float64).ravel()
    cosine = float(got @ want / (np.linalg.norm(got) * np.linalg.norm(want)))
    worst = float(np.abs(got - want).max() / (want.max() - want.min()))
    print(f"int8 against float: cosine {cosine:.6f}, largest error {worst:.4f} of the range")
    if cosine < 0.999 or worst > 0.03:
        sys.exit("the int8 build is too far from the float model")
    print("Linear layers: one QMatMul each, close to float")
    with tempfile.TemporaryDirectory() as work:
        check_linear_batchnorm(args.onnxc, work)


if __name__ == "__main__":
    main()
