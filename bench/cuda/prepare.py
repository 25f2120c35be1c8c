#!/usr/bin/python3
"""Prepares the GPU benchmark's kit on this machine (onnxc runs here; the
GPU machine has nvcc and PyTorch but no onnxc):

    cd bench/cuda && /usr/bin/python3 prepare.py [--onnxc ../../build/compiler/tools/onnxc]

For each model of gpu_models.MODELS and batch 1 and 32: the model with the
formula's weights exported to ONNX (opset 17) and compiled with `onnxc
--target cuda` into kit/<model>/b<batch>/ (model.cu, model.h,
model_weights.S); the weights blob, the same for both batches, once in
kit/<model>/model.weights.bin. run_on_gpu.sh builds and times them there.
The kit is git-ignored: a device run carries kit/<model> (64 MiB a call:
ResNet-18's 47 MB weights travel alone, MobileNetV2 and the transformer
together).
"""
import argparse
import filecmp
import os
import shutil
import subprocess
import tempfile

import torch

import gpu_models

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", default=os.path.join(HERE, "..", "..", "build", "compiler", "tools",
                                                    "onnxc"))
    ap.add_argument("--out", default=os.path.join(HERE, "kit"))
    ap.add_argument("models", nargs="*", default=gpu_models.MODELS)
    a = ap.parse_args()
    for name in a.models:
        model_dir = os.path.join(a.out, name)
        shutil.rmtree(model_dir, ignore_errors=True)
        for batch in gpu_models.BATCHES:
            model, x = gpu_models.build(name, batch)
            out = os.path.join(model_dir, f"b{batch}")
            with tempfile.TemporaryDirectory() as tmp:
                onnx_path = os.path.join(tmp, "model.onnx")
                torch.onnx.export(model, (x,), onnx_path, opset_version=17,
                                  input_names=["input"], output_names=["output"])
                subprocess.run([a.onnxc, onnx_path, "--target", "cuda", "--name", "model",
                                "--quiet", "-o", out], check=True)
            blob = os.path.join(model_dir, "model.weights.bin")
            if not os.path.exists(blob):
                shutil.move(os.path.join(out, "model.weights.bin"), blob)
            elif filecmp.cmp(blob, os.path.join(out, "model.weights.bin"), shallow=False):
                os.remove(os.path.join(out, "model.weights.bin"))
            else:
                shutil.move(os.path.join(out, "model.weights.bin"), out)  # differs: keep its own
            print(f"{name} batch {batch}: {out}")
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(model_dir)
                   for f in fs)
        print(f"{name}: {size / 2**20:.1f} MiB in {model_dir}")


if __name__ == "__main__":
    main()
