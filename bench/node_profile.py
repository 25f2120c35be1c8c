#!/usr/bin/python3
"""Where a compiled model's time goes, node by node (x86 hosts).

Compiles MODEL.onnx with onnxc (--emit cpp), adds a time-stamp counter read
(`rdtsc`) before each node's code in the generated NAME_run_on (each node
opens with its `// OpType 'name'` comment), builds it with the target's
flags and a small driver, runs it RUNS times on the first input (raw
float32 bytes, as run_bench.py writes them; other inputs zero) pinned to
one CPU (--cpu; by default the one where it runs fastest, and --ort's
profile on the same one; --threads N: compiled for N and run on N cores with a
ThreadPool, the counter read on the calling thread), and prints each op
type's share of the time and the nodes that take the most. A profile,
not a benchmark: the counter reads themselves cost a few cycles per node.
ONNXC_RUNTIME_INCLUDE=DIR compiles it against other runtime-lite headers
(an old checkout's), as `onnxc run` does.

    /usr/bin/python3 bench/node_profile.py MODEL.onnx INPUT.bin [--target x86-64-vnni]
        [--runs 200] [--top 15] [--threads 1] [--ort]
        [-- ONNXC OPTIONS (--quantize int8 --calibration DIR ...)]

--ort adds ONNX Runtime's own profile of the same model on the same input
(ort_profile.js: one thread, all graph optimisations; its node names and
fused op types are ORT's, e.g. QuickGelu for a SiLU): its time per op type
and its heaviest nodes, in microseconds, beside onnxc's shares.

An int8 benchmark model: bench/node_profile.py ../build/bench/NAME/int8/q.qdq.onnx
../build/bench/NAME.bin (run_bench.py --int8 leaves both there).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_bench  # noqa: E402

DRIVER = r"""
#include "m.h"
#include "onnxc_rt/threads.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <x86intrin.h>
unsigned long long node_cycles[kNodes + 1];
int current_node = kNodes;
int main(int argc, char **argv) {
  const int runs = std::atoi(argv[2]);
  onnxc_rt::ThreadPool pool(std::atoi(argv[3]));
  onnxc_rt::TaskRunner *runner = pool.threads() > 1 ? &pool : nullptr;
  void *in[m_NUM_INPUTS], *out[m_NUM_OUTPUTS];
  for (int i = 0; i < m_NUM_INPUTS; ++i) {
    in[i] = std::aligned_alloc(64, (kInputBytes[i] + 127) / 64 * 64);
    std::memset(in[i], 0, kInputBytes[i]);
  }
  if (FILE *f = std::fopen(argv[1], "rb")) {
    size_t got = std::fread(in[0], 1, kInputBytes[0], f);
    (void)got;
    std::fclose(f);
  }
  for (int i = 0; i < m_NUM_OUTPUTS; ++i)
    out[i] = std::aligned_alloc(64, (kOutputBytes[i] + 127) / 64 * 64);
  void *arena = std::aligned_alloc(64, m_ARENA_SIZE + 64);
  for (int r = 0; r < 3; ++r)
    m_run_v_on(in, out, arena, runner);
  std::memset(node_cycles, 0, sizeof node_cycles);
  for (int r = 0; r < runs; ++r)
    m_run_v_on(in, out, arena, runner);
  for (int i = 0; i < kNodes; ++i)
    std::printf("%d %llu\n", i, node_cycles[i] / runs);
}
"""


def instrument(source):
    """The generated source with a counter read at each node of m_run_on,
    and the nodes' labels in order."""
    out, labels, inside = [], [], False
    for line in source.split("\n"):
        if line.startswith('extern "C" int m_run_on('):
            inside = True
            out += ["#include <x86intrin.h>",
                    "extern unsigned long long node_cycles[]; extern int current_node;"]
        m = re.match(r"  // (\w+) '(.*)'$", line) if inside else None
        if m or (inside and line.startswith("  return ")):
            # Close the running node, open the next (the return: none).
            nxt = len(labels) if m else "@NODES@"
            out.append("  { const unsigned long long t = __rdtsc(); node_cycles[current_node] += t;"
                       f" current_node = {nxt}; node_cycles[current_node] -= t; }}")
            if m:
                labels.append((m.group(1), m.group(2)))
            else:
                inside = False
        out.append(line)
    return "\n".join(out).replace("@NODES@", str(len(labels))), labels


