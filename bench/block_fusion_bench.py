#!/usr/bin/python3
"""Inverted-residual block fusion: onnxc with and without it, beside ONNX Runtime.

Each model compiled by onnxc for --target (default: run_bench's native x86 target) as
it is (each block's expand, depthwise and project convolutions in one kernel,
simd.BlockedInvertedResidual, or expand and depthwise where a squeeze-and-excite stands
before the project: simd.BlockedExpandDepthwise) and with --no-block-fusion (a kernel a
convolution, the expanded and depthwise tensors in the arena), linked with
onnxc_bench_main.cpp, and ORT 1.30 (onnxruntime-node, all graph optimisations) on the same
model; --threads threads each (default one: onnxc on a ThreadPool, ORT's intra-op
threads), batch 1; the three alternate for
--rounds rounds of --runs inferences a process; best and median of the per-round
medians, ms (run_bench.alternate). Also each build's arena (the generated header's
m_ARENA_SIZE) and how far apart `onnxc run`'s outputs are both ways: byte-identical where
only convolutions fuse (the fused kernels call the convolutions' own tile code, so they
must), a rounding apart where a squeeze-and-excite scale folds into the project
convolution (simd.BlockedScaledConv: (w s) x against w (x s)); the largest difference
relative to the largest output.

  /usr/bin/python3 block_fusion_bench.py mobilenet_v2 efficientnet_b0
"""
import argparse
import filecmp
import os
import re
import subprocess
import tempfile

import run_bench  # first: it puts test/models on the path


HERE = os.path.dirname(os.path.abspath(__file__))


def arena_bytes(work):
    with open(os.path.join(work, "m.h")) as f:
        return int(re.search(r"#define m_ARENA_SIZE (\d+)", f.read()).group(1))


def output_difference(onnxc, model, inputs, target):
    """'identical' where `onnxc run` writes byte-identical outputs with and without
    fusion, else the largest difference over the largest output, as text."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    with tempfile.TemporaryDirectory() as tmp:
        outs = []
        for extra in ([], ["--no-block-fusion"]):
            out = os.path.join(tmp, f"out{len(outs)}")
            subprocess.run([onnxc, "run", model, "--inputs", inputs, "--outputs", out,
                            "--target", target, "--quiet", *extra], check=True)
            outs.append(out)
        names = sorted(os.listdir(outs[0]))
        if all(filecmp.cmp(os.path.join(outs[0], n), os.path.join(outs[1], n), shallow=False)
               for n in names):
            return "identical"
        worst = 0.0
        for n in names:
            a, b = (numpy_helper.to_array(onnx.load_tensor(os.path.join(o, n))).astype(np.float64)
                    for o in outs)
            worst = max(worst, float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30)))
        return f"{worst:.1e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", default=["mobilenet_v2", "efficientnet_b0"])
    ap.add_argument("--onnxc", default=os.path.join(run_bench.ROOT, "build", "compiler", "tools",
                                                      "onnxc"))
    ap.add_argument("--target", default=None)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", default=os.path.join(run_bench.ROOT, "build", "bench"))
    args = ap.parse_args()
    target = args.target or run_bench.native_target()
    threads = "one thread" if args.threads == 1 else f"{args.threads} threads"
    print(f"Machine: {run_bench.machine_text()}; onnxc --target {target}; {threads}, batch 1; "
          f"best (median) of {args.rounds} alternating rounds, ms.\n")
    print("| model | onnxc fused | onnxc --no-block-fusion | ORT | unfused / fused | ORT / fused "
          "| ORT / unfused | arena MB fused / unfused | outputs apart |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name in args.models:
        model_dir, model, x, inp = run_bench.prepare_model(name, args.work)
        peers, arena = {}, {}
        for peer, extra in (("fused", []), ("unfused", ["--no-block-fusion"])):
            work = os.path.join(args.work, name, f"block-{peer}")
            exe = run_bench.build_onnxc(args.onnxc, model_dir, work, target, args.threads,
                                        extra=extra)
            peers[peer] = [exe, inp, str(args.runs)]
            arena[peer] = arena_bytes(work) / 2**20
        peers["ORT"] = ["node", os.path.join(HERE, "ort_bench.js"), model, inp,
                        "x".join(map(str, x.shape)), str(args.runs), str(args.threads)]
        timed = run_bench.alternate(peers, args.rounds, args.threads)
        best = {p: t[0] for p, t in timed.items()}
        apart = output_difference(args.onnxc, model, os.path.join(model_dir, "test_data_set_0"),
                                  target)
        cells = [f"{best[p]:.3f} ({timed[p][1]:.3f})" for p in peers]
        print(f"| {name} | " + " | ".join(cells) +
              f" | {best['unfused'] / best['fused']:.2f} | {best['ORT'] / best['fused']:.2f} "
              f"| {best['ORT'] / best['unfused']:.2f} "
              f"| {arena['fused']:.1f} / {arena['unfused']:.1f} | {apart} |",
              flush=True)


if __name__ == "__main__":
    main()
