#!/usr/bin/python3
"""The four MLPerf Tiny reference architectures, built in PyTorch and
exported to ONNX for onnxc (run with Debian's /usr/bin/python3: torch, onnx):

    make_models.py OUT_DIR [--calibration 32]

OUT_DIR/<model>/model.onnx (float, opset 13), calibration/sample_NNN/input_0.pb
(--calibration samples for `onnxc --quantize int8`) and test/input_0.pb (one
input) for each of

  resnet8    image classification: ResNet-8 on 32x32x3 (CIFAR-10), 10 classes
  dscnn      keyword spotting: DS-CNN on a 49x10 MFCC map, 12 classes
  mobilenet  visual wake words: MobileNetV1 width 0.25 on 96x96x3, 2 classes
  autoencoder  anomaly detection: the FC autoencoder on 640 features

as the MLPerf Tiny benchmark defines them (github.com/mlcommons/tiny, training/),
with seeded random weights and BatchNorm statistics (the final average pool,
which covers the whole map, as GlobalAveragePool): what is measured here is
the compiled code (instructions, flash, RAM), which does not depend on training.
Inputs are seeded random data in each model's range.
"""
import argparse
import os

import numpy as np
import torch
from torch import nn
from onnx import numpy_helper


def conv_bn(cin, cout, k, stride=1, groups=1, relu=True, padding=None):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2 if padding is None else padding,
                        groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if relu:
        layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class Residual(nn.Module):
    """ResNet-8's stack: two 3x3 convolutions, a 1x1 shortcut where the
    shape changes."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = nn.Sequential(conv_bn(cin, cout, 3, stride), conv_bn(cout, cout, 3, relu=False))
        self.shortcut = (nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout
                         else nn.Identity())

    def forward(self, x):
        return torch.relu(self.body(x) + self.shortcut(x))


def resnet8():
    return nn.Sequential(conv_bn(3, 16, 3), Residual(16, 16, 1), Residual(16, 32, 2),
                         Residual(32, 64, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def dscnn():
    layers = [conv_bn(1, 64, (10, 4), stride=2, padding=(5, 1))]
    for _ in range(4):
        layers += [conv_bn(64, 64, 3, groups=64), conv_bn(64, 64, 1)]
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 12))


def mobilenet():
    # MobileNetV1 at width 0.25: (output channels, stride) of the 13 blocks.
    blocks = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1),
              (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)]
    layers, cin = [conv_bn(3, 8, 3, stride=2)], 8
    for cout, stride in blocks:
        layers += [conv_bn(cin, cin, 3, stride, groups=cin), conv_bn(cin, cout, 1)]
        cin = cout
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 2))


def autoencoder():
    sizes = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
    layers = []
    for a, b in zip(sizes, sizes[1:]):
        layers += [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(128, 640))


MODELS = {
    "resnet8": (resnet8, (1, 3, 32, 32)),
    "dscnn": (dscnn, (1, 1, 49, 10)),
    "mobilenet": (mobilenet, (1, 3, 96, 96)),
    "autoencoder": (autoencoder, (1, 640)),
}


def randomize_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def write(path, array):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, "input").SerializeToString())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--calibration", type=int, default=32)
    a = ap.parse_args()
    for i, (name, (make, shape)) in enumerate(MODELS.items()):
        gen = torch.Generator().manual_seed(1000 + i)
        torch.manual_seed(1000 + i)
        model = make()
        randomize_batchnorm(model, gen)
        model.eval()
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        torch.onnx.export(model, torch.zeros(shape), os.path.join(d, "model.onnx"),
                          input_names=["input"], output_names=["output"], opset_version=13)
        rng = np.random.default_rng(2000 + i)
        for s in range(a.calibration + 1):
            x = rng.standard_normal(shape).astype(np.float32)
            write(os.path.join(d, "test" if s == a.calibration else
                               f"calibration/sample_{s:03d}", "input_0.pb"), x)
        params = sum(p.numel() for p in model.parameters())
        print(f"{name}: {params} parameters -> {d}/model.onnx")


if __name__ == "__main__":
    main()
