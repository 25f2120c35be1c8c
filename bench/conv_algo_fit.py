#!/usr/bin/python3
"""Fits the x86 targets' convolution algorithm choice to this host's times.

A 3x3 stride-1 dense convolution on the channel-blocked layout runs direct,
as Winograd F(4x4, 3x3) or as F(2x2, 3x3); runtime-lite's
simd/f32/winograd_plan.h chooses (winograd_tile) by a rule with four numbers:
F(4x4) where the output has at least kWinogradMinTiles 4x4 tiles and its
transformed weights (36 floats a channel pair) fit kWinogradCachedBytes,
or, where they do not, at least the target's streamed tiles
(SimdTarget::winogradStreamedTiles); else F(2x2) (AVX-512 only) where it
has at least SimdTarget::winogradSmallTiles 2x2 tiles; else direct. This
tool measures those three algorithms and Winograd F(6x6, 3x3) (which no
rule picks yet: the table shows where it
would win) on a grid of shapes (bench/conv_algo_bench.cpp, built with the
target's flags: median of calls whose weights are not in cache, as a
large model's layers find them, or with --cached of calls on weights kept
in cache, as a small model's stay between inferences; the rule is meant
for both, F(4x4)'s cached bytes being where one regime gives way to the
other), then searches the four numbers for the rule
that loses the least time against the fastest algorithm of each shape,
and fits a cost model (per algorithm, time linear in its multiply-adds,
weight bytes and values transformed), and prints, side by side, what the
shipped numbers, the fitted ones and the cost model (each shape's choice
from the model fitted without it) choose, each algorithm's error against a
double-precision convolution, and the time each loses against the fastest.
Run it on each host class (Intel, AMD) and compare before changing the
numbers; --table refits a grid already written (another host's results
file) under the shipped numbers of this checkout, without measuring.

    /usr/bin/python3 bench/conv_algo_fit.py [--target x86-64-avx512] [--stem conv-algo-intel]
        [--rounds 3] [--cached] [--shapes C,M,HW ...] [--table results/FILE.md]
"""
import argparse
import datetime
import itertools
import math
import statistics
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_bench  # noqa: E402

# ResNet-18's, the CIFAR CNN's and SqueezeNet's 3x3 layers and the planes
# and widths around them: C = M from 32 to 512, planes 7 to 56.
GRID = [f"{c},{c},{hw}" for c in (32, 64, 128, 256, 512) for hw in (7, 10, 14, 20, 28, 56)
        if c * c * hw * hw <= 512 * 512 * 28 * 28] + ["64,128,28", "128,256,14", "256,512,7"]

# The algorithms conv_algo_bench times, in its column order: 0 direct, else
# Winograd F(k x k, 3x3).
ALGOS = (0, 4, 2, 6)

# The shipped numbers (simd/f32/blocking.h, targets/x86-64/X86Target.cpp):
# min tiles, cached bytes, streamed tiles, F(2x2)'s tiles (0: never).
SHIPPED = {"x86-64": (4, 4 << 20, 4, 0)}
AVX512 = (4, 4 << 20, 25, 16)


def tiles(hw, tile):
    return math.ceil(hw / tile) ** 2


def choose(c, m, hw, rule):
    """winograd_tile's choice for a C -> M, HW x HW layer under `rule`
    (min_tiles, cached_bytes, streamed_tiles, small_tiles): 4, 2 or 0."""
    min_tiles, cached, streamed, small = rule
    streamed_f4 = 36 * c * m * 4 > cached
    if tiles(hw, 4) >= (streamed if streamed_f4 else min_tiles):
        return 4
    if small and streamed_f4 and tiles(hw, 2) >= small:
        return 2
    return 0


def features(c, m, hw, algo):
    """A layer's work under an algorithm (0 direct, 4 or 2: F(algo x algo,
    3x3)): multiply-adds, weight bytes read, values transformed (input and
    output tiles' points; for direct, the input and output), and 1."""
    if algo == 0:
        return [m * c * 9 * hw * hw, m * c * 9 * 4, (c + m) * hw * hw, 1.0]
    points, t = (algo + 2) ** 2, tiles(hw, algo)
    return [m * c * points * t, m * c * points * 4, (c + m) * points * t, 1.0]


def fit_costs(rows):
    """Per algorithm, non-negative coefficients of features() that predict
    its time, least squares relative to the time (numpy)."""
    import numpy as np
    coef = {}
    for algo in ALGOS:
        a = np.array([features(r["c"], r["m"], r["hw"], algo) for r in rows], dtype=float)
        t = np.array([r["ms"][algo] for r in rows])
        a, t = a / t[:, None], np.ones_like(t)
        scale = a.max(axis=0)
        x = np.zeros(a.shape[1])
        active = list(range(a.shape[1]))
        while active:  # drop the most negative coefficient until none is
            sol, *_ = np.linalg.lstsq(a[:, active] / scale[active], t, rcond=None)
            if (sol >= 0).all():
                x[:] = 0
                x[active] = sol / scale[active]
                break
            active.pop(int(np.argmin(sol)))
        coef[algo] = x
    return coef


