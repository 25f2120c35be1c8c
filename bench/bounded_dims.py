#!/usr/bin/python3
"""One build for every size (--dim NAME=LO..HI) against one build per size.

    bounded_dims.py [--onnxc build/compiler/tools/onnxc] [--target native]
                    [--repeat 200] [--out results/bounded-dims.md]

Two models from PyTorch with dynamic axes, random weights:

  encoder  the e2e transformer encoder (d_model 256, 4 heads, FF 512, 2
           layers, batch_first), --dim seq=1..512: outputs against PyTorch at
           seq 1, 7, 128 and 512; latency at 128 and 512 against builds fixed
           at those sizes
  resnet18 torchvision's ResNet-18 at 112x112, --dim batch=1..32: outputs
           against PyTorch at batch 1, 3 and 32; throughput (images/s) at each
           against builds fixed at that batch

Latency is `onnxc run --repeat N`'s median over N runs in one process (one
thread); the bounded and fixed builds alternate, two rounds each, and the
better median of each counts. Writes a Markdown table.
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "models"))
from onnx_tensors import load_tensor, save_tensor  # noqa: E402

warnings.filterwarnings("ignore")
torch.set_num_threads(1)


def encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=512,
                                             dropout=0.0, batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def resnet18():
    return torchvision.models.resnet18(num_classes=10)


def median_us(onnxc, model, inputs, target, repeat, dims):
    out = tempfile.mkdtemp(prefix="bounded-out-")
    r = subprocess.run([onnxc, "run", model, "--target", target, "--inputs", inputs,
                        "--outputs", out, "--repeat", str(repeat)] + dims,
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"onnxc run failed:\n{r.stderr[-3000:]}")
    m = re.search(r"median ([0-9.]+) us", r.stdout)
    return float(m.group(1)), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", default=os.path.join(HERE, "..", "build", "compiler", "tools",
                                                    "onnxc"))
    ap.add_argument("--target", default="native")
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "bounded-dims.md"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bounded-dims-")
    rows, checks = [], []
    cases = [("encoder", encoder, lambda n: (1, n, 256), "seq", 1, 512, (1, 7, 128, 512),
              (128, 512), 1),
             ("resnet18", resnet18, lambda n: (n, 3, 112, 112), "batch", 1, 32, (1, 3, 32),
              (1, 3, 32), 0)]
    for name, make, shape, dim, lo, hi, check_at, time_at, axis in cases:
        torch.manual_seed(0)
        model = make().eval()
        path = os.path.join(work, name + ".onnx")
        torch.onnx.export(model, (torch.randn(*shape(4)),), path, opset_version=17,
                          input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {axis: dim}, "y": {axis: dim}})
        for n in sorted(set(check_at) | set(time_at)):
            x = torch.randn(*shape(n), generator=torch.Generator().manual_seed(n))
            d = os.path.join(work, f"{name}_{n}")
            os.makedirs(d)
            save_tensor(x.numpy(), "x", os.path.join(d, "input_0.pb"))
            bounded = ["--dim", f"{dim}={lo}..{hi}"]
            fixed = ["--dim", f"{dim}={n}"]
            best = {"bounded": float("inf"), "fixed": float("inf")}
            for _ in range(2 if n in time_at else 1):
                for kind, flags in (("bounded", bounded), ("fixed", fixed)):
                    if kind == "fixed" and n not in time_at:
                        continue
                    us, out = median_us(args.onnxc, path, d, args.target,
                                        args.repeat if n in time_at else 1, flags)
                    best[kind] = min(best[kind], us)
                    if kind == "bounded" and n in check_at and not any(
                            c[:2] == (name, f"{dim}={n}") for c in checks):
                        with torch.no_grad():
                            ref = model(x).numpy()
                        got = load_tensor(os.path.join(out, "output_0.pb"))
                        rel = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
                        checks.append((name, f"{dim}={n}", list(ref.shape), rel))
            if n in time_at:
                per = n if dim == "batch" else 1
                rows.append((name, f"{dim}={n}", best["fixed"], best["bounded"],
                             best["bounded"] / best["fixed"], per))
                print(rows[-1], flush=True)
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = ["# One build for every size against one build per size", "",
             f"`bench/bounded_dims.py --target {args.target} --repeat {args.repeat}`, {cpu}, "
             "one thread; median of `onnxc run --repeat` (the better of two alternating "
             "rounds).", "",
             "| model | size | fixed build (us) | bounded build (us) | bounded / fixed | "
             "images/s fixed | images/s bounded |", "|---|---|---|---|---|---|---|"]
    for name, at, f, b, ratio, per in rows:
        ips = (f"{per / f * 1e6:.0f} | {per / b * 1e6:.0f}" if per > 1 or name == "resnet18"
               else "- | -")
        lines.append(f"| {name} | {at} | {f:.0f} | {b:.0f} | {ratio:.3f} | {ips} |")
    lines += ["", "Outputs of the bounded builds against PyTorch:", "",
              "| model | size | output | max abs err / max abs |", "|---|---|---|---|"]
    for name, at, shape, rel in checks:
        lines.append(f"| {name} | {at} | {shape} | {rel:.2g} |")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    bad = [c for c in checks if c[3] > 1e-4]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
