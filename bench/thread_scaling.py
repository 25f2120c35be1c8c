#!/usr/bin/python3
"""Two-thread scaling: each model's latency at one thread and at --threads N
(default 2), onnxc float and int8 beside ONNX Runtime float and int8 (U8S8,
its x86 form), all eight builds alternating in one run; writes
results/threads-scaling.md (or --stem's) with each peer's speed-up and the
onnxc / ORT ratios at N threads.

    cd bench && /usr/bin/python3 thread_scaling.py [--threads 2] [--rounds 5] [MODELS...]

The models, their inputs and the int8 QDQ files are run_bench.py's (its
export and `onnxc --quantize int8 --emit qdq-onnx`, calibrated on the test
input); each peer runs in its own process, best of its rounds' medians.
core_pair.cpp runs before the first round and after the last: what passing
data between CPUs 0 and 1 cost while the table was measured (on a shared
host it changes with where the two vCPUs sit, and two-thread times with it).
One thread runs pinned to the fastest CPU (run_bench.choose_cpus), and each
CPU's one-thread time bounds what N threads can give on this host.
"""
import argparse
import json
import os
import subprocess
import time

import run_bench as rb
import qdq_u8s8


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", default=rb.MODELS)
    ap.add_argument("--onnxc", default=os.path.join(rb.ROOT, "build", "compiler", "tools",
                                                    "onnxc"))
    ap.add_argument("--target", default=None)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0, help="time per peer per round")
    ap.add_argument("--work", default=os.path.join(rb.ROOT, "build", "bench"))
    ap.add_argument("--stem", default="threads-scaling")
    args = ap.parse_args()
    args.target = args.target or rb.native_target()
    n = args.threads
    rows = []
    pair_exe = build_core_pair(args.work)
    pairs = [run_core_pair(pair_exe)]
    print("core pair before:", pairs[0], flush=True)
    for name in args.models:
        model_dir, model, x, inp = rb.prepare_model(name, args.work)
        shape = "x".join(map(str, x.shape))
        work = os.path.join(args.work, "scaling", name)
        qdq = rb.quantize_qdq(args.onnxc, model_dir, os.path.join(work, "int8"))
        u8s8 = os.path.join(work, "int8", "q.u8s8.onnx")
        qdq_u8s8.save_u8s8(qdq, u8s8)
        peers = {}
        for th in (1, n):
            fexe = rb.build_onnxc(args.onnxc, model_dir, os.path.join(work, f"float-t{th}"),
                                  args.target, th)
            qexe = rb.build_onnxc(args.onnxc, model_dir, os.path.join(work, f"int8-t{th}"),
                                  args.target, th, model_file=qdq)
            ort = ["node", os.path.join(rb.HERE, "ort_bench.js")]
            peers[("onnxc float", th)] = lambda r, e=fexe: [e, inp, str(r)]
            peers[("onnxc int8", th)] = lambda r, e=qexe: [e, inp, str(r)]
            peers[("ORT float", th)] = lambda r, t=th: ort + [model, inp, shape, str(r), str(t)]
            peers[("ORT int8", th)] = lambda r, t=th: ort + [u8s8, inp, shape, str(r), str(t)]
        # One thread on the CPU where onnxc float runs fastest, N threads on N CPUs
        # (run_bench.choose_cpus); each CPU's one-thread time gives the ceiling
        # of N threads' speed-up on this host: the sum of their speeds over the
        # fastest's.
        cpu1, probe = rb.choose_cpus(peers[("onnxc float", 1)], 1)
        cpus_n, _ = rb.choose_cpus(None, n)
        used = (sorted(os.sched_getaffinity(0)) if cpus_n is None
                else [int(c) for c in cpus_n.split(",")])[:n]
        ceiling = (sum(min(probe.values()) / probe[c] for c in used)
                   if all(c in probe for c in used) else None)
        peers = {key: rb.pinned(cmd, cpu1 if key[1] == 1 else cpus_n)
                 for key, cmd in peers.items()}
        runs = {key: rb.runs_for(cmd, args.seconds) for key, cmd in peers.items()}
        best = {k: float("inf") for k in peers}
        for _ in range(args.rounds):
            for key, cmd in peers.items():
                best[key] = min(best[key], rb.run_json(cmd(runs[key]))["median_us"])
        rows.append((name, best, probe, ceiling))
        print(name, {f"{k[0]} t{k[1]}": round(v / 1e3, 3) for k, v in best.items()}, flush=True)
    pairs.append(run_core_pair(pair_exe))
    print("core pair after:", pairs[1], flush=True)
    write(rows, args, pairs)