def cost_choice(c, m, hw, coef):
    """The algorithm the fitted cost model predicts fastest."""
    return min(coef, key=lambda algo: sum(k * f for k, f in zip(coef[algo],
                                                                features(c, m, hw, algo))))


def loo_choices(rows):
    """Each shape's cost-model choice, the model fitted without that shape."""
    return [cost_choice(r["c"], r["m"], r["hw"], fit_costs(rows[:i] + rows[i + 1:]))
            for i, r in enumerate(rows)]


def lost(rows, rule):
    """The rule's time over the fastest algorithm's, summed over the shapes."""
    return sum(r["ms"][choose(r["c"], r["m"], r["hw"], rule)] for r in rows) / \
        sum(min(r["ms"].values()) for r in rows)


def measure(a):
    """conv_algo_bench's output lines for each shape of the grid, a round each."""
    runs = {}  # shape -> each round's line
    with tempfile.TemporaryDirectory() as work:
        exe = os.path.join(work, "conv_algo_bench")
        subprocess.run(["c++", "-std=c++17", *run_bench.target_flags(a.onnxc, a.target),
                        "-ffp-contract=off", "-I" + os.path.join(ROOT, "runtime-lite", "include"),
                        os.path.join(HERE, "conv_algo_bench.cpp"), "-o", exe], check=True)
        for _ in range(a.rounds):  # whole grids in turn, so a noisy minute hits one round
            for shape in a.shapes:
                out = subprocess.run(["taskset", "-c", "1", exe]
                                     + (["--cached"] if a.cached else []) + [shape],
                                     capture_output=True, text=True, check=True).stdout.split()
                runs.setdefault(shape, []).append(out)
                print(shape, *out[3:3 + len(ALGOS)], file=sys.stderr)
    return runs


