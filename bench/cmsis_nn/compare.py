#!/usr/bin/python3
"""onnxc against CMSIS-NN on Cortex-M, side by side on the same int8 model:
instructions per inference under QEMU, flash and RAM, outputs compared
(bench/results/cmsis-nn.md):

    compare.py ONNXC CMSIS_NN_TGZ WORK MODEL_DIR... [--cores cortex-m4,...]
               [--jobs 2] [--conv-weights int16,int8] [--int16]

Each MODEL_DIR holds model.onnx (float), calibration/ (onnxc's
--calibration folder) and test/input_0.pb (the first sample is used), as
bench/mlperf_tiny/make_models.py writes them. For each model:

1. onnxc quantizes it once (`--quantize int8 --emit qdq-onnx`); that QDQ
   file is what both sides run, so the weights, scales and zero points are
   the same numbers. The input is quantized with the model's input scale
   (round to nearest even, as QuantizeLinear).
2. CMSIS-NN side: cmsis_net.py writes the C calls (NHWC, TFLM's way);
   CMSIS-NN (../shared/peers' source) is compiled per core with GCC -O2,
   CMSIS_NN_USE_SINGLE_ROUNDING (the requantization onnxc uses, so that the
   outputs can be equal; TFLite's single-rounding build).
3. onnxc side: `onnxc MODEL --target CORE --quantize int8 --io int8
   --emit lib`, the library a user links; with --conv-weights, once per
   value listed on the cores that take it (all but the M55), a row each.
4. Both are linked into the same firmware (harness_main.c, onnxc's startup
   code and board linker script) and run under qemu-system-arm with onnxc's
   instruction-counting plugin: ((1 + 4) runs - 1 run) / 4.

--int16: both sides on int16 activations (`--quantize int16x8`, onnxc with
`--io int16`; CMSIS-NN's 16x8 kernels as TFLM's int16 path calls them,
cmsis_net.py --s16).

Flash = the code and read-only data the link map attributes to the network
(the model library, or cmsis_net's C and the CMSIS-NN objects); RAM =
activation arena + the network's other buffers (scratch, kernel sums) +
the deepest stack measured in the runs (painted). The Cortex-M0+ runs on
QEMU's mps2-an385 (a Cortex-M3 core executes the same ARMv6-M instructions;
the micro:bit, QEMU's only M0 board, has 16 KB of RAM).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORTEX_M = os.path.join(ROOT, "targets", "cortex-m")

CORES = {
    "cortex-m0plus": (["-mcpu=cortex-m0plus", "-mthumb", "-mfloat-abi=soft"],
                      "mps2-an385", "cortex-m3", "mps2.ld"),
    "cortex-m3": (["-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"],
                  "mps2-an385", "cortex-m3", "mps2.ld"),
    "cortex-m4": (["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"],
                  "mps2-an386", "cortex-m4", "mps2.ld"),
    "cortex-m7": (["-mcpu=cortex-m7", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv5-d16"],
                  "mps2-an500", "cortex-m7", "mps2.ld"),
    "cortex-m33": (["-mcpu=cortex-m33", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"],
                   "mps2-an505", "cortex-m33", "mps2-an505.ld"),
    "cortex-m55": (["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"],
                   "mps3-an547", "cortex-m55", "mps3-an547.ld"),
}
CFLAGS = ["-O2", "-ffunction-sections", "-fdata-sections"]


def run(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compare: failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout


def cmsis_library(src, work, core):
    """CMSIS-NN's int8 kernels and support code compiled for one core."""
    lib = os.path.join(work, f"cmsis-{core}", "libcmsisnn.a")
    if os.path.exists(lib):
        return lib
    objdir = os.path.dirname(lib)
    os.makedirs(objdir, exist_ok=True)
    flags = CORES[core][0]
    sources = [s for s in glob.glob(os.path.join(src, "Source", "*", "*.c"))
               if not re.search(r"_f16|_f32|_flt|Bindings", s)]

    def compile_one(s):
        obj = os.path.join(objdir, os.path.basename(s)[:-2] + ".o")
        run(["arm-none-eabi-gcc", *flags, *CFLAGS, "-DCMSIS_NN_USE_SINGLE_ROUNDING",
             "-I", os.path.join(src, "Include"), "-c", s, "-o", obj])
        return obj

    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        objs = list(pool.map(compile_one, sources))
    run(["arm-none-eabi-ar", "rcs", lib, *objs])
    return lib