def build_core_pair(work):
    os.makedirs(work, exist_ok=True)
    exe = os.path.join(work, "core_pair")
    subprocess.run(["c++", "-std=c++17", "-O3", "-march=native", "-pthread",
                    "-I" + os.path.join(rb.ROOT, "runtime-lite", "include"),
                    os.path.join(rb.HERE, "core_pair.cpp"), "-o", exe], check=True)
    return exe


def run_core_pair(exe):
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def core_pair_text(pairs):
    keys = ["round_trip_ns", "remote_read_us", "local_read_us", "join_us"]
    b, a = ([p[k] for k in keys] for p in pairs)
    return ("CPUs 0 and 1 (core_pair.cpp), before the first round / after the last: a cache "
            f"line's round trip {b[0]:.0f} / {a[0]:.0f} ns; 256 KB the other CPU has just "
            f"written read in {b[1]:.1f} / {a[1]:.1f} us, against {b[2]:.1f} / {a[2]:.1f} us "
            f"from the reader's own cache; a ThreadPool join of two busy tasks {b[3]:.2f} / "
            f"{a[3]:.2f} us.")


def write(rows, args, pairs):
    n = args.threads
    kinds = ["onnxc float", "ORT float", "onnxc int8", "ORT int8"]
    lines = [
        f"# Thread scaling: one thread and {n}, onnxc beside ONNX Runtime", "",
        f"Machine: {rb.machine_text()}; batch 1. onnxc --target {args.target} "
        f"(`{' '.join(rb.target_flags(args.onnxc, args.target))}`), --threads 1 and {n} on a "
        f"runtime-lite ThreadPool; int8: `onnxc --quantize int8 --emit qdq-onnx` (MinMax, "
        "calibrated on the test input) compiled by onnxc, and ONNX Runtime 1.30 (graph "
        "optimisations all) on the same model with uint8 activations (U8S8, its x86 form); "
        f"ORT with 1 and {n} intra-op threads. All eight builds alternate; best of "
        f"{args.rounds} rounds' medians, ms. {core_pair_text(pairs)} One thread pinned "
        "(taskset) to the CPU where onnxc float's one-thread build probed fastest just before "
        "the model's rounds; the probe's times by CPU are in the table, and the ceiling is "
        f"what {n} threads could give at most over that CPU alone: the {n} CPUs' speeds "
        "summed over the fastest's (the host's CPUs differ when neighbours load them).",
        f"Command: `cd bench && /usr/bin/python3 thread_scaling.py --threads {n}` "
        f"({time.strftime('%Y-%m-%d')}).", "",
        "| model | " + " | ".join(f"{k} 1 / {n}" for k in kinds) + " | "
        + " | ".join(f"{k} x{n}" for k in kinds)
        + f" | ORT / onnxc float, {n} threads | ORT / onnxc int8, {n} threads"
        + f" | onnxc float 1 thread by CPU | ceiling x{n} |",
        "|---|" + "---|" * (2 * len(kinds) + 4)]
    speedups = {k: [] for k in kinds}
    ratios = [[], []]
    for name, best, probe, ceiling in rows:
        ms = [f"{best[(k, 1)] / 1e3:.3f} / {best[(k, n)] / 1e3:.3f}" for k in kinds]
        sp = []
        for k in kinds:
            s = best[(k, 1)] / best[(k, n)]
            speedups[k].append(s)
            sp.append(f"{s:.2f}")
        rf = best[("ORT float", n)] / best[("onnxc float", n)]
        ri = best[("ORT int8", n)] / best[("onnxc int8", n)]
        ratios[0].append(rf)
        ratios[1].append(ri)
        by_cpu = " / ".join(f"{c}: {t:.3f}" for c, t in probe.items()) or "-"
        ceil = f"{ceiling:.2f}" if ceiling else "-"
        lines.append(f"| {name} | " + " | ".join(ms) + " | " + " | ".join(sp)
                     + f" | {rf:.2f} | {ri:.2f} | {by_cpu} | {ceil} |")
    lines += ["", "Geometric means: speed-up at " + str(n) + " threads "
              + ", ".join(f"{k} {rb.geomean(v):.2f}" for k, v in speedups.items())
              + f"; ORT / onnxc at {n} threads: float {rb.geomean(ratios[0]):.2f}, "
              f"int8 {rb.geomean(ratios[1]):.2f}."]
    os.makedirs(os.path.join(rb.HERE, "results"), exist_ok=True)
    with open(os.path.join(rb.HERE, "results", args.stem + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
