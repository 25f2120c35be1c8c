#!/usr/bin/python3
"""Writes Fashion-MNIST data for the bundled CNN in the layouts onnxc reads:

    make_calibration.py OUT_DIR [--samples 100] [--test 1000]

OUT_DIR/calibration/sample_NNN/input_0.pb: training images, one per folder
(`--calibration` for `onnxc --quantize int8`); OUT_DIR/test/input_0.pb: the
first --test test images as one batch and OUT_DIR/test/labels.npy their
labels. Images are normalised as the model was trained
(examples/fashion-mnist/train.py).
"""
import argparse
import os
import sys

import numpy as np
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_data import load  # noqa: E402


def write(path, array):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, "image").SerializeToString())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--test", type=int, default=1000)
    args = ap.parse_args()
    train, _ = load("train")
    # Spread over the training set (fixed seed): every class is seen.
    pick = np.random.default_rng(0).choice(len(train), args.samples, replace=False)
    for k, i in enumerate(sorted(pick)):
        write(os.path.join(args.out, "calibration", f"sample_{k:04d}", "input_0.pb"),
              train[i:i + 1])
    test, labels = load("t10k")
    write(os.path.join(args.out, "test", "input_0.pb"), test[:args.test])
    np.save(os.path.join(args.out, "test", "labels.npy"), labels[:args.test])
    print(f"wrote {args.samples} calibration samples and {args.test} test images to {args.out}")


if __name__ == "__main__":
    main()
