#!/usr/bin/python3
"""Where onnxc's int8 build and ONNX Runtime part on one model: every
quantized activation of the QDQ file that onnxc writes (`--quantize int8
--emit qdq-onnx`, calibrated on the model's test input) is made a graph
output, both run it, and each tensor's elements are counted by their
difference in steps of its own scale, in graph order. The first tensor
with a difference is where the two arithmetics part; the later ones show
how the differences grow.

    cd bench && npm install --ignore-scripts && /usr/bin/python3 quant_trace.py resnet18

Needs a built onnxc (../build) and the e2e models (ctest exports them to
../build/test/models).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from onnx_tensors import load_tensor  # noqa: E402
from quant_parity import ONNXC, quantize_e2e_model  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: quant_trace.py MODEL (a folder name of build/test/models without _op13)")
    with tempfile.TemporaryDirectory() as work:
        qdq, data = quantize_e2e_model(sys.argv[1], work)
        model = onnx.load(qdq)
        g = model.graph
        inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        tensors = [(n.output[0], float(inits[n.input[1]])) for n in g.node
                   if n.op_type == "DequantizeLinear" and n.input[0] not in inits]
        del g.output[:]
        for name, _ in tensors:
            g.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
        traced = os.path.join(work, "traced.onnx")
        onnx.save(model, traced)
        x = load_tensor(os.path.join(data, "input_0.pb")).astype(np.float32)
        x.tofile(os.path.join(work, "x.bin"))
        os.makedirs(os.path.join(work, "ort"))
        subprocess.run(["node", os.path.join(HERE, "ort_run.js"), traced, os.path.join(work, "x.bin"),
                        "x".join(map(str, x.shape)), os.path.join(work, "ort"), "--all"],
                       check=True, capture_output=True, cwd=HERE)
        subprocess.run([ONNXC, "run", traced, "--inputs", data, "--outputs",
                        os.path.join(work, "onnxc"), "--quiet"], check=True)
        print("| tensor | elements | elements by difference in steps (onnxc vs ORT) |")
        print("|---|---:|---|")
        for i, (name, step) in enumerate(tensors):
            ort = np.fromfile(os.path.join(work, "ort", f"{i}.bin"), np.float32)
            got = load_tensor(os.path.join(work, "onnxc", f"output_{i}.pb")).ravel()
            steps = np.round(np.abs(got.astype(np.float64) - ort) / step).astype(int)
            counts = ", ".join(f"{int(v)}: {int(c)}" for v, c in zip(*np.unique(steps, return_counts=True)))
            print(f"| {name} | {got.size} | {counts} |", flush=True)


if __name__ == "__main__":
    main()
