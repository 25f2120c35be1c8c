#!/usr/bin/python3
"""Instructions per inference, flash and RAM of the MLPerf Tiny architectures
quantized to int8 by onnxc, on Cortex-M targets under QEMU, next to the
published MLPerf Tiny reference figures (bench/results/mlperf-tiny.md):

    measure.py ONNXC MODELS_DIR [--targets cortex-m4,cortex-m55]

MODELS_DIR is make_models.py's output. For each model and target: `onnxc run
--count-instructions` (((1 + 4) runs - 1 run) / 4) and `onnxc --report`.
"""
import argparse
import os
import re
import subprocess
import tempfile

# MLPerf Tiny v0.5, closed division, reference submission: TensorFlow Lite
# Micro v2.3.1 on a Nucleo-L4R5ZI (Cortex-M4 at 120 MHz), median throughput
# (github.com/mlcommons/tiny_results_v0.5, closed/reference/results).
PUBLISHED = {"resnet8": 1.420, "dscnn": 5.497, "mobilenet": 1.665, "autoencoder": 99.487}
CLOCK_HZ = 120e6
MODELS = ["resnet8", "dscnn", "mobilenet", "autoencoder"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("models")
    ap.add_argument("--targets", default="cortex-m4,cortex-m55")
    a = ap.parse_args()
    rows = []
    for name in MODELS:
        d = os.path.join(a.models, name)
        quant = ["--quantize", "int8", "--calibration", os.path.join(d, "calibration")]
        for target in a.targets.split(","):
            with tempfile.TemporaryDirectory() as work:
                run = subprocess.run([a.onnxc, "run", os.path.join(d, "model.onnx"), "--inputs",
                                      os.path.join(d, "test"), "--outputs",
                                      os.path.join(work, "out"), "--target", target,
                                      "--count-instructions"] + quant,
                                     capture_output=True, text=True, check=True)
                count = int(re.search(r"instructions per inference: (\d+)", run.stdout).group(1))
                rep = subprocess.run([a.onnxc, os.path.join(d, "model.onnx"), "-o",
                                      os.path.join(work, "lib"), "--target", target,
                                      "--report"] + quant,
                                     capture_output=True, text=True, check=True).stdout
            flash = int(re.search(r"flash\s+(\d+) bytes", rep).group(1))
            ram = int(re.search(r"RAM\s+(\d+) bytes", rep).group(1))
            rows.append((name, target, count, flash, ram))
    cycles = {m: CLOCK_HZ / PUBLISHED[m] for m in MODELS}
    print("| model | target | int8 instructions / inference | TFLM reference, M4 cycles "
          "(latency x 120 MHz) | ratio | flash bytes | RAM bytes |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, target, count, flash, ram in rows:
        print(f"| {name} | {target} | {count:,} | {cycles[name]:,.0f} | "
              f"{cycles[name] / count:.1f}x fewer | {flash:,} | {ram:,} |")


if __name__ == "__main__":
    main()
