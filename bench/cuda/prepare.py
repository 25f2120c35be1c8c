#!/usr/bin/python3
"""Prepares the GPU benchmark's kit on this machine (onnxc runs here; the
GPU machine has nvcc and PyTorch but no onnxc):

    cd bench/cuda && /usr/bin/python3 prepare.py [--onnxc ../../build/compiler/tools/onnxc] [MODEL...]

Each model of gpu_models.MODELS at batch 1 and 32, in float32 and with
--precision tf32, fp16 and bf16 (gpu_models.PRECISIONS), and each of gpu_models.PARITY_MODELS at batch 1 in
float32: the model with the formula's weights exported to ONNX (opset 17)
and compiled with `onnxc --target cuda` into kit/<model>/<variant>/
(model.cu, model.h, model_weights.S; variant b<batch> or b<batch>-<precision>),
with the host reference next to it: onnxc's output for the formula's input
on this machine's CPU (host_out.bin, raw float32). The weights blob, the
same for every variant, is kept once in kit/<model>/model.weights.bin.
run_on_gpu.sh builds and times them there. The kit is git-ignored: a device
run carries kit/<model> (64 MiB a call: ResNet-18's 47 MB weights travel
with the small models, the other three large ones together).
"""
import argparse
import filecmp
import os
import shutil
import subprocess
import tempfile

import torch

import gpu_models
from onnx_tensors import load_tensor, save_tensor  # noqa: E402 (gpu_models's path)

HERE = os.path.dirname(os.path.abspath(__file__))


def variants(name):
    """(directory name, batch, precision) of each build of `name`."""
    if name in gpu_models.PARITY_MODELS:
        return [("b1", 1, "fp32")]
    return [(f"b{b}{'' if p == 'fp32' else '-' + p}", b, p) for b in gpu_models.BATCHES
            for p in gpu_models.PRECISIONS]


def host_reference(onnxc, onnx_path, x, out_path, tmp):
    """onnxc's output on this machine's CPU for input `x`, raw float32."""
    ins, outs = os.path.join(tmp, "in"), os.path.join(tmp, "out")
    os.makedirs(ins, exist_ok=True)
    save_tensor(x.numpy(), "input", os.path.join(ins, "input_0.pb"))
    subprocess.run([onnxc, "run", onnx_path, "--inputs", ins, "--outputs", outs, "--quiet"],
                   check=True)
    load_tensor(os.path.join(outs, "output_0.pb")).astype("float32").tofile(out_path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", default=os.path.join(HERE, "..", "..", "build", "compiler", "tools",
                                                    "onnxc"))
    ap.add_argument("--out", default=os.path.join(HERE, "kit"))
    ap.add_argument("models", nargs="*", default=gpu_models.MODELS + gpu_models.PARITY_MODELS)
    a = ap.parse_args()
    for name in a.models:
        model_dir = os.path.join(a.out, name)
        shutil.rmtree(model_dir, ignore_errors=True)
        for variant, batch, precision in variants(name):
            model, x = gpu_models.build(name, batch)
            out = os.path.join(model_dir, variant)
            with tempfile.TemporaryDirectory() as tmp:
                onnx_path = os.path.join(tmp, "model.onnx")
                torch.onnx.export(model, (x,), onnx_path, opset_version=17,
                                  input_names=["input"], output_names=["output"])
                subprocess.run([a.onnxc, onnx_path, "--target", "cuda", "--name", "model",
                                "--precision", precision, "--quiet", "-o", out], check=True)
                if precision == "fp32":
                    host_reference(a.onnxc, onnx_path, x, os.path.join(out, "host_out.bin"), tmp)
            blob = os.path.join(model_dir, "model.weights.bin")
            if not os.path.exists(blob):
                shutil.move(os.path.join(out, "model.weights.bin"), blob)
            elif filecmp.cmp(blob, os.path.join(out, "model.weights.bin"), shallow=False):
                os.remove(os.path.join(out, "model.weights.bin"))
            else:
                shutil.move(os.path.join(out, "model.weights.bin"), out)  # differs: keep its own
            print(f"{name} {variant}: {out}")
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(model_dir)
                   for f in fs)
        print(f"{name}: {size / 2**20:.1f} MiB in {model_dir}")


if __name__ == "__main__":
    main()
