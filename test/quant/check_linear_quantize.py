#!/usr/bin/python3
"""`onnxc --quantize int8` on Linear layers of a 3-D input, which PyTorch
exports as MatMul then an Add of the bias (as in a transformer): each
MatMul and its bias Add (and a Relu after it) must become one integer
QMatMul, with no float MatMul or Add left and the MatMul's own output never
rounded to int8, and the int8 build must stay close to PyTorch's float
outputs (cosine similarity and largest error against the output's range).

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
        path = os.path.join(work, "mlp.onnx")
        torch.onnx.export(model, torch.from_numpy(samples[0]), path, input_names=["x"],
                          output_names=["y"], opset_version=13)
        ops = [n.op_type for n in onnx.load(path).graph.node]
        if ops.count("MatMul") != 2 or ops.count("Add") != 2:
            sys.exit(f"the export is not MatMul + Add per layer: {ops}")
        cal = os.path.join(work, "cal")
        for i, x in enumerate(samples[1:]):
            save_input(os.path.join(cal, f"s{i}"), x)
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


if __name__ == "__main__":
    main()
