#!/usr/bin/python3
"""Checks that a model compiled for Cortex-M4 is freestanding: onnxc builds
its library with arm-none-eabi-g++ (`--emit lib`), and the library's
undefined symbols must name no heap, exception or RTTI function.

    check_freestanding.py --onnxc ONNXC --model MODEL.onnx --work DIR
"""
import argparse
import os
import re
import subprocess
import sys

# Symbols whose presence would mean heap use, exceptions or RTTI in the model.
FORBIDDEN = re.compile(r"\b(malloc|free|calloc|realloc|_Znwj|_Znaj|_Znwm|_Znam|_ZdlPv|_ZdaPv|"
                       r"__cxa_\w+|_Unwind_\w+|__gxx_personality\w*|_ZTI\w+)\b")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    subprocess.run([args.onnxc, args.model, "-o", args.work, "--name", "net",
                    "--target", "cortex-m4", "--emit", "lib", "--quiet"], check=True)
    undefined = subprocess.run(["arm-none-eabi-nm", "-u", os.path.join(args.work, "libnet.a")],
                               check=True, capture_output=True, text=True).stdout
    names = sorted({line.split()[-1] for line in undefined.splitlines()
                    if line.strip() and not line.endswith(":")})
    print("the model's library needs:", " ".join(names) or "nothing")
    bad = sorted(set(FORBIDDEN.findall(" ".join(names))))
    if bad:
        sys.exit(f"the model code references {bad}: not freestanding")
    print("freestanding: no heap, exception or RTTI symbols")


if __name__ == "__main__":
    main()