def flash_of(map_path, owned):
    """Bytes of code and read-only/initialised data the map places from
    files whose name matches `owned`."""
    text = open(map_path).read()
    text = text[text.index("Linker script and memory map"):]
    total = 0
    pending = None
    for line in text.splitlines():
        m = re.match(r"^ (\.(?:text|rodata|data)\S*)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)", line)
        if m:
            name, size, origin = m.groups()
        elif re.match(r"^ \.(?:text|rodata|data)\S*$", line):
            pending = line.strip()
            continue
        else:
            m = re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", line)
            if not (m and pending):
                pending = None
                continue
            size, origin = m.groups()
        pending = None
        if re.search(owned, origin):
            total += int(size, 16)
    return total


def firmware(work, core, name, net_objs, libs):
    flags, machine, cpu, script = CORES[core]
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    elf = os.path.join(d, "fw.elf")
    run(["arm-none-eabi-gcc", *flags, *CFLAGS, "-I", HERE,
         os.path.join(HERE, "harness_main.c"), os.path.join(CORTEX_M, "startup.c"), *net_objs,
         *libs, "-T", os.path.join(CORTEX_M, script), "-L", CORTEX_M, "--specs=rdimon.specs",
         "-nostartfiles", "-Wl,--gc-sections", f"-Wl,-Map={d}/fw.map", "-o", elf, "-lstdc++",
         "-lm"])
    return elf


def execute(elf, core, input_bytes, plugin, runs):
    _, machine, cpu, _ = CORES[core]
    d = os.path.dirname(elf)
    with open(os.path.join(d, "input.bin"), "wb") as f:
        f.write(input_bytes)
    with open(os.path.join(d, "runs.txt"), "w") as f:
        f.write(f"{runs}\n")
    count = os.path.join(d, "count.txt")
    out = run(["qemu-system-arm", "-plugin", f"{plugin},outfile={count}", "-M", machine,
               "-cpu", cpu, "-nographic", "-monitor", "none", "-serial", "none",
               "-semihosting-config", "enable=on,target=native", "-kernel", elf], cwd=d)
    if "harness: done" not in out:
        sys.exit(f"compare: {elf} did not finish:\n{out}")
    n = int(open(count).read().split()[-1])
    info = {k: int(v) for k, v in re.findall(r"harness: (\w+) (\d+)", out)}
    return n, info, open(os.path.join(d, "output.bin"), "rb").read()


