"""The models of the GPU benchmark, the same on this machine (where onnxc
compiles them) and on the GPU machine (where PyTorch runs them): the e2e
set's architectures (test/models/export_models.py) with weights and inputs
computed from a formula, not drawn from a random generator, so both sides
get bit-identical values whatever their PyTorch version, and only onnxc's
weights blob has to travel.

    value(i) = ((i * 2654435761 + salt * 40503) mod 2^32) / 2^32   in [0, 1)

salt: the CRC-32 of the parameter's name (inputs: 7). bench_main.cpp
computes the same inputs in C++.
"""
import os
import sys
import zlib

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test",
                                "models"))
import export_models  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "transformer_encoder"]  # timed, batch 1 and 32
PARITY_MODELS = ["cifar_cnn", "squeezenet1_1", "shufflenet_v2",
                 "efficientnet_b0"]  # the rest of the e2e set: parity, batch 1
BATCHES = [1, 32]
PRECISIONS = ["fp32", "tf32", "fp16", "bf16"]  # onnxc --precision of the timed models
INPUT_SALT = 7


def unit(n, salt):
    """n values in [0, 1) from the formula, float64."""
    i = np.arange(n, dtype=np.uint64)
    v = (i * np.uint64(2654435761) + np.uint64(salt * 40503)) % np.uint64(2 ** 32)
    return v.astype(np.float64) / 2.0 ** 32


def set_weights(model):
    """Every parameter and statistic from the formula: weights of fan-in f
    uniform with variance 1/f, biases small, normalisation scales and
    variances around 1."""
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if not t.is_floating_point():
                continue
            u = unit(t.numel(), zlib.crc32(name.encode()))
            leaf = name.rsplit(".", 1)[-1]
            if t.dim() >= 2:
                fan_in = t[0].numel()
                v = (u - 0.5) * 2.0 * np.sqrt(3.0 / fan_in)
            elif leaf in ("running_var",) or (leaf == "weight" and t.dim() == 1):
                v = 0.5 + u
            else:  # biases, running means
                v = (u - 0.5) * 0.2
            t.copy_(torch.from_numpy(v.astype(np.float32)).reshape(t.shape))


def build(name, batch):
    """(model in eval mode, input) for `name` at `batch`."""
    factory, shape = export_models.MODELS[name]
    model = factory().eval()
    set_weights(model)
    shape = (batch,) + tuple(shape[1:])
    n = int(np.prod(shape))
    x = torch.from_numpy(((unit(n, INPUT_SALT) - 0.5) * 2.0).astype(np.float32)).reshape(shape)
    return model, x
