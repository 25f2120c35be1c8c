#!/usr/bin/python3
"""The 16 bundled Fashion-MNIST test images (../fashion-mnist/test_images.bin)
as input sets for `onnxc validate` and `onnxc run`: OUT/image_00/image.npy,
..., each one image normalised as in training, float32 [1, 1, 28, 28].

    /usr/bin/python3 make_input_sets.py OUT
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    images = np.fromfile(os.path.join(HERE, "..", "fashion-mnist", "test_images.bin"),
                         dtype=np.uint8).reshape(16, 1, 1, 28, 28)
    for i, image in enumerate(images):
        folder = os.path.join(out, f"image_{i:02d}")
        os.makedirs(folder, exist_ok=True)
        np.save(os.path.join(folder, "image.npy"),
                ((image / 255.0 - 0.2860) / 0.3530).astype(np.float32))


if __name__ == "__main__":
    main()
