#!/usr/bin/python3
"""Trains the bundled Fashion-MNIST CNN and exports it to ONNX.

Uses Debian's torch and the Debian package dataset-fashion-mnist
(/usr/share/datasets/fashion-mnist). Writes, next to this script:
  fashion_cnn.onnx     the model (opset 13; input 'image' 1x1x28x28 float,
                       normalised as (pixel/255 - 0.2860) / 0.3530; output
                       'logits' 1x10)
  test_images.bin      16 test images, uint8, 16x28x28
  test_labels.bin      their labels, uint8
Deterministic: fixed seeds, one thread. Takes a few minutes on 2 cores.
"""
import gzip
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530


def load(kind):
    with gzip.open(os.path.join(DATA, f"{kind}-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(os.path.join(DATA, f"{kind}-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    return images, labels


def normalise(images):
    return (torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1) - MEAN) / STD


class FashionCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Flatten(), torch.nn.Linear(32 * 7 * 7, 64), torch.nn.ReLU(),
            torch.nn.Linear(64, 10))

    def forward(self, x):
        return self.net(x)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    train_x, train_y = load("train")
    test_x, test_y = load("t10k")
    x, y = normalise(train_x), torch.from_numpy(train_y.astype(np.int64))
    model = FashionCNN()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(2):
        model.train()
        perm = torch.randperm(len(x))
        for i in range(0, len(x), 128):
            idx = perm[i:i + 128]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            pred = model(normalise(test_x)).argmax(1).numpy()
        print(f"epoch {epoch + 1}: test accuracy {np.mean(pred == test_y):.4f}")
    torch.onnx.export(model, normalise(test_x[:1]), os.path.join(HERE, "fashion_cnn.onnx"),
                      opset_version=13, input_names=["image"], output_names=["logits"])
    test_x[:16].tofile(os.path.join(HERE, "test_images.bin"))
    test_y[:16].tofile(os.path.join(HERE, "test_labels.bin"))


if __name__ == "__main__":
    main()
