#!/usr/bin/python3
"""xsimd (Debian's libxsimd-dev, xsimd 8) against runtime-lite's own vector
layer (simd/vec.h) on element-wise and epilogue code: xsimd_eval.cpp holds
the same loops written over both, built with the SIMD targets' flags.

x86 (x86-64-v3: AVX2+FMA, x86-64-v4: AVX-512) is timed: the median of 7
alternating runs of each, in ns per call of 4096 floats. aarch64 (armv8-a)
is counted under qemu-aarch64 with onnxc's instruction-counting plugin:
((1 + N) calls - 1 call) / N instructions per call (QEMU is not
cycle-accurate: instructions are not time). Also reports whether the
compile was warning-clean under -Wall -Wextra (runtime-lite's rule) and
that both give the same checksum.

    cd bench && /usr/bin/python3 xsimd_eval.py     # writes results/xsimd.md
"""
import os
import re
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KERNELS = ["epilogue", "exp", "layernorm"]
FLAGS = ["-std=c++17", "-O3", "-ffp-contract=off", "-Wall", "-Wextra",
         "-I" + os.path.join(ROOT, "runtime-lite", "include")]


def build(compiler, march, out):
    r = subprocess.run([compiler] + FLAGS + [f"-march={march}",
                                             os.path.join(HERE, "xsimd_eval.cpp"), "-o", out]
                       + (["-static"] if "aarch64" in compiler else []),
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    return len(re.findall(r"warning:", r.stderr))


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    ns, check = re.match(r"([\d.]+) ns/call checksum (\S+)", out).groups()
    return float(ns), check


def main():
    rows, warnings = [], {}
    with tempfile.TemporaryDirectory() as work:
        for march in ("x86-64-v3", "x86-64-v4"):
            exe = os.path.join(work, march)
            warnings[march] = build("g++", march, exe)
            for k in KERNELS:
                times = {"vec": [], "xsimd": []}
                checks = {}
                for _ in range(7):
                    for impl in times:
                        ns, checks[impl] = run([exe, k, impl, "20000"])
                        times[impl].append(ns)
                rows.append((march, k, statistics.median(times["vec"]),
                             statistics.median(times["xsimd"]), "ns",
                             checks["vec"] == checks["xsimd"]))
        exe = os.path.join(work, "aarch64")
        warnings["armv8-a"] = build("aarch64-linux-gnu-g++", "armv8-a", exe)
        plugin = os.path.join(work, "count.so")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", plugin,
                        os.path.join(ROOT, "tools", "qemu", "count_instructions.c")], check=True)

        def count(k, impl, n):
            outfile = os.path.join(work, "count.txt")
            check = run(["qemu-aarch64", "-plugin", f"{plugin},outfile={outfile}", exe, k, impl,
                         str(n)])[1]
            return int(open(outfile).read().split(":")[1]), check

        for k in KERNELS:
            per, checks = {}, {}
            for impl in ("vec", "xsimd"):
                one, checks[impl] = count(k, impl, 1)
                many, _ = count(k, impl, 201)
                per[impl] = (many - one) / 200
            rows.append(("armv8-a (NEON)", k, per["vec"], per["xsimd"], "instructions", None))
    lines = [
        "# xsimd 8 against runtime-lite's vector layer (simd/vec.h)", "",
        "The same element-wise loops over 4096 floats written once over "
        "`onnxc_rt::simd::VecF` and once over `xsimd::batch<float>` (`bench/xsimd_eval.cpp`), "
        "compiled with `-O3 -ffp-contract=off` and the target's `-march`: the convolution "
        "epilogue (bias + clamp, as blocked.h), softmax's exponential pass (vec.h's `exp` "
        "against `xsimd::exp`), and a layer normalisation (norm.h's kernel against the same "
        "two passes in xsimd). x86: median of 7 alternating runs, ns per call (lower is "
        "better); aarch64: instructions per call under qemu-aarch64 (not time).", "",
        f"Host: {machine()}; GCC {gcc_version()}. Command: `cd bench && /usr/bin/python3 "
        f"xsimd_eval.py` ({time.strftime('%Y-%m-%d')}).", "",
        "| ISA | kernel | vec.h | xsimd | xsimd / vec.h | unit |", "|---|---|---:|---:|---:|---|"]
    for isa, k, a, b, unit, same in rows:
        lines.append(f"| {isa} | {k} | {a:.0f} | {b:.0f} | {b / a:.2f} | {unit} |")
    lines += ["", "Warnings under -Wall -Wextra (GCC 12, from the headers): " +
              ", ".join(f"{m}: {n}" for m, n in warnings.items()) + ".",
              "Checksums of the outputs agree between the two on x86: " +
              ("yes" if all(r[5] for r in rows if r[5] is not None) else "NO") + "."]
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "xsimd.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def machine():
    model = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return f"{model}, {os.cpu_count()} cores"


def gcc_version():
    return subprocess.run(["g++", "-dumpfullversion"], capture_output=True,
                          text=True).stdout.strip()


if __name__ == "__main__":
    main()
