#!/usr/bin/python3
"""Compiling the same model twice, from different directories and output
paths, gives byte-identical files; the header's provenance checks out.

For each configuration (generic sources; x86-64 with --emit lib; int8 with
--quantize when calibration data is given), the model is copied into two
folders and compiled once from inside the first (relative paths) and once
from / (absolute paths, a deeper output folder). Every file must have the
same sha256. `onnxc MODEL --verify-header NAME.h` must accept the model
and refuse a copy with one byte changed.

Usage: check_reproducible.py ONNXC MODEL.onnx WORK_DIR [--calibration DIR]
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def onnxc(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} (in {cwd}): {p.stdout}{p.stderr}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("model")
    ap.add_argument("work")
    ap.add_argument("--calibration")
    a = ap.parse_args()
    tool = os.path.abspath(a.onnxc)
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    base = os.path.basename(a.model)
    stem = os.path.splitext(base)[0]
    first, second = os.path.join(work, "one"), os.path.join(work, "two", "elsewhere")
    for d in (first, second):
        os.makedirs(d)
        shutil.copy(a.model, os.path.join(d, base))

    configs = [("generic", ["--target", "generic"]),
               ("x86-64 lib", ["--target", "x86-64", "--emit", "lib"])]
    if a.calibration:
        configs.append(("int8 x86-64 lib", ["--target", "x86-64", "--emit", "lib",
                                            "--quantize", "int8", "--calibration",
                                            os.path.abspath(a.calibration)]))
    failures = 0
    print("| configuration | file | sha256 | same |\n|---|---|---|---|")
    for label, opts in configs:
        key = label.replace(" ", "_")
        out1 = os.path.join("out", key)  # relative to `first`
        out2 = os.path.join(work, "two", "deeper", "out", key)
        onnxc([tool, base, "-o", out1, "--quiet", *opts], cwd=first)
        onnxc([tool, os.path.join(second, base), "-o", out2, "--quiet", *opts], cwd="/")
        out1 = os.path.join(first, out1)
        files = sorted(os.listdir(out1))
        if files != sorted(os.listdir(out2)):
            sys.exit(f"FAIL: {label}: different files {files} vs {sorted(os.listdir(out2))}")
        for f in files:
            h1, h2 = sha256(os.path.join(out1, f)), sha256(os.path.join(out2, f))
            same = h1 == h2
            failures += not same
            print(f"| {label} | {f} | {h1[:16]}… | {'yes' if same else 'NO: ' + h2[:16]} |")
        header = os.path.join(out1, stem + ".h")
        onnxc([tool, os.path.join(first, base), "--verify-header", header], cwd="/")

    # A model one byte away is refused.
    changed = os.path.join(work, "changed.onnx")
    data = bytearray(open(a.model, "rb").read())
    data[-100] ^= 1
    open(changed, "wb").write(data)
    p = subprocess.run([tool, changed, "--verify-header",
                        os.path.join(first, "out", "generic", stem + ".h")],
                       capture_output=True, text=True)
    if p.returncode != 1 or "was generated from a model with sha256" not in p.stderr:
        sys.exit(f"FAIL: --verify-header accepted a changed model: {p.returncode} {p.stderr}")
    if failures:
        sys.exit(f"FAIL: {failures} files differ between the two compiles")
    print("\ncheck_reproducible: every file identical across the two compiles; "
          "--verify-header accepts the model and refuses a changed copy")


if __name__ == "__main__":
    main()
