"""The Fashion-MNIST images and labels (Debian's dataset-fashion-mnist),
normalised as the bundled CNN was trained (examples/fashion-mnist/train.py):
shared by the quantization test scripts."""
import gzip
import os

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530


def load(kind):
    """(images N x 1 x 28 x 28 float32, normalised; labels uint8) of the
    'train' or 't10k' set."""
    with gzip.open(os.path.join(DATA, f"{kind}-images-idx3-ubyte.gz")) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(DATA, f"{kind}-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)
    return ((x.astype(np.float32) / 255.0 - MEAN) / STD).astype(np.float32), y
