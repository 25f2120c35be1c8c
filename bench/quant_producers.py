#!/usr/bin/python3
"""Models quantized by other tools, through onnxc on every target, against
ONNX Runtime: writes results/quant-producers.md.

    cd bench && npm install --ignore-scripts && /usr/bin/python3 quant_producers.py

Three tables:
- family x target: the float convolutions and matrix products left (goal 0),
  the compile summary's integer count, and the largest output difference
  from ONNX Runtime's outputs in output steps (test/quant/producers/*:
  the models and ONNX Runtime's outputs on 16 test images; `onnxc run
  --target T`, under QEMU for aarch64 and Cortex-M);
- x86 latency of each model (batch 16, one thread) built by onnxc for the
  widest x86 target this CPU runs, against ONNX Runtime running the same
  file (the peers alternate for --rounds rounds, medians);
- Cortex-M4 instructions per inference (batch 1, under QEMU) of the CNN
  quantized by PyTorch (eager, fbgemm qconfig) against the same CNN
  quantized by onnxc itself (--quantize int8, 100 calibration images).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PRODUCERS = os.path.join(ROOT, "test", "quant", "producers")
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
sys.path.insert(0, os.path.join(ROOT, "test", "quant"))
sys.path.insert(0, PRODUCERS)
sys.path.insert(0, HERE)
from onnx_tensors import load_tensor  # noqa: E402
from check_qdq import output_scale  # noqa: E402
import run_bench  # noqa: E402

TARGETS = ["generic", "x86-64", "x86-64-vnni", "aarch64", "aarch64-dotprod", "aarch64-i8mm",
           "cortex-m4", "cortex-m33", "cortex-m55"]
# Float convolutions and matrix products as the planned IR has them (onnx
# ops, and the SIMD targets' blocked convolution).
FLOAT_MATRIX = ("Conv", "Gemm", "MatMul", "FusedConv", "FusedGemm", "ConvTranspose",
                "QLinearConv", "QLinearMatMul", "BlockedConv")


def families():
    return sorted(d for d in os.listdir(PRODUCERS)
                  if os.path.exists(os.path.join(PRODUCERS, d, "model.onnx")))


def accuracy_row(onnxc, family, target, work):
    """(float matrix ops, 'N of M', max steps or max abs difference)."""
    import onnx
    model = os.path.join(PRODUCERS, family, "model.onnx")
    data = os.path.join(PRODUCERS, family, "test_data_set_0")
    out = subprocess.run([onnxc, model, "-o", work, "--name", "m", "--emit", "mlir",
                          "--target", target], check=True, capture_output=True, text=True).stdout
    ops = re.findall(r'"(?:onnx|simd)\.(\w+)"', open(os.path.join(work, "m.mlir")).read())
    floats = sum(ops.count(op) for op in FLOAT_MATRIX)
    line = re.search(r"int8 +(\d+ of \d+)", out)
    run = subprocess.run([onnxc, "run", model, "--inputs", data, "--outputs",
                          os.path.join(work, "out"), "--target", target, "--quiet"],
                         capture_output=True, text=True)
    if run.returncode != 0:  # a batch of 16 can outgrow a board's RAM
        print(run.stderr, file=sys.stderr)
        return floats, line.group(1) if line else "-", \
            "does not fit the board" if "does not fit" in run.stderr else "failed"
    got = load_tensor(os.path.join(work, "out", "output_0.pb")).astype(np.float64)
    ref = load_tensor(os.path.join(data, "output_0.pb"))
    step = output_scale(onnx.load(model))
    diff = np.abs(got - ref).max()
    err = f"{int(np.round(diff / step))}" if step else f"{diff:.2g} (float output)"
    return floats, line.group(1) if line else "-", err


def cortex_m4_instructions(onnxc, work):
    """Instructions per inference on Cortex-M4: PyTorch's quantization of the
    CNN against onnxc's own."""
    import make_models
    from fashion_data import load
    x = load("t10k")[0][:1]
    train = load("train")[0]
    data = os.path.join(work, "input")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "image").SerializeToString())
    cal = os.path.join(work, "calibration")
    for i in range(100):
        os.makedirs(os.path.join(cal, f"s{i}"), exist_ok=True)
        with open(os.path.join(cal, f"s{i}", "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(train[i:i + 1], "image").SerializeToString())
    torch_model = os.path.join(work, "pytorch_eager_fbgemm.onnx")
    make_models.FAMILIES["pytorch_eager_fbgemm"](torch_model, x, train[:256])
    own = os.path.join(ROOT, "examples", "fashion-mnist", "fashion_cnn.onnx")

    def count(model, *extra):
        out = subprocess.run([onnxc, "run", model, "--inputs", data, "--outputs",
                              os.path.join(work, "out"), "--target", "cortex-m4",
                              "--count-instructions", *extra],
                             check=True, capture_output=True, text=True)
        return int(re.search(r"instructions per inference: (\d+)", out.stdout + out.stderr)
                   .group(1))
    return count(torch_model), count(own, "--quantize", "int8", "--calibration", cal)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "compiler", "tools", "onnxc"))
    ap.add_argument("--targets", nargs="*", default=TARGETS)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench", "quant-producers"))
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    names = families()
    lines = ["# Models quantized by other tools (bench/quant_producers.py)", "",
             f"Machine: {run_bench.machine_text()}.", "",
             "## Float convolutions/matrix products left, integer count, largest difference "
             "from ONNX Runtime (output steps)", "",
             "Each cell: float matrix ops left / the summary's integer count / the largest "
             "difference from ONNX Runtime over 16 images x 10 logits, in output steps "
             "(ort_dynamic's output is float: its largest absolute difference). ort_qdq_u8u8 "
             "is the fallback case: its asymmetric uint8 weights do not fit the int8 kernels, "
             "so its four layers stay float, named by the summary, and still match.", "",
             "| family | " + " | ".join(args.targets) + " |",
             "|---|" + "---|" * len(args.targets)]
    for family in names:
        cells = []
        for target in args.targets:
            with tempfile.TemporaryDirectory(dir=args.work) as work:
                floats, integer, err = accuracy_row(args.onnxc, family, target, work)
            cells.append(f"{floats} / {integer} / {err}")
            print(family, target, cells[-1], flush=True)
        lines.append(f"| {family} | " + " | ".join(cells) + " |")

    target = run_bench.native_target()
    lines += ["", f"## x86 latency, batch 16, one thread (onnxc --target {target} vs "
              "ONNX Runtime 1.30 on the same file)", "",
              "| family | onnxc ms | ONNX Runtime ms | ORT / onnxc |", "|---|---:|---:|---:|"]
    for family in names:
        model_dir = os.path.join(PRODUCERS, family)
        x = load_tensor(os.path.join(model_dir, "test_data_set_0", "input_0.pb"))
        inp = os.path.join(args.work, f"{family}.bin")
        x.astype(np.float32).tofile(inp)
        exe = run_bench.build_onnxc(args.onnxc, model_dir, os.path.join(args.work, family),
                                    target)
        shape = "x".join(map(str, x.shape))
        peers = {"onnxc": lambda n: [exe, inp, str(n)],
                 "ort": lambda n: ["node", os.path.join(HERE, "ort_bench.js"),
                                   os.path.join(model_dir, "model.onnx"), inp, shape, str(n), "1"]}
        runs = {p: max(3, min(500, int(args.seconds * 1e6 /
                                       max(run_bench.run_json(c(3))["median_us"], 1))))
                for p, c in peers.items()}
        med = {p: [] for p in peers}
        for _ in range(args.rounds):
            for p, c in peers.items():
                med[p].append(run_bench.run_json(c(runs[p]))["median_us"])
        m = {p: sorted(v)[len(v) // 2] / 1000 for p, v in med.items()}
        lines.append(f"| {family} | {m['onnxc']:.3f} | {m['ort']:.3f} | "
                     f"{m['ort'] / m['onnxc']:.2f} |")
        print(lines[-1], flush=True)

    torch_count, own_count = cortex_m4_instructions(args.onnxc, args.work)
    lines += ["", "## Cortex-M4 instructions per inference (batch 1, qemu-system-arm)", "",
              "| quantized by | instructions | vs onnxc's own |", "|---|---:|---:|",
              f"| PyTorch eager, fbgemm qconfig (uint8 activations) | {torch_count} | "
              f"{torch_count / own_count:.3f} |",
              f"| onnxc --quantize int8 (int8 activations) | {own_count} | 1.000 |", ""]
    out = os.path.join(HERE, "results", "quant-producers.md")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
