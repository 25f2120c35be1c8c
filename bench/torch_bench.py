#!/usr/bin/python3
"""Times a model of the e2e set in PyTorch: THREADS threads (default 1), traced, frozen and
optimize_for_inference'd (Debian's eager path falls back to a reference BLAS,
which would flatter onnxc). PRECISION bf16: the model and its input in bfloat16,
channels-last where the input is an image, eager (oneDNN's bf16 kernels, AMX where the
CPU has it: PyTorch 1.13's fastest bf16 form here, 2x its traced bf16 or autocast on
ResNet-18). Usage: torch_bench.py MODEL RUNS [THREADS [PRECISION]]
Prints one JSON line: {"median_us":..., "p99_us":..., "rss_bytes":...}."""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "models"))
import export_models  # noqa: E402

torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)


def peak_rss():
    """VmHWM: this process image's peak (ru_maxrss survives exec)."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def main():
    name, runs = sys.argv[1], int(sys.argv[2])
    factory, shape = export_models.MODELS[name]
    torch.manual_seed(0)
    model = factory().eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    bf16 = len(sys.argv) > 4 and sys.argv[4] == "bf16"
    with torch.no_grad():
        if bf16:
            frozen = model.to(torch.bfloat16)
            x = x.to(torch.bfloat16)
            if x.dim() == 4:
                frozen = frozen.to(memory_format=torch.channels_last)
                x = x.contiguous(memory_format=torch.channels_last)
        else:
            traced = torch.jit.trace(model, (x,))
            frozen = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
        for _ in range(3):
            frozen(x)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            frozen(x)
            times.append((time.perf_counter() - t0) * 1e6)
    times.sort()
    p99 = times[min(len(times) - 1, -(-len(times) * 99 // 100) - 1)]
    rss = peak_rss()
    print(json.dumps({"median_us": times[len(times) // 2], "p99_us": p99, "rss_bytes": rss}))


if __name__ == "__main__":
    main()