def runtime_include():
    """runtime-lite's headers: ONNXC_RUNTIME_INCLUDE where set (as for `onnxc
    run`: to profile other headers against the same generated code), else
    this checkout's."""
    return os.environ.get("ONNXC_RUNTIME_INCLUDE") or os.path.join(ROOT, "runtime-lite", "include")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("input")
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build", "compiler", "tools", "onnxc"))
    ap.add_argument("--target", default=run_bench.native_target())
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ort", action="store_true", help="ONNX Runtime's profile beside it")
    ap.add_argument("--cpu", default="auto",
                    help="the CPU both profiles run on at one thread: auto (the one where the "
                         "profiled build runs fastest, as run_bench.py picks) or a number")
    argv, extra = sys.argv[1:], []  # onnxc's own options after "--"
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([a.onnxc, a.model, "-o", work, "--name", "m", "--target", a.target,
                        "--emit", "cpp", "--quiet", "--threads", str(a.threads), *extra],
                       check=True)
        src = os.path.join(work, "m.cpp")
        with open(src) as f:
            text, labels = instrument(f.read())
        if not labels:
            sys.exit("no node comments found in the generated m_run_on")
        with open(src, "w") as f:
            f.write(text)
        ins, outs = run_bench.io_bytes(a.model)
        with open(os.path.join(work, "driver.cpp"), "w") as f:
            f.write(f"constexpr int kNodes = {len(labels)};\n"
                    f"const unsigned long kInputBytes[] = {{{', '.join(map(str, ins))}}};\n"
                    f"const unsigned long kOutputBytes[] = {{{', '.join(map(str, outs))}}};\n"
                    + DRIVER)
        sources = [src, os.path.join(work, "driver.cpp")]
        sources += [os.path.join(work, n) for n in os.listdir(work) if n.endswith(".S")]
        exe = os.path.join(work, "profile")
        subprocess.run(["c++", "-std=c++17", *run_bench.target_flags(a.onnxc, a.target),
                        "-I" + work, "-I" + runtime_include(),
                        *sources, "-o", exe, "-pthread"], check=True, cwd=work)
        cores = ",".join(str(c) for c in range(a.threads)) if a.threads > 1 else a.cpu
        if cores == "auto":
            probe = [exe, a.input, str(max(10, a.runs // 10)), "1"]
            cores, _ = run_bench.fastest_cpu(
                lambda c: wall_seconds(["taskset", "-c", c, *probe], work))
        out = subprocess.run(["taskset", "-c", cores, exe, a.input, str(a.runs), str(a.threads)],
                             capture_output=True, text=True, check=True, cwd=work).stdout
    cycles = {int(i): int(c) for i, c in (line.split() for line in out.split("\n") if line)}
    total = sum(cycles.values())
    by_type = collections.Counter()
    for i, c in cycles.items():
        by_type[labels[i][0]] += c
    print(f"{os.path.basename(a.model)} on {a.target}, {a.threads} thread(s) on CPU {cores}: "
          f"{total / 1e3:.0f} k time-stamp cycles a run")
    for op, c in by_type.most_common():
        print(f"  {op:24s} {100 * c / total:5.1f}%")
    print("nodes:")
    for i, c in sorted(cycles.items(), key=lambda x: -x[1])[:a.top]:
        print(f"  {100 * c / total:5.1f}%  {labels[i][0]} '{labels[i][1]}'")
    if a.ort:
        ort_profile(a.model, a.input, max(20, a.runs // 10), a.top,
                    cores if a.threads == 1 else "1")


def wall_seconds(cmd, cwd):
    """Wall-clock seconds of one run of cmd (a probe: run_bench.fastest_cpu)."""
    import time
    t = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True, cwd=cwd)
    return time.perf_counter() - t


def ort_profile(model, inp, runs, top, cpu):
    """ONNX Runtime's per-node kernel times (ort_profile.js), by op type and
    heaviest nodes."""
    import json
    import onnx
    g = onnx.load(model, load_external_data=False).graph
    inits = {t.name for t in g.initializer}
    x = next(v for v in g.input if v.name not in inits)
    shape = "x".join(str(d.dim_value) for d in x.type.tensor_type.shape.dim)
    out = subprocess.run(["taskset", "-c", cpu, "node", os.path.join(HERE, "ort_profile.js"),
                          os.path.abspath(model), os.path.abspath(inp), shape, str(runs)],
                         capture_output=True, text=True, check=True, cwd=HERE).stdout
    nodes = [json.loads(line) for line in out.split("\n") if line]
    total = sum(n["us"] for n in nodes)
    by_type = collections.Counter()
    for n in nodes:
        by_type[n["op"]] += n["us"]
    print(f"ONNX Runtime (its profiler): {total:.0f} us of kernels a run")
    for op, us in by_type.most_common():
        print(f"  {op:24s} {100 * us / total:5.1f}%  {us:8.0f} us")
    print("nodes:")
    for n in sorted(nodes, key=lambda n: -n["us"])[:top]:
        print(f"  {100 * n['us'] / total:5.1f}%  {n['op']} '{n['node']}'")


if __name__ == "__main__":
    main()