def read_table(path):
    """A results file's grid as measure() returns it: one round a shape."""
    runs = {}
    for line in open(path):
        cells = [x.strip() for x in line.strip().strip("|").split("|")]
        shape = re.fullmatch(r"(\d+) -> (\d+) @ (\d+)", cells[0])
        if shape:
            errs = cells[-1].split(" / ")
            runs[",".join(shape.groups())] = [[*shape.groups(), *cells[1:1 + len(ALGOS)], *errs]]
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "compiler", "tools", "onnxc"))
    ap.add_argument("--target", default=run_bench.native_target())
    ap.add_argument("--stem", default=None, help="write results/STEM.md")
    ap.add_argument("--shapes", nargs="*", default=GRID)
    ap.add_argument("--rounds", type=int, default=3, help="the median of this many grids")
    ap.add_argument("--cached", action="store_true",
                    help="time each layer on one copy of its weights, cached between calls (as "
                         "a small model's stay between inferences), not streamed")
    ap.add_argument("--table", default=None, metavar="FILE",
                    help="refit the grid of a results file this tool wrote, not measuring")
    a = ap.parse_args()
    shipped = SHIPPED.get(a.target, AVX512)
    runs = read_table(a.table) if a.table else measure(a)
    rows = []
    for shape, outs in runs.items():
        c, m, hw = map(int, outs[0][:3])
        ms = {algo: statistics.median(float(o[3 + i]) for o in outs)
              for i, algo in enumerate(ALGOS)}
        err = dict(zip(ALGOS, map(float, outs[0][3 + len(ALGOS):3 + 2 * len(ALGOS)])))
        rows.append({"c": c, "m": m, "hw": hw, "ms": ms, "err": err})
    # The search: every rule of the grid below, the least time lost; ties
    # go to the rule nearest the shipped one.
    best = None
    for min_tiles, cached_mb, streamed, small in itertools.product(
            (1, 2, 4, 6, 9, 16), (1, 2, 4, 8, 16, 32), (4, 9, 16, 25, 36, 49, 64, 100),
            (4, 9, 16, 25, 36) if shipped[3] else (0,)):
        rule = (min_tiles, cached_mb << 20, streamed, small)
        key = (round(lost(rows, rule), 4), sum(x != y for x, y in zip(rule, shipped)))
        if best is None or key < best[0]:
            best = (key, rule)
    fitted = best[1]
    loo = loo_choices(rows)
    names = {0: "direct", 4: "F(4x4)", 2: "F(2x2)", 6: "F(6x6)"}
    about = [
        f"Machine: {run_bench.machine_text()}; one thread; onnxc "
        f"--target {a.target} flags. Each 3x3 stride-1 convolution (C -> M channels, HW x HW, "
        "padding 1, blocked input) as direct, Winograd F(4x4, 3x3), F(2x2, 3x3) and F(6x6, 3x3): "
        "median ms of "
        + ("calls on one copy of its packed weights, cached between calls "
           if a.cached else "calls rotating over copies of its packed weights that fill ~100 MB ")
        + f"(bench/conv_algo_bench.cpp), the median of {a.rounds} rounds of the grid; error: the "
        "largest difference from a double-precision "
        "convolution at 512 sampled outputs, over the largest of them (inputs in [-1, 1], "
        "weights scaled by 1/sqrt(9C)).",
        f"Command: `/usr/bin/python3 bench/conv_algo_fit.py --target {a.target}"
        + (" --cached" if a.cached else "") + (f" --stem {a.stem}" if a.stem else "")
        + f"` ({datetime.date.today()}).",
    ]
    if a.table:  # the measuring run's own lines, and this refit's
        about = [line.rstrip("\n") for line in open(a.table)
                 if line.startswith(("Machine:", "Command:"))] + [
            f"Refitted by `/usr/bin/python3 bench/conv_algo_fit.py --target {a.target} --table "
            f"{os.path.relpath(a.table, ROOT)}" + (f" --stem {a.stem}" if a.stem else "")
            + f"` ({datetime.date.today()}): that run's times, this checkout's shipped rule."]
    lines = ["# Convolution algorithm choice: measured and fitted", "", *about, "",
             "| C -> M @ HW | direct ms | F(4x4) ms | F(2x2) ms | F(6x6) ms | fastest "
             "| shipped rule | fitted rule | cost model "
             "| error direct / F(4x4) / F(2x2) / F(6x6) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r, model_pick in zip(rows, loo):
        ms, fast = r["ms"], min(r["ms"], key=r["ms"].get)
        pick = [choose(r["c"], r["m"], r["hw"], rule) for rule in (shipped, fitted)] + [model_pick]
        cell = [names[p] + ("" if p == fast else f" ({ms[p] / ms[fast]:.2f}x)") for p in pick]
        lines.append(f"| {r['c']} -> {r['m']} @ {r['hw']} | {ms[0]:.3f} | {ms[4]:.3f} | "
                     f"{ms[2]:.3f} | {ms[6]:.3f} | {names[fast]} | {cell[0]} | {cell[1]} | "
                     f"{cell[2]} | " + " / ".join(f"{r['err'][x]:.1e}" for x in ALGOS) + " |")

    def describe(rule):
        return (f"min tiles {rule[0]}, cached {rule[1] >> 20} MB, streamed tiles {rule[2]}"
                + (f", F(2x2) from {rule[3]} tiles" if rule[3] else ""))
    model_hits = sum(p == min(r["ms"], key=r["ms"].get) for r, p in zip(rows, loo))
    model_lost = sum(r["ms"][p] for r, p in zip(rows, loo)) / sum(min(r["ms"].values())
                                                                  for r in rows)
    hits = [sum(choose(r["c"], r["m"], r["hw"], rule) == min(r["ms"], key=r["ms"].get)
                for r in rows) for rule in (shipped, fitted)]
    lines += [
        "",
        f"Shipped rule ({describe(shipped)}): the fastest algorithm on {hits[0]} of {len(rows)} "
        f"shapes, time {lost(rows, shipped):.3f}x the fastest's over the grid.",
        f"Fitted rule ({describe(fitted)}): {hits[1]} of {len(rows)}, "
        f"{lost(rows, fitted):.3f}x.",
        f"Cost model (per algorithm, time = a x multiply-adds + b x weight bytes + c x values "
        f"transformed + d, fitted by non-negative least squares relative to the time; each "
        f"shape's choice from the model fitted without it): {model_hits} of {len(rows)}, "
        f"{model_lost:.3f}x.",
        f"Largest error over the grid: direct {max(r['err'][0] for r in rows):.1e}, "
        f"F(4x4) {max(r['err'][4] for r in rows):.1e}, "
        f"F(2x2) {max(r['err'][2] for r in rows):.1e}, "
        f"F(6x6) {max(r['err'][6] for r in rows):.1e}.",
    ]
    # F(6x6) against the best of the other three, shape by shape.
    gains = sorted(((min(v for k, v in r["ms"].items() if k != 6) / r["ms"][6], r)
                    for r in rows), key=lambda gr: gr[0])
    wins = [(g, r) for g, r in gains if g > 1]
    lines.append(f"F(6x6) fastest on {len(wins)} of {len(rows)} shapes" + (
        ": " + ", ".join(f"{r['c']} -> {r['m']} @ {r['hw']} by {g:.2f}x" for g, r in wins[::-1])
        if wins else "") + f"; at best {gains[-1][0]:.2f}x the others' fastest, at worst "
        f"{gains[0][0]:.2f}x.")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.stem:
        with open(os.path.join(HERE, "results", a.stem + ".md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
