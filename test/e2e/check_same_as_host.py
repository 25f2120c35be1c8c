#!/usr/bin/python3
"""Runs a model through `onnxc run` on the host (target generic) and on
another target (a microcontroller, aarch64) with the same options, and
checks that every output is identical (the int8 builds: the same integers
on every core).

    check_same_as_host.py --onnxc ONNXC --target cortex-m0plus --model M.onnx \\
        --inputs DIR [--input-slice N] [--threads N] [-- ONNXC OPTIONS (--quantize int8 ...)]

--input-slice N keeps the first N items of each input's batch (a small
board's RAM holds one image, not the test set's batch). --calibrate-on-inputs
quantizes (with --quantize int8 among the options) on the inputs themselves.
--threads N builds the target's model (not the host's) with N threads: the
integer kernels' split must not change an output.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from onnx import numpy_helper, TensorProto


def load(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def main():
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--input-slice", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--calibrate-on-inputs", action="store_true",
                    help="quantize with the inputs themselves as the one calibration sample")
    a = ap.parse_args(argv[:cut])
    extra = argv[cut + 1:]
    with tempfile.TemporaryDirectory() as work:
        inputs = a.inputs
        if a.input_slice:
            inputs = os.path.join(work, "in")
            os.makedirs(inputs)
            for name in sorted(os.listdir(a.inputs)):
                if name.startswith("input_") and name.endswith(".pb"):
                    t = load(os.path.join(a.inputs, name))
                    arr = numpy_helper.to_array(t)[:a.input_slice]
                    with open(os.path.join(inputs, name), "wb") as f:
                        f.write(numpy_helper.from_array(arr, t.name).SerializeToString())
        if a.calibrate_on_inputs:
            sample = os.path.join(work, "calibration", "s0")
            os.makedirs(sample)
            for name in os.listdir(inputs):
                if name.startswith("input_") and name.endswith(".pb"):
                    shutil.copy(os.path.join(inputs, name), sample)
            extra = extra + ["--calibration", os.path.dirname(sample)]
        outs = {}
        for target in ("generic", a.target):
            out = os.path.join(work, target)
            threads = ["--threads", str(a.threads)] if target != "generic" else []
            subprocess.run([a.onnxc, "run", a.model, "--inputs", inputs, "--outputs", out,
                            "--target", target, "--quiet"] + threads + extra, check=True)
            outs[target] = {n: numpy_helper.to_array(load(os.path.join(out, n)))
                            for n in sorted(os.listdir(out))}
    host, got = outs["generic"], outs[a.target]
    if sorted(host) != sorted(got):
        sys.exit(f"outputs differ in number: {sorted(host)} vs {sorted(got)}")
    for name in host:
        if host[name].shape != got[name].shape or not np.array_equal(host[name], got[name]):
            diff = np.abs(host[name].astype(np.float64) - got[name].astype(np.float64)).max()
            sys.exit(f"{name}: {a.target} differs from the host (max abs diff {diff})")
    print(f"{a.target}{f' ({a.threads} threads)' if a.threads > 1 else ''}: {len(host)} "
          "output(s) identical to the host's")


if __name__ == "__main__":
    main()
