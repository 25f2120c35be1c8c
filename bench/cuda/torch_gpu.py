#!/usr/bin/env python3
"""On the GPU machine (run_on_gpu.sh calls it): times each kit model in
PyTorch eager and torch.compile (default mode, and "reduce-overhead", which
replays CUDA Graphs as onnxc does), float32 with TF32 off on both sides,
checks onnxc's output against eager PyTorch's (1e-4 relative), and writes
OUT/cuda-gpu.md with onnxc's timings (OUT/onnxc_<model>_b<batch>.json).

    python3 torch_gpu.py --kit kit --out OUT [MODEL...]
"""
import argparse
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kit", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    models = a.models or [m for m in gpu_models.MODELS if os.path.isdir(os.path.join(a.kit, m))]
    rows = []
    for name in models:
        for batch in gpu_models.BATCHES:
            tag = f"{name}_b{batch}"
            onnxc_json = os.path.join(a.out, f"onnxc_{tag}.json")
            if not os.path.exists(onnxc_json):
                continue
            onnxc = json.load(open(onnxc_json))
            model, x = gpu_models.build(name, batch)
            model, x = model.cuda(), x.cuda()
            with torch.no_grad():
                ref = model(x).float().cpu().numpy()
            got = np.fromfile(os.path.join(a.kit, name, f"b{batch}", "onnxc_out.bin"),
                              dtype=np.float32).reshape(ref.shape)
            rel = float(np.max(np.abs(got.astype(np.float64) - ref)) / np.max(np.abs(ref)))
            eager = timed(model, x, a.runs)
            compiled = timed(torch.compile(model), x, a.runs)
            graphs = timed(torch.compile(model, mode="reduce-overhead"), x, a.runs)
            row = dict(model=name, batch=batch, onnxc=onnxc, eager=eager, compiled=compiled,
                       graphs=graphs, rel_err=rel)
            rows.append(row)
            print(json.dumps(row), flush=True)
    gpu = torch.cuda.get_device_name(0)
    with open(os.path.join(a.out, "cuda-gpu.md"), "w") as f:
        f.write(f"# onnxc --target cuda against PyTorch {torch.__version__} on {gpu}\n\n"
                "float32, TF32 off on both sides; median of the runs (p99 in brackets), "
                "microseconds; ratios are PyTorch's time / onnxc's (above 1: onnxc faster); "
                "rel err: onnxc's output against eager PyTorch's, max |diff| / max |ref|.\n\n"
                "| model | batch | onnxc | eager | compile | compile (CUDA graphs) | "
                "eager / onnxc | compile / onnxc | graphs / onnxc | rel err |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            o = r["onnxc"]["median_us"]

            def cell(t):
                return f"{t['median_us']:.0f} ({t['p99_us']:.0f})"
            f.write(f"| {r['model']} | {r['batch']} | {cell(r['onnxc'])} | {cell(r['eager'])} | "
                    f"{cell(r['compiled'])} | {cell(r['graphs'])} | "
                    f"{r['eager']['median_us'] / o:.2f} | {r['compiled']['median_us'] / o:.2f} | "
                    f"{r['graphs']['median_us'] / o:.2f} | {r['rel_err']:.2g} |\n")


if __name__ == "__main__":
    main()