def measure(elf, core, input_bytes, plugin, owned, repeat=4, dtype=np.int8):
    one, info, out = execute(elf, core, input_bytes, plugin, 1)
    many, _, _ = execute(elf, core, input_bytes, plugin, 1 + repeat)
    flash = flash_of(os.path.join(os.path.dirname(elf), "fw.map"), owned)
    ram = info["arena"] + info["scratch"] + info["stack"]
    return dict(instructions=(many - one + repeat // 2) // repeat, flash=flash, ram=ram,
                arena=info["arena"], scratch=info["scratch"], stack=info["stack"],
                output=np.frombuffer(out, dtype))


def main():
    global JOBS
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("cmsis_tgz")
    ap.add_argument("work")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--cores", default=",".join(CORES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--conv-weights", default="",
                    help="onnxc's --conv-weights values to run, comma-separated (cores "
                         "without Helium; default: onnxc's default alone)")
    ap.add_argument("--int16", action="store_true",
                    help="int16 activations on both sides (--quantize int16x8)")
    a = ap.parse_args()
    act_type, (act_lo, act_hi) = (np.int16, (-32768, 32767)) if a.int16 else \
        (np.int8, (-128, 127))
    JOBS = a.jobs
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "cmsis-nn")
    if not os.path.isdir(src):
        os.makedirs(src)
        with tarfile.open(a.cmsis_tgz) as t:
            t.extractall(src)
    plugin = os.path.join(work, "count_instructions.so")
    if not os.path.exists(plugin):
        run(["cc", "-O2", "-shared", "-fPIC", "-o", plugin,
             os.path.join(ROOT, "tools", "qemu", "count_instructions.c")])
    onnxc = os.path.abspath(a.onnxc)
    rows = []
    for mdir in a.models:
        mdir = os.path.abspath(mdir)
        model = os.path.basename(mdir.rstrip("/"))
        mw = os.path.join(work, model)
        os.makedirs(mw, exist_ok=True)
        quant = ["--quantize", "int16x8" if a.int16 else "int8", "--calibration",
                 os.path.join(mdir, "calibration")]
        run([onnxc, os.path.join(mdir, "model.onnx"), "-o", os.path.join(mw, "qdq"),
             "--emit", "qdq-onnx", *quant])
        qdq = glob.glob(os.path.join(mw, "qdq", "*.qdq.onnx"))[0]
        net_c = os.path.join(mw, "cmsis_net.c")
        run([sys.executable, os.path.join(HERE, "cmsis_net.py"), qdq, net_c, "--meta",
             os.path.join(mw, "meta.json"),
             *(["--s16", "--shapes", os.path.join(mdir, "model.onnx")] if a.int16 else [])])
        meta = json.load(open(os.path.join(mw, "meta.json")))
        g = onnx.load(qdq).graph
        inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        q_in = next(n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == g.input[0].name)
        scale, zp = float(inits[q_in.input[1]]), int(inits[q_in.input[2]])
        x = numpy_helper.to_array(onnx.load_tensor(os.path.join(mdir, "test", "input_0.pb")))
        in_elements = meta["in_size"] // np.dtype(act_type).itemsize
        x = x.reshape(x.shape[0], -1)[0] if x.size != in_elements else x.ravel()
        xq = np.clip(np.rint(x.astype(np.float32) / np.float32(scale)) + zp, act_lo,
                     act_hi).astype(act_type)
        # CMSIS-NN's side takes NHWC, as a TFLite model would (no transpose counted).
        in_shape = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
        xq_nhwc = (xq.reshape(in_shape).transpose(0, 2, 3, 1).copy() if len(in_shape) == 4
                   else xq)
        for core in a.cores.split(","):
            flags = CORES[core][0]
            lib = cmsis_library(src, work, core)
            cw = os.path.join(mw, core)
            os.makedirs(cw, exist_ok=True)
            net_o = os.path.join(cw, "cmsis_net.o")
            run(["arm-none-eabi-gcc", *flags, *CFLAGS, "-DCMSIS_NN_USE_SINGLE_ROUNDING",
                 "-I", os.path.join(src, "Include"), "-I", HERE, "-c", net_c, "-o", net_o])
            elf = firmware(cw, core, "cmsis", [net_o], [lib])
            peer = measure(elf, core, xq_nhwc.tobytes(), plugin, r"cmsis_net\.o|libcmsisnn\.a",
                           dtype=act_type)
            weights = a.conv_weights.split(",") if a.conv_weights and core != "cortex-m55" \
                else [""]
            for cwv in weights:
                lib_dir = os.path.join(cw, "onnxc-lib" + (f"-{cwv}" if cwv else ""))
                run([onnxc, os.path.join(mdir, "model.onnx"), "-o", lib_dir, "--target", core,
                     "--io", "int16" if a.int16 else "int8", "--emit", "lib", *quant,
                     *(["--conv-weights", cwv] if cwv else [])])
                net_o = os.path.join(cw, "onnxc_net.o")
                run(["arm-none-eabi-gcc", *flags, *CFLAGS, "-I", lib_dir, "-I", HERE, "-c",
                     f"-DNET_ELEM_BYTES={np.dtype(act_type).itemsize}",
                     os.path.join(HERE, "onnxc_net.c"), "-o", net_o])
                elf = firmware(cw, core, "onnxc", [net_o], [os.path.join(lib_dir, "libmodel.a")])
                ours = measure(elf, core, xq.tobytes(), plugin, r"onnxc_net\.o|libmodel\.a",
                               dtype=act_type)
                diff = int(np.abs(ours["output"].astype(int) - peer["output"].astype(int)).max())
                row = dict(model=model, core=core, weights=cwv or "default", cmsis=peer,
                           onnxc=ours, max_diff=diff,
                           argmax_equal=bool(np.argmax(ours["output"]) == np.argmax(peer["output"])))
                rows.append(row)
                print(f"{model} {core}{' ' + cwv if cwv else ''}: CMSIS-NN "
                      f"{peer['instructions']:,} onnxc {ours['instructions']:,} ratio "
                      f"{ours['instructions'] / peer['instructions']:.2f} | flash "
                      f"{peer['flash']:,} / {ours['flash']:,} | RAM {peer['ram']:,} / "
                      f"{ours['ram']:,} | outputs max diff {diff} step(s)", flush=True)
    print()
    both = bool(a.conv_weights)
    print("| model | core | " + ("onnxc conv weights | " if both else "") +
          "CMSIS-NN instructions | onnxc instructions | onnxc / CMSIS-NN | "
          "flash CMSIS-NN | flash onnxc | RAM CMSIS-NN | RAM onnxc | outputs |")
    print("|---|---|" + ("---|" if both else "") + "---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        p, o = r["cmsis"], r["onnxc"]
        same = "equal" if r["max_diff"] == 0 else (
            f"max diff {r['max_diff']} step(s), argmax {'equal' if r['argmax_equal'] else 'differs'}")
        print(f"| {r['model']} | {r['core']} | " + (f"{r['weights']} | " if both else "") +
              f"{p['instructions']:,} | {o['instructions']:,} | "
              f"{o['instructions'] / p['instructions']:.2f} | {p['flash']:,} | {o['flash']:,} | "
              f"{p['ram']:,} | {o['ram']:,} | {same} |")
    if a.json:
        for r in rows:
            for side in ("cmsis", "onnxc"):
                r[side] = {k: v for k, v in r[side].items() if k != "output"}
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
