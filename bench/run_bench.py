#!/usr/bin/python3
"""Model benchmark: onnxc vs ONNX Runtime 1.30 vs PyTorch, side by side.

For each model of the e2e set (batch 1): onnxc compiles it for --target
(by default the widest x86 target this CPU runs: x86-64-amx with AMX,
x86-64-vnni with AVX512-VNNI, x86-64-avx512 with AVX-512, as ONNX Runtime's
MLAS picks its kernels there, else x86-64) into a static library linked with onnxc_bench_main.cpp;
ONNX Runtime runs it through onnxruntime-node (one intra-op thread, all graph
optimisations); PyTorch runs it traced, frozen and optimize_for_inference'd on
one thread. --threads N gives every peer N threads instead (onnxc --threads N
on a runtime-lite ThreadPool, ORT's intra-op threads, torch.set_num_threads)
and writes results/models-Nthreads.*. Each peer runs in its own process, the three alternate for
--rounds rounds, and the median of the per-round medians is reported with
the worst p99 and the peak RSS, and onnxc's share of the core's float peak (the
model's FLOPs from onnxc's compile summary over its latency, against peak_flops.cpp's
measured FMA throughput; with --int8 its multiply-adds against the int8 dot products'
peak). Writes results/models.md and results/models.svg
(--stem NAME: results/NAME.*, e.g. models-intel for a second host class).

    cd bench && npm install --ignore-scripts && /usr/bin/python3 run_bench.py

--baseline CHECKOUT adds the onnxc of another checkout (built in
CHECKOUT/build) as a fourth peer and writes results/models-vs-baseline.*;
with --int8 it compiles the same QDQ files as onnxc
(results/models-int8-vs-baseline.md), so an int8 change can be A/B'd.

Every peer of a model runs on the same CPU (--cpus auto: at one thread the
one where onnxc's build probes fastest; choose_cpus), since a shared host's
vCPUs can differ by a third in speed and an unpinned process lands on either.

Needs a built onnxc (../build). Latencies are wall-clock on this machine.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
import export_models  # noqa: E402
import qdq_u8s8  # noqa: E402
from onnx_tensors import load_tensor  # noqa: E402

MODELS = ["cifar_cnn", "resnet18", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0",
          "shufflenet_v2", "transformer_encoder"]
# The e2e models onnxc quantizes (quant_parity.py): all but the recurrent ones.
INT8_MODELS = MODELS


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def target_flags(onnxc, target):
    """-O3 and the flags TARGET's code requires (onnxc --print-target-flags; an
    onnxc from before that option, as a --baseline may be: its -march)."""
    out = subprocess.run([onnxc, "--print-target-flags", "--target", target],
                         capture_output=True, text=True)
    if out.returncode == 0:
        return ["-O3"] + out.stdout.split()
    return ["-O3", "-march=x86-64-v4" if target == "x86-64-avx512" else "-march=x86-64-v3"]


def io_bytes(model_file):
    """The bytes of each float32 input (initializers aside) and output."""
    import onnx
    g = onnx.load(model_file, load_external_data=False).graph
    inits = {t.name for t in g.initializer}

    def nbytes(vi):
        n = 4
        for d in vi.type.tensor_type.shape.dim:
            n *= d.dim_value
        return n
    return ([nbytes(v) for v in g.input if v.name not in inits],
            [nbytes(v) for v in g.output])


def build_onnxc(onnxc, model_dir, work, target, threads=1, root=ROOT, model_file=None,
                extra=()):
    """A benchmark executable of MODEL_DIR/model.onnx (or MODEL_FILE); `extra`:
    more onnxc flags (--precision bf16)."""
    model_file = model_file or os.path.join(model_dir, "model.onnx")
    os.makedirs(work, exist_ok=True)
    subprocess.run([onnxc, model_file, "-o", work, "--name", "m",
                    "--target", target, "--threads", str(threads), "--emit", "lib", "--quiet",
                    *extra], check=True)
    ins, outs = io_bytes(model_file)
    with open(os.path.join(work, "bench_config.h"), "w") as f:
        f.write('#include "m.h"\n#include <stddef.h>\n')
        f.write(f"static const size_t kInputBytes[] = {{{', '.join(map(str, ins))}}};\n")
        f.write(f"static const size_t kOutputBytes[] = {{{', '.join(map(str, outs))}}};\n")
        f.write(f"#define ARENA_SIZE m_ARENA_SIZE\n#define RUN_V_ON m_run_v_on\n"
                f"#define THREADS {threads}\n")
    exe = os.path.join(work, "bench")
    flags = target_flags(onnxc, target) + ["-pthread"]
    subprocess.run(["c++", "-std=c++17", *flags, "-I" + work,
                    "-I" + os.path.join(root, "runtime-lite", "include"),
                    '-DMODEL_HEADER="bench_config.h"', os.path.join(HERE, "onnxc_bench_main.cpp"),
                    os.path.join(work, "libm.a"), "-o", exe], check=True)
    return exe


def model_flops(onnxc, model_file, target):
    """onnxc's count of MODEL_FILE's FLOPs a run for TARGET (its compile summary: 2 per
    multiply-add, one per element of the other ops)."""
    import re
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([onnxc, model_file, "-o", tmp, "--name", "m", "--target", target,
                              "--emit", "cpp"], check=True, capture_output=True, text=True).stdout
    return int(re.search(r"compute\s+(\d+) FLOPs per run", out).group(1))


def measure_peaks(onnxc, target, threads, work, int8=False):
    """The float multiply-add peak of `threads` cores with TARGET's vectors, measured
    (peak_flops.cpp: independent FMA chains, best of 3 rounds), in GFLOP/s, and with
    `int8` the int8 multiply-add peak of its byte dot products (VecI::dot_u8s8), in GMAC/s
    (else None)."""
    exe = os.path.join(work, f"peak_flops_{target}")
    subprocess.run(["c++", "-std=c++17", *target_flags(onnxc, target), "-pthread",
                    "-I" + os.path.join(ROOT, "runtime-lite", "include"),
                    os.path.join(HERE, "peak_flops.cpp"), "-o", exe], check=True)
    gflops = run_json([exe, str(threads)])["gflops"]
    return gflops, run_json([exe, str(threads), "int8"])["gmacs"] if int8 else None


def prepare_model(name, work):
    """The e2e model NAME (op13) under WORK/models, exported if missing, and its test
    input as raw float32 at WORK/NAME.bin (what the bench executables read):
    (model_dir, model file, input tensor, input .bin)."""
    model_dir = os.path.join(work, "models", f"{name}_op13")
    model = os.path.join(model_dir, "model.onnx")
    if not os.path.exists(model):
        export_models.export(name, 13, os.path.join(work, "models"))
    x = load_tensor(os.path.join(model_dir, "test_data_set_0", "input_0.pb"))
    inp = os.path.join(work, f"{name}.bin")
    x.astype("float32").tofile(inp)
    return model_dir, model, x, inp


def pinned(cmd, cpus):
    """cmd (runs -> argv) run by taskset on CPUS (a taskset list); None: as it is."""
    return cmd if cpus is None else (lambda n: ["taskset", "-c", cpus, *cmd(n)])


def choose_cpus(cmd, threads, seconds=0.3):
    """Where a model's peers all run (a taskset list, or None for anywhere), and
    {CPU: ms} of the probe that chose it. On a shared host a vCPU's speed depends
    on what its neighbours run (the Zen 5 host's CPU 1 has run the models 13-33%
    slower than CPU 0), and the scheduler places each process anew, so unpinned
    peers land on a fast or a slow CPU by chance. One thread: every peer on the
    CPU where cmd (onnxc's build) ran fastest, best of 2 alternating probes on
    each (the first 16 CPUs). N threads: the first N CPUs, or all of them."""
    allowed = sorted(os.sched_getaffinity(0))
    if threads >= len(allowed):
        return None, {}
    if threads > 1:
        return ",".join(map(str, allowed[:threads])), {}
    runs = runs_for(cmd, seconds)
    return fastest_cpu(lambda c: run_json(pinned(cmd, c)(runs))["median_us"] / 1e3)


def fastest_cpu(time_on):
    """The CPU (of the first 16 this process may use) where time_on(cpu) is
    least, best of 2 alternating calls on each, and {CPU: best time}."""
    cpus = sorted(os.sched_getaffinity(0))[:16]
    times = {c: float("inf") for c in cpus}
    for _ in range(2):
        for c in cpus:
            times[c] = min(times[c], time_on(str(c)))
    return str(min(cpus, key=times.get)), times


def pinning_text(rows):
    """A sentence on where each model's peers ran (rows carry "cpus" and "probe")."""
    if all(r["cpus"] is None for r in rows):
        return "Not pinned: the peers' processes ran where the scheduler put them."
    parts = []
    for r in rows:
        probe = r["probe"]
        seen = ", ".join(f"CPU {c} {ms:.3f}" for c, ms in probe.items())
        parts.append(f"{r['model']} CPU {r['cpus']}" + (f" ({seen})" if probe else ""))
    return ("Pinned (taskset): every peer of a model on the same CPUs, at one thread the one "
            "where onnxc's build ran fastest in a probe just before its rounds (ms): "
            + "; ".join(parts) + ".")


def runs_for(cmd, seconds):
    """Runs per process for a peer's command (cmd(runs) -> argv) so that one
    round takes about `seconds`, from a short probe."""
    probe = run_json(cmd(3))
    return max(3, min(500, int(seconds * 1e6 / max(probe["median_us"], 1))))


def alternate(peers, rounds, threads=1):
    """Runs each peer's command (a bench JSON printer) in turn, `rounds` times,
    all on the same CPUs (choose_cpus, probed with the first peer's command);
    returns {peer: (best, median)} of the per-round medians, ms. The best is
    the figure to read on a shared host whose neighbours slow programs in
    bursts (a burst only ever slows)."""
    first = next(iter(peers.values()))
    cpus, _ = choose_cpus(lambda n: first, threads)
    peers = {p: pinned(lambda n, c=cmd: c, cpus)(0) for p, cmd in peers.items()}
    meds = {p: [] for p in peers}
    for _ in range(rounds):
        for p, cmd in peers.items():
            meds[p].append(run_json(cmd)["median_us"] / 1e3)
    return {p: (min(v), sorted(v)[len(v) // 2]) for p, v in meds.items()}


def quantize_qdq(onnxc, model_dir, work):
    """MODEL_DIR's model quantized by onnxc (MinMax, calibrated on its own test
    input) as a QDQ ONNX file: the int8 model both onnxc and ORT run."""
    cal = os.path.join(work, "calibration", "s0")
    os.makedirs(cal, exist_ok=True)
    subprocess.run(["cp", os.path.join(model_dir, "test_data_set_0", "input_0.pb"), cal],
                   check=True)
    subprocess.run([onnxc, os.path.join(model_dir, "model.onnx"), "-o", work, "--name", "q",
                    "--quantize", "int8", "--calibration", os.path.dirname(cal),
                    "--emit", "qdq-onnx", "--quiet"], check=True)
    return os.path.join(work, "q.qdq.onnx")


def native_target():
    """x86-64-amx, x86-64-vbmi, x86-64-vnni or x86-64-avx512 where this CPU
    has the extensions they need (ONNX Runtime's MLAS uses AMX there too),
    else x86-64: onnxc's `native`."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags")), [])
    except OSError:
        flags = []
    wanted = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}
    if wanted <= set(flags):
        if "avx512_vnni" not in flags:
            return "x86-64-avx512"
        if "avx512vbmi" not in flags:
            return "x86-64-vnni"
        return "x86-64-amx" if {"amx_tile", "amx_int8"} <= set(flags) else "x86-64-vbmi"
    return "x86-64"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "compiler", "tools", "onnxc"))
    ap.add_argument("--target", default=None,
                    help="onnxc target (default: x86-64-amx / x86-64-vbmi / x86-64-vnni / "
                         "x86-64-avx512 on AVX-512 CPUs, else x86-64)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for every peer (onnxc --threads, ORT intra-op, torch)")
    ap.add_argument("--seconds", type=float, default=2.0, help="time per peer per round")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--baseline", default=None, metavar="CHECKOUT",
                    help="another onnxc checkout, built in CHECKOUT/build: its onnxc runs as a "
                         "fourth peer (before/after a change, side by side in one run); writes "
                         "results/models-vs-baseline.*")
    ap.add_argument("--int8", action="store_true",
                    help="int8: each model quantized by onnxc (--emit qdq-onnx), that QDQ file "
                         "run by onnxc and by ORT, beside both float builds; writes "
                         "results/models-int8.md")
    ap.add_argument("--stem", default=None,
                    help="results file name (default: models, models-Nthreads, ...); e.g. "
                         "models-intel for a second host class")
    ap.add_argument("--cpus", default="auto",
                    help="where the peers run: auto (at one thread every peer on the CPU where "
                         "onnxc's build probes fastest; N threads: the first N CPUs), none "
                         "(unpinned), or a taskset list for all of them, e.g. 1")
    ap.add_argument("models", nargs="*", default=None)
    args = ap.parse_args()
    args.models = args.models or (INT8_MODELS if args.int8 else MODELS)
    args.target = args.target or native_target()
    os.makedirs(args.work, exist_ok=True)
    args.peak, args.peak_int8 = measure_peaks(args.onnxc, args.target, args.threads, args.work,
                                              args.int8)
    rows = []
    for name in args.models:
        model_dir, _, x, inp = prepare_model(name, args.work)
        shape = "x".join(map(str, x.shape))
        exe = build_onnxc(args.onnxc, model_dir, os.path.join(args.work, name), args.target,
                          args.threads)
        th = str(args.threads)
        peers = {"onnxc": lambda n: [exe, inp, str(n)]}
        if args.int8:
            # onnxc's float build stays under "onnxc-float"; "onnxc" is the int8 one.
            qdq = quantize_qdq(args.onnxc, model_dir, os.path.join(args.work, name, "int8"))
            int8_exe = build_onnxc(args.onnxc, model_dir, os.path.join(args.work, name, "int8"),
                                   args.target, args.threads, model_file=qdq)
            float_exe = exe
            # ORT at its best on x86: the same model with uint8 activations
            # (qdq_u8s8.py); onnxc's own S8S8 file beside it for reference.
            u8s8 = os.path.join(args.work, name, "int8", "q.u8s8.onnx")
            qdq_u8s8.save_u8s8(qdq, u8s8)
            ort_int8 = lambda model, n: ["node", os.path.join(HERE, "ort_bench.js"), model, inp,
                                         shape, str(n), th]
            peers = {"onnxc": lambda n: [int8_exe, inp, str(n)],
                     "onnxc-float": lambda n: [float_exe, inp, str(n)],
                     "ort": lambda n: ort_int8(u8s8, n),
                     "ort-s8s8": lambda n: ort_int8(qdq, n)}
        if args.baseline:
            # The baseline compiles the model onnxc runs: with --int8, the same QDQ file.
            base_exe = build_onnxc(os.path.join(args.baseline, "build", "compiler", "tools", "onnxc"),
                                   model_dir, os.path.join(args.work, "baseline", name,
                                                           "int8" if args.int8 else ""),
                                   args.target, args.threads, root=args.baseline,
                                   model_file=qdq if args.int8 else None)
            peers["baseline"] = lambda n: [base_exe, inp, str(n)]
        ort_float = ["node", os.path.join(HERE, "ort_bench.js"),
                     os.path.join(model_dir, "model.onnx"), inp, shape]
        if args.int8:
            peers["ort-float"] = lambda n: ort_float + [str(n), th]
        else:
            peers.update({
                "ort": lambda n: ort_float + [str(n), th],
                "torch": lambda n: ["/usr/bin/python3", os.path.join(HERE, "torch_bench.py"),
                                    name, str(n), th],
            })
        if args.cpus == "auto":
            cpus, probe = choose_cpus(peers["onnxc"], args.threads)
        else:
            cpus, probe = (None if args.cpus == "none" else args.cpus), {}
        peers = {p: pinned(cmd, cpus) for p, cmd in peers.items()}
        # Runs per process from a short probe, so each peer gets ~--seconds.
        runs = {peer: runs_for(cmd, args.seconds) for peer, cmd in peers.items()}
        results = {p: [] for p in peers}
        for _ in range(args.rounds):
            for peer, cmd in peers.items():
                results[peer].append(run_json(cmd(runs[peer])))
        row = {"model": name, "cpus": cpus, "probe": probe,
               "flops": model_flops(args.onnxc, os.path.join(model_dir, "model.onnx"),
                                    args.target)}
        if args.int8:  # the QDQ model's count: its multiply-adds are half of it
            row["int8_flops"] = model_flops(args.onnxc, qdq, args.target)
        for peer, rs in results.items():
            meds = sorted(r["median_us"] for r in rs)
            row[peer] = {"median_us": meds[len(meds) // 2],
                         "p99_us": max(r["p99_us"] for r in rs),
                         "rss_bytes": max(r["rss_bytes"] for r in rs)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    write_results(rows, args)


def machine_text():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def baseline_revision(checkout):
    """The --baseline checkout's commit: abbreviated hash and subject."""
    return subprocess.run(["git", "-C", checkout, "log", "-1", "--format=%h %s"],
                          capture_output=True, text=True).stdout.strip()


def geomean(xs):
    import math
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def write_int8_results(rows, args):
    """results/models-int8.md (models-int8-Nthreads.md with --threads N, or
    --stem's): onnxc int8 beside ORT on the same QDQ model and both float
    builds."""
    threads_text = "one thread" if args.threads == 1 else f"{args.threads} threads"
    flags = f" --threads {args.threads}" if args.threads != 1 else ""
    base = bool(args.baseline)
    stem = args.stem or ("models-int8" if args.threads == 1
                         else f"models-int8-{args.threads}threads") + (
                             "-vs-baseline" if base else "")
    def ms(peer):
        return f"{peer['median_us'] / 1e3:.3f} ({peer['p99_us'] / 1e3:.3f})"
    lines = [
        "# int8 benchmark: onnxc int8 vs ONNX Runtime int8 (its preferred U8S8 form) vs both "
        "in float", "",
        f"Machine: {machine_text()}; batch 1, {threads_text} each. Each model quantized by "
        "`onnxc --quantize int8 --emit qdq-onnx` (MinMax, calibrated on its test input); that "
        f"QDQ file (int8 activations and weights, S8S8) compiled by onnxc --target "
        f"{args.target}{flags} (`"
        f"{' '.join(target_flags(args.onnxc, args.target))}`). ONNX Runtime 1.30 "
        "(onnxruntime-node, graph optimisations all, which fuses the QDQ groups into its "
        "integer kernels) runs the same model with uint8 activations (U8S8: each activation's "
        "zero point +128, the same numbers; `qdq_u8s8.py`), the form its x86 kernels are built "
        "for and its own quantizer writes; the S8S8 file is its slow path, shown for reference. "
        "The float model through both as in models.md. Median of "
        f"{args.rounds} alternating rounds, ms (p99).",
        f"Command: `cd bench && /usr/bin/python3 run_bench.py --int8{flags}"
        f"{' --baseline CHECKOUT' if base else ''}"
        f"{f' --cpus {args.cpus}' if args.cpus != 'auto' else ''}"
        f"{f' --stem {args.stem}' if args.stem else ''}` ({time.strftime('%Y-%m-%d')}).",
        *([f"Baseline: the same QDQ files compiled by the onnxc of another checkout "
           f"({baseline_revision(args.baseline)}) against its own runtime-lite."] if base else []),
        "", "| model | onnxc int8 |" + (" baseline int8 |" if base else "") +
        " ORT int8 U8S8 | ORT int8 S8S8 | onnxc float | ORT float "
        "| ORT U8S8 / onnxc int8 | onnxc int8 / onnxc float | ORT float / onnxc int8 |" +
        (" baseline / onnxc int8 |" if base else "") + " onnxc int8 GMAC/s (share of peak) |",
        "|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if base else "")]
    r1, r2, r3, r4 = [], [], [], []
    for r in rows:
        o, oi, os8, of, f = r["onnxc"], r["ort"], r["ort-s8s8"], r["onnxc-float"], r["ort-float"]
        r1.append(oi["median_us"] / o["median_us"])
        r2.append(o["median_us"] / of["median_us"])
        r3.append(f["median_us"] / o["median_us"])
        b = f" {ms(r['baseline'])} |" if base else ""
        line = (f"| {r['model']} | {ms(o)} |{b} {ms(oi)} | {ms(os8)} | {ms(of)} | {ms(f)} | "
                f"{r1[-1]:.3f} | {r2[-1]:.3f} | {r3[-1]:.3f} |")
        if base:
            r4.append(r["baseline"]["median_us"] / o["median_us"])
            line += f" {r4[-1]:.3f} |"
        gmacs = r["int8_flops"] / 2 / o["median_us"] / 1e3
        line += f" {gmacs:.1f} ({gmacs / args.peak_int8:.0%}) |"
        lines.append(line)
    lines += ["", f"Geometric means: ORT int8 (U8S8) / onnxc int8 {geomean(r1):.3f}; onnxc int8 / "
                  f"onnxc float {geomean(r2):.3f}; ORT float / onnxc int8 {geomean(r3):.3f}" +
                  (f"; baseline / onnxc int8 {geomean(r4):.3f}." if base else ".")]
    lines += ["", "Share of peak: the QDQ model's multiply-adds (half of its operations in "
                  "onnxc's compile summary, which counts 2 a multiply-add and one an element of "
                  "the other ops) a second, against the measured int8 multiply-add peak of "
                  f"{args.peak_int8:.1f} GMAC/s ({threads_text}; peak_flops.cpp int8: "
                  "VecI::dot_u8s8 in 24 chains, the conv2d tile's accumulators)."]
    lines += ["", pinning_text(rows)]
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", stem + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_results(rows, args):
    import math
    if args.int8:
        return write_int8_results(rows, args)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    threads_text = "one thread" if args.threads == 1 else f"{args.threads} threads"
    onnxc_threads = f" --threads {args.threads}" if args.threads != 1 else ""
    # One thread is the headline (models.md); other counts get their own files.
    stem = "models" if args.threads == 1 else f"models-{args.threads}threads"
    if args.baseline:
        stem += "-vs-baseline"
    stem = args.stem or stem
    base = bool(args.baseline)
    base_rev = baseline_revision(args.baseline) if base else ""
    lines = [
        f"# Model benchmark: onnxc vs ONNX Runtime vs PyTorch{f', {threads_text}' if args.threads != 1 else ''}",
        "",
        f"Machine: {machine_text()}; "
        f"batch 1, {threads_text} each. onnxc --target {args.target}{onnxc_threads} (static "
        f"library, `{' '.join(target_flags(args.onnxc, args.target))}`); ONNX Runtime 1.30 (onnxruntime-node, graph "
        f"optimisations all, {args.threads} intra-op thread{'s' if args.threads > 1 else ''}); "
        "PyTorch 1.13 (traced, frozen, optimize_for_inference). Median of "
        f"{args.rounds} alternating rounds; latency in ms; ratio > 1 means onnxc is faster.",
        "Command: `cd bench && /usr/bin/python3 run_bench.py"
        f"{f' --rounds {args.rounds}' if args.rounds != 3 else ''}"
        f"{f' --threads {args.threads}' if args.threads != 1 else ''}"
        f"{' --baseline CHECKOUT' if base else ''}"
        f"{f' --cpus {args.cpus}' if args.cpus != 'auto' else ''}"
        f"{f' --stem {args.stem}' if args.stem else ''}` "
        f"({time.strftime('%Y-%m-%d')}).",
        f"Share of peak: onnxc's FLOPs a run (its compile summary: 2 per multiply-add, one per "
        f"element of the other ops; a convolution counted in its direct form, so Winograd's "
        f"layers, which do fewer, can pass what the FMA units did) / its latency / the "
        f"measured float FMA peak of "
        f"{args.threads} core{'s' if args.threads > 1 else ''} with the target's vectors, "
        f"{args.peak:.1f} GFLOP/s (peak_flops.cpp).",
    ]
    if base:
        lines += ["", f"Baseline: onnxc at `{base_rev}`, built and run the same way, "
                      "alternating with the others in the same rounds."]
    lines += [
        "",
        "| model | onnxc ms (p99) |" + (" baseline ms (p99) |" if base else "") +
        " ORT ms (p99) | PyTorch ms (p99) | ORT / onnxc |" + (" ORT / baseline |" if base else "") +
        " PyTorch / onnxc | RSS MB onnxc / ORT / PyTorch | GFLOPs | onnxc GFLOP/s (share of peak) |",
        "|---|---|---|---|---|---|---|---|---|" + ("---|---|" if base else ""),
    ]
    ratios, base_ratios = [], []
    for r in rows:
        o, t, p = r["onnxc"], r["ort"], r["torch"]
        ratio = t["median_us"] / o["median_us"]
        ratios.append(ratio)
        b_cell = b_ratio = ""
        if base:
            b = r["baseline"]
            base_ratios.append(t["median_us"] / b["median_us"])
            b_cell = f" {b['median_us'] / 1e3:.3f} ({b['p99_us'] / 1e3:.3f}) |"
            b_ratio = f" {base_ratios[-1]:.3f} |"
        lines.append(
            f"| {r['model']} | {o['median_us'] / 1e3:.3f} ({o['p99_us'] / 1e3:.3f}) |{b_cell} "
            f"{t['median_us'] / 1e3:.3f} ({t['p99_us'] / 1e3:.3f}) | "
            f"{p['median_us'] / 1e3:.3f} ({p['p99_us'] / 1e3:.3f}) | {ratio:.3f} |{b_ratio} "
            f"{p['median_us'] / o['median_us']:.3f} | {o['rss_bytes'] / 2**20:.0f} / "
            f"{t['rss_bytes'] / 2**20:.0f} / {p['rss_bytes'] / 2**20:.0f} | "
            f"{r['flops'] / 1e9:.3f} | {r['flops'] / o['median_us'] / 1e3:.1f} "
            f"({r['flops'] / o['median_us'] / 1e3 / args.peak:.0%}) |")

    geo = geomean(ratios)
    lines += ["", f"Geometric mean of ORT latency / onnxc latency: {geo:.3f}"]
    if base:
        lines += [f"Geometric mean of ORT latency / baseline latency: {geomean(base_ratios):.3f}"]
    lines += ["", pinning_text(rows)]
    with open(os.path.join(HERE, "results", stem + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # A bar chart of the ORT/onnxc ratio on a log scale (SVG, no plotting library).
    w, h, left, bar = 640, 40 + 30 * len(rows), 170, 22
    lo = min(min(ratios), 0.001)
    span = math.log10(max(max(ratios), 2.0)) - math.log10(lo)
    x1 = left + (math.log10(1.0) - math.log10(lo)) / span * (w - left - 20)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="10" y="18">ORT latency / onnxc latency (log scale; right of the line: onnxc faster)</text>',
           f'<line x1="{x1:.1f}" y1="26" x2="{x1:.1f}" y2="{h - 4}" stroke="black"/>']
    for i, (r, ratio) in enumerate(zip(rows, ratios)):
        y = 30 + 30 * i
        x = left + (math.log10(ratio) - math.log10(lo)) / span * (w - left - 20)
        svg.append(f'<text x="10" y="{y + 15}">{r["model"]}</text>')
        svg.append(f'<rect x="{min(x, x1):.1f}" y="{y}" width="{abs(x - x1):.1f}" height="{bar}" '
                   f'fill="{"#2a7" if ratio >= 1 else "#c44"}"/>')
        svg.append(f'<text x="{max(x, x1) + 4:.1f}" y="{y + 15}">{ratio:.3g}</text>')
    svg.append("</svg>")
    with open(os.path.join(HERE, "results", stem + ".svg"), "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
