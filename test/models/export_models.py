#!/usr/bin/python3
"""Exports the e2e model set with PyTorch and records PyTorch's outputs.

Each model gets random weights from a fixed seed (BatchNorm statistics
randomised too, and kept in the graph), is exported at opset 13 and 17, and
is written in the ONNX backend-test layout:

    OUT/<model>_op<N>/model.onnx
    OUT/<model>_op<N>/test_data_set_0/input_0.pb, output_0.pb, ...

so `onnxc run` and compare_outputs.py can check onnxc against PyTorch.
Run with Debian's /usr/bin/python3 (it has torch, torchvision and onnx).
"""
import argparse
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torchvision

from onnx_tensors import save_tensor

warnings.filterwarnings("ignore")
torch.set_num_threads(1)


class CifarCNN(torch.nn.Module):
    """conv-bn-relu-pool x3, fc-relu-fc: the CIFAR-10 network of the e2e set."""

    def __init__(self):
        super().__init__()
        layers, c = [], 3
        for out in (32, 64, 128):
            layers += [torch.nn.Conv2d(c, out, 3, padding=1), torch.nn.BatchNorm2d(out),
                       torch.nn.ReLU(), torch.nn.MaxPool2d(2)]
            c = out
        self.features = torch.nn.Sequential(*layers)
        self.classifier = torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(128 * 4 * 4, 256), torch.nn.ReLU(),
            torch.nn.Linear(256, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class Encoder(torch.nn.Module):
    """A 2-layer transformer encoder, d_model 256, 4 heads, sequence 128."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=512,
                                                 dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2,
                                                   enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class Lstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(input_size=32, hidden_size=64, num_layers=2)

    def forward(self, x):
        y, _ = self.rnn(x)
        return y


class BiGru(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(input_size=32, hidden_size=64, bidirectional=True)

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


class ChannelMix(torch.nn.Module):
    """Channel moves between convolutions, at counts that fill no whole
    16-lane blocks: a Split (YOLO's C2f, CSP blocks), a Concat, ShuffleNet's
    channel shuffle (view, transpose, view) and chunk, and a Concat again
    (the SIMD targets keep them in the blocked layout as channel gathers)."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 40, 3, padding=1)
        self.branch = torch.nn.Conv2d(18, 22, 3, padding=1)
        self.head = torch.nn.Conv2d(44, 24, 1)

    def forward(self, x):
        y = torch.relu(self.stem(x))
        keep, work = torch.split(y, [22, 18], dim=1)
        z = torch.cat([keep, torch.relu(self.branch(work))], 1)
        n, c, h, w = z.shape
        z = z.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)
        u, v = z.chunk(2, dim=1)
        return self.head(torch.cat([u, torch.relu(v)], 1)), u


def image(n=1, size=224):
    return (n, 3, size, size)


MODELS = {
    "cifar_cnn": (CifarCNN, image(size=32)),
    "resnet18": (lambda: torchvision.models.resnet18(), image()),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), image()),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(), image()),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(), image()),
    "shufflenet_v2": (lambda: torchvision.models.shufflenet_v2_x1_0(), image()),
    "transformer_encoder": (Encoder, (1, 128, 256)),
    "channel_mix": (ChannelMix, image(size=20)),
    "lstm": (Lstm, (16, 1, 32)),
    "bigru": (BiGru, (16, 1, 32)),
}


def randomise_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def export(name, opset, out_dir):
    factory, shape = MODELS[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = factory()
    randomise_batchnorm(model, gen)
    model.eval()
    x = torch.randn(*shape, generator=gen)
    with torch.no_grad():
        ref = model(x)
    refs = ref if isinstance(ref, tuple) else (ref,)
    test_dir = os.path.join(out_dir, f"{name}_op{opset}")
    data_dir = os.path.join(test_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    outputs = [f"output_{i}" for i in range(len(refs))]
    # PRESERVE keeps BatchNormalization in the graph (EVAL would fold it
    # into Conv at export): onnxc's own folding is what is under test.
    torch.onnx.export(model, (x,), os.path.join(test_dir, "model.onnx"),
                      opset_version=opset, input_names=["input"], output_names=outputs,
                      training=torch.onnx.TrainingMode.PRESERVE)
    onnx.checker.check_model(os.path.join(test_dir, "model.onnx"))
    save_tensor(x.numpy(), "input", os.path.join(data_dir, "input_0.pb"))
    for i, r in enumerate(refs):
        save_tensor(r.numpy(), outputs[i], os.path.join(data_dir, f"output_{i}.pb"))
    print(f"exported {name} opset {opset} -> {test_dir}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--opset", type=int, action="append")
    ap.add_argument("models", nargs="*", default=list(MODELS))
    args = ap.parse_args()
    for name in args.models:
        if name not in MODELS:
            sys.exit(f"unknown model {name}; known: {', '.join(MODELS)}")
        for opset in args.opset or [13, 17]:
            export(name, opset, args.out)


if __name__ == "__main__":
    main()
