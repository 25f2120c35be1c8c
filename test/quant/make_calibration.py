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
import gzip
import os

import numpy as np
from onnx import numpy_helper

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530


def load(kind):
    with gzip.open(os.path.join(DATA, f"{kind}-images-idx3-ubyte.gz")) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(DATA, f"{kind}-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)
    return ((x.astype(np.float32) / 255.0 - MEAN) / STD).astype(np.float32), y


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
