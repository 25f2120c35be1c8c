#!/usr/bin/env python3
"""On the GPU machine (run_on_gpu.sh calls it): for each build of the kit
that run_on_gpu.sh timed (OUT/onnxc_<model>_<variant>.json), checks onnxc's
output against eager PyTorch's on the GPU and against onnxc's own on the
host CPU (host_out.bin), and times PyTorch at the same precision: eager
always, torch.compile (default mode, and "reduce-overhead", which replays
CUDA Graphs as onnxc does) for the timed models in the precisions
--compile names (float32: TF32 off on both sides). PyTorch's fp16 and
bf16 are the model and its input converted to that type (every tensor
16-bit, cuDNN's and cuBLAS's half kernels: PyTorch at its fastest), while
onnxc --precision fp16|bf16 rounds only the matrix products' operands.
Writes OUT/cuda-gpu.md.

    python3 torch_gpu.py --kit kit --out OUT [MODEL...]
"""
import argparse
import copy
import json
import os
import time

import numpy as np
import torch

import gpu_models

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def timed(fn, x, runs):
    with torch.no_grad():
        for _ in range(20):
            fn(x)
        torch.cuda.synchronize()
        us = []
        for _ in range(runs):
            t0 = time.perf_counter()
            fn(x)
            torch.cuda.synchronize()
            us.append((time.perf_counter() - t0) * 1e6)
    us.sort()
    return {"median_us": us[len(us) // 2], "p99_us": us[min(len(us) - 1, len(us) * 99 // 100)]}


def rel_err(got, ref):
    return float(np.max(np.abs(got.astype(np.float64) - ref)) / np.max(np.abs(ref)))


def write_table(out, rows):
    """OUT/cuda-gpu.md, rewritten after each row (a run cut short keeps its rows)."""
    gpu = torch.cuda.get_device_name(0)
    with open(os.path.join(out, "cuda-gpu.md"), "w") as f:
        f.write(f"# onnxc --target cuda against PyTorch {torch.__version__} on {gpu}\n\n"
                "Median of the runs (p99 in brackets), microseconds, one process per side, "
                "the same GPU; ratios are PyTorch's time / onnxc's (above 1: onnxc faster). "
                "fp32: TF32 off on both sides; tf32: onnxc --precision tf32 against PyTorch "
                "with TF32 allowed; fp16, bf16: onnxc --precision fp16|bf16 against PyTorch's "
                "model and input in that type. rel err: max |diff| / max |ref| of onnxc's output against "
                "eager PyTorch's (float32, TF32 off) and against onnxc's on the host CPU.\n\n"
                "| model | batch | precision | onnxc | eager | compile | compile (CUDA graphs) | "
                "eager / onnxc | compile / onnxc | graphs / onnxc | rel err vs PyTorch | "
                "rel err vs host |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            o = r["onnxc"]["median_us"]

            def cell(t):
                return f"{t['median_us']:.0f} ({t['p99_us']:.0f})" if t else "-"

            def ratio(t):
                return f"{t['median_us'] / o:.2f}" if t else "-"
            c, g = r.get("compiled"), r.get("graphs")
            f.write(f"| {r['model']} | {r['batch']} | {r['precision']} | {cell(r['onnxc'])} | "
                    f"{cell(r['eager'])} | {cell(c)} | {cell(g)} | {ratio(r['eager'])} | "
                    f"{ratio(c)} | {ratio(g)} | {r['rel_err']:.2g} | {r['rel_err_host']:.2g} |\n")



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kit", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--compile", default="fp32",
                    help="the precisions torch.compile runs at, comma-separated")
    ap.add_argument("--compile-modes", default="default,reduce-overhead",
                    help="torch.compile's modes, comma-separated")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    every = gpu_models.MODELS + gpu_models.PARITY_MODELS
    models = a.models or [m for m in every if os.path.isdir(os.path.join(a.kit, m))]
    rows = []
    for name in models:
        for batch in gpu_models.BATCHES:
            builds = [(p, f"b{batch}" + ("" if p == "fp32" else "-" + p))
                      for p in gpu_models.PRECISIONS]
            builds = [(p, v) for p, v in builds
                      if os.path.exists(os.path.join(a.out, f"onnxc_{name}_{v}.json"))]
            if not builds:
                continue
            model, x = gpu_models.build(name, batch)
            model, x = model.cuda(), x.cuda()
            host = np.fromfile(os.path.join(a.kit, name, f"b{batch}", "host_out.bin"),
                               dtype=np.float32)
            with torch.no_grad():  # the reference: float32, TF32 off
                torch.backends.cuda.matmul.allow_tf32 = False
                torch.backends.cudnn.allow_tf32 = False
                ref = model(x).float().cpu().numpy()
            for precision, variant in builds:
                tf32 = precision == "tf32"
                torch.backends.cuda.matmul.allow_tf32 = tf32
                torch.backends.cudnn.allow_tf32 = tf32
                torch.backends.cudnn.benchmark = True
                torch._dynamo.reset()
                onnxc = json.load(open(os.path.join(a.out, f"onnxc_{name}_{variant}.json")))
                got = np.fromfile(os.path.join(a.kit, name, variant, "onnxc_out.bin"),
                                  dtype=np.float32).reshape(ref.shape)
                row = dict(model=name, batch=batch, precision=precision, onnxc=onnxc,
                           rel_err=rel_err(got, ref), rel_err_host=rel_err(got, host.reshape(ref.shape)),
                           host_vs_torch=rel_err(host.reshape(ref.shape), ref))
                half = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
                m, xin = (copy.deepcopy(model).to(half), x.to(half)) if half else (model, x)
                row["eager"] = timed(m, xin, a.runs)
                if (name in gpu_models.MODELS and precision in a.compile.split(",")
                        and not a.no_compile):
                    modes = a.compile_modes.split(",")
                    if "default" in modes:
                        row["compiled"] = timed(torch.compile(m), xin, a.runs)
                    if "reduce-overhead" in modes:
                        row["graphs"] = timed(torch.compile(m, mode="reduce-overhead"), xin,
                                              a.runs)
                rows.append(row)
                print(json.dumps(row), flush=True)
                write_table(a.out, rows)


if __name__ == "__main__":
    main()
