#!/usr/bin/python3
"""int8 parity with ONNX Runtime: for each model of the e2e set, onnxc
quantizes it (`--quantize int8 --emit qdq-onnx`, calibrated on the model's
own test input), ONNX Runtime 1.30 runs that QDQ file (ort_run.js) and onnxc
runs its own int8 build of it; the outputs are compared in steps of the
output's quantization (the DequantizeLinear scale that makes it).

    cd bench && npm install --ignore-scripts && /usr/bin/python3 quant_parity.py [models...]

Needs a built onnxc (../build) and the e2e models (ctest exports them to
../build/test/models). Writes results/quant-parity.md.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
sys.path.insert(0, os.path.join(ROOT, "test", "quant"))
from onnx_tensors import load_tensor  # noqa: E402
from check_qdq import output_scale  # noqa: E402

ONNXC = os.path.join(ROOT, "build", "compiler", "tools", "onnxc")
MODELS = ["cifar_cnn", "squeezenet1_1", "mobilenet_v2", "resnet18", "efficientnet_b0",
          "shufflenet_v2", "transformer_encoder"]


def quantize_e2e_model(name, work):
    """onnxc's QDQ form of e2e model `name` (MinMax, calibrated on its test
    input), written in `work`: (its path, the model's test data folder)."""
    d = os.path.join(ROOT, "build", "test", "models", f"{name}_op13")
    data = os.path.join(d, "test_data_set_0")
    cal = os.path.join(work, "cal", "s0")
    os.makedirs(cal)
    subprocess.run(["cp", os.path.join(data, "input_0.pb"), cal], check=True)
    subprocess.run([ONNXC, os.path.join(d, "model.onnx"), "-o", work, "--name", "q",
                    "--quantize", "int8", "--calibration", os.path.dirname(cal),
                    "--emit", "qdq-onnx", "--quiet"], check=True)
    return os.path.join(work, "q.qdq.onnx"), data


def main():
    models = sys.argv[1:] or MODELS
    rows = []
    for name in models:
        with tempfile.TemporaryDirectory() as work:
            qdq, data = quantize_e2e_model(name, work)
            x = load_tensor(os.path.join(data, "input_0.pb")).astype(np.float32)
            x.tofile(os.path.join(work, "x.bin"))
            subprocess.run(["node", os.path.join(HERE, "ort_run.js"), qdq,
                            os.path.join(work, "x.bin"), "x".join(map(str, x.shape)),
                            os.path.join(work, "ort.bin")], check=True, capture_output=True,
                           cwd=HERE)
            ort = np.fromfile(os.path.join(work, "ort.bin"), np.float32)
            subprocess.run([ONNXC, "run", qdq, "--inputs", data, "--outputs",
                            os.path.join(work, "out"), "--quiet"], check=True)
            got = load_tensor(os.path.join(work, "out", "output_0.pb")).ravel()
            step = output_scale(onnx.load(qdq))
        ref = load_tensor(os.path.join(data, "output_0.pb")).ravel()
        steps = np.round(np.abs(got.astype(np.float64) - ort) / step).astype(int)
        counts = {int(v): int(c) for v, c in zip(*np.unique(steps, return_counts=True))}
        rel = float(np.abs(got - ref).max() / np.abs(ref).max())
        rows.append((name, got.size, counts, rel))
        print(name, got.size, counts, f"{rel:.3g}", flush=True)
    lines = ["# int8 parity: onnxc vs ONNX Runtime on the same QDQ model", "",
             "`onnxc --quantize int8 --emit qdq-onnx` (MinMax, calibrated on the model's test "
             "input), run by ONNX Runtime 1.30 (onnxruntime-node) and by onnxc's int8 build. "
             "Command: `cd bench && /usr/bin/python3 quant_parity.py`.", "",
             "| model | outputs | outputs by difference in output steps (onnxc vs ORT) | "
             "int8 vs float (PyTorch), max relative error |", "|---|---|---|---|"]
    for name, n, counts, rel in rows:
        diff = ", ".join(f"{k} step{'s' if k != 1 else ''}: {v}" for k, v in sorted(counts.items()))
        lines.append(f"| {name} | {n} | {diff} | {rel:.3g} |")
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "quant-parity.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
