#!/usr/bin/env python3
"""Where a model's instructions go on a Cortex-M target: compiles MODEL with
onnxc for --target (cortex-m4 by default; extra onnxc options after --),
builds a firmware that runs it RUNS times on zero inputs, runs it under
qemu-system-arm with onnxc's instruction-counting plugin
(tools/qemu/count_instructions.c, blocks=...) and prints the instructions
per inference of each function (the kernels are not inlined into the model:
one line per layer's kernel). Needs arm-none-eabi-g++ and qemu-system-arm.

  bench/mcu_profile.py build/compiler/tools/onnxc MODEL.onnx [--runs 4] \\
      [--target cortex-m4] [-- --quantize int8 --calibration DIR]
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Each target's QEMU board, CPU and linker script (as targets/cortex-m/CortexMTarget.cpp).
MACHINES = {"cortex-m0plus": ("microbit", "cortex-m0", "microbit.ld"),
            "cortex-m3": ("mps2-an385", "cortex-m3", "mps2.ld"),
            "cortex-m4": ("mps2-an386", "cortex-m4", "mps2.ld"),
            "cortex-m7": ("mps2-an500", "cortex-m7", "mps2.ld"),
            "cortex-m33": ("mps2-an505", "cortex-m33", "mps2-an505.ld"),
            "cortex-m55": ("mps3-an547", "cortex-m55", "mps3-an547.ld")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("model")
    ap.add_argument("--target", default="cortex-m4", choices=sorted(MACHINES))
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--keep", metavar="DIR",
                    help="build in DIR and keep it (model.elf, blocks.txt: each executed "
                         "block's address, instructions and executions)")
    ap.add_argument("--hot-blocks", type=int, default=0, metavar="N",
                    help="also print the N blocks that execute the most instructions")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    extra = argv[cut + 1:]  # onnxc's own options
    machine, qemu_cpu, script = MACHINES[a.target]
    work = a.keep or tempfile.mkdtemp(prefix="mcu-profile-")
    os.makedirs(work, exist_ok=True)
    try:
        subprocess.run([a.onnxc, a.model, "-o", work, "--name", "model", "--target", a.target,
                        "--quiet"] + extra, check=True)
        with open(os.path.join(work, "main.cpp"), "w") as f:
            # Zero inputs, one buffer per input and output (the profile
            # does not depend on the values: the kernels do not branch on them).
            f.write('#include "model.h"\n#include <cstdio>\n'
                    "alignas(64) static unsigned char arena[model::kArenaSize + 1];\n"
                    "alignas(64) static unsigned char in[1 << 16], out[1 << 16];\n"
                    "int main() {\n"
                    "  const void *const inputs[] = {in, in, in, in, in, in, in, in};\n"
                    "  void *const outputs[] = {out, out, out, out, out, out, out, out};\n"
                    "  for (int i = 0; i < %d; ++i)\n"
                    "    model_run_v(inputs, outputs, arena);\n"
                    '  std::printf("%%d\\n", int(out[0]));\n  return 0;\n}\n' % a.runs)
        plugin = os.path.join(work, "count.so")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o", plugin,
                        os.path.join(ROOT, "tools", "qemu", "count_instructions.c")],
                       check=True)
        support = os.path.join(ROOT, "targets", "cortex-m")
        elf = os.path.join(work, "model.elf")
        flags = subprocess.run([a.onnxc, "--print-target-flags", "--target", a.target],
                               capture_output=True, text=True, check=True).stdout.split()
        subprocess.run(["arm-none-eabi-g++", "-std=c++17", "-O2", "-fno-exceptions", "-fno-rtti",
                        "-I" + os.path.join(ROOT, "runtime-lite", "include"), "-I" + work,
                        "-Wa,-I" + work] + flags +
                       [os.path.join(work, "main.cpp"), os.path.join(work, "model.cpp"),
                        os.path.join(work, "model_weights.S"),
                        "-x", "c", os.path.join(support, "startup.c"), "-x", "none", "-T",
                        os.path.join(support, script), "-L", support, "--specs=rdimon.specs",
                        "-nostartfiles", "-Wl,--gc-sections", "-o", elf], check=True)
        blocks = os.path.join(work, "blocks.txt")
        subprocess.run(["qemu-system-arm", "-M", machine, "-cpu", qemu_cpu, "-nographic",
                        "-monitor", "none", "-serial", "none", "-semihosting-config",
                        "enable=on,target=native", "-plugin",
                        plugin + ",blocks=" + blocks + ",outfile=" + os.path.join(work, "n"),
                        "-kernel", elf], check=True, capture_output=True)
        syms = []
        for line in subprocess.run(["arm-none-eabi-nm", "-C", "--defined-only", "-n", elf],
                                   capture_output=True, text=True, check=True).stdout.splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16) & ~1, parts[2]))
        per = collections.Counter()
        hot = []
        for line in open(blocks):
            addr, n, execs = line.split()
            addr = int(addr, 16)
            name = "?"
            for start, sym in syms:  # sorted: the last start below addr
                if start > addr:
                    break
                name = sym
            per[name] += int(n) * int(execs)
            hot.append((int(n) * int(execs), addr, int(n), name))
        total = sum(per.values())
        print("instructions per inference (%d runs, %s; start-up included in 'other'):"
              % (a.runs, a.target))
        shown = 0
        for name, n in per.most_common():
            if n / a.runs < 0.005 * total / a.runs:
                break
            print("  %10d  %5.1f%%  %s" % (n // a.runs, 100.0 * n / total, name[:150]))
            shown += n
        print("  %10d  %5.1f%%  other" % ((total - shown) // a.runs, 100.0 * (total - shown) / total))
        print("  %10d          total" % (total // a.runs))
        if a.hot_blocks:
            print("hottest blocks (instructions per inference, address, block size, function):")
            for n, addr, size, name in sorted(hot, reverse=True)[:a.hot_blocks]:
                print("  %10d  0x%08x  %3d  %s" % (n // a.runs, addr, size, name[:100]))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
