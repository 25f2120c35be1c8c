#!/usr/bin/python3
"""Compares onnxc's outputs with reference outputs (backend-test layout).

    compare_outputs.py EXPECTED_DIR ACTUAL_DIR [--max-rel-err 1e-4]

For each output_N.pb: same shape and dtype, and the relative error
max|actual - expected| / max|expected| at most --max-rel-err (1e-4: the
e2e bar against PyTorch). Prints one line per output; exits 1 on a mismatch.
"""
import argparse
import os
import sys

import numpy as np

from onnx_tensors import load_tensor as load


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("expected")
    ap.add_argument("actual")
    ap.add_argument("--max-rel-err", type=float, default=1e-4)
    args = ap.parse_args()
    ok, k = True, 0
    while os.path.exists(os.path.join(args.expected, f"output_{k}.pb")):
        exp = load(os.path.join(args.expected, f"output_{k}.pb"))
        path = os.path.join(args.actual, f"output_{k}.pb")
        if not os.path.exists(path):
            print(f"output_{k}: missing")
            ok = False
            k += 1
            continue
        got = load(path)
        if got.shape != exp.shape or got.dtype != exp.dtype:
            print(f"output_{k}: shape/dtype {got.shape} {got.dtype} != {exp.shape} {exp.dtype}")
            ok = False
        else:
            scale = float(np.max(np.abs(exp))) if exp.size else 0.0
            err = float(np.max(np.abs(got.astype(np.float64) - exp))) if exp.size else 0.0
            rel = err / scale if scale > 0 else err
            good = rel <= args.max_rel_err and np.all(np.isfinite(got))
            print(f"output_{k}: max abs err {err:.3g}, max |ref| {scale:.3g}, "
                  f"rel err {rel:.3g} ({'ok' if good else 'FAIL'} at {args.max_rel_err})")
            ok &= bool(good)
        k += 1
    if k == 0:
        print("no reference outputs found")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
