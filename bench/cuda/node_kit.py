#!/usr/bin/python3
"""The ONNX node tests on a real GPU, in two steps, because the GPU machine
has nvcc but no onnxc and this machine has onnxc but no GPU:

    here:  /usr/bin/python3 node_kit.py prepare [--onnxc ONNXC] [--out kit/node]
    there: python3 node_kit.py run --kit kit/node --out OUT [--jobs 16]

prepare compiles every node test of Debian's libonnx-testdata (the selection
run_conformance.py makes; sequences and optionals pass as their tensors) with
`onnxc --target cuda` and writes kit/node/<test>/: the generated model.cu,
model.h, model_weights.S and weights blob, and each test_data_set_N's inputs
and expected outputs as .npy (a sequence's as .npz, an absent optional an
empty .none). Tests the CUDA target refuses (exit 3) are listed in
kit/node/refused.txt with onnxc's reason. run builds each test with nvcc and
the program of test/e2e/check_cuda_emulated.py (the same program the CPU
emulation runs: session created, the CUDA Graph replayed twice), runs it on
the GPU and compares the outputs at the conformance tolerances
(run_conformance.compare). It writes OUT/node-tests.md and exits non-zero
when a test fails.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "conformance"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from check_cuda_emulated import (MAIN, bind_shape_inputs, flatten_inputs,  # noqa: E402
                                 graph_outputs, interface, load_set_inputs, output_kinds,
                                 run_program)
from run_conformance import TESTDATA, compare, model_info, out_of_scope  # noqa: E402


def prepare_one(onnxc, test_dir, out):
    """'ok', 'refused: why' or 'fail: why' for one node test."""
    import onnx
    from onnx_tensors import load_value
    gen = os.path.join(out, "gen")
    model = os.path.join(test_dir, "model.onnx")
    graph = onnx.load(model, load_external_data=False).graph

    def set_inputs(s):
        """A data set's inputs as the program takes them: sequences and
        optionals as their tensors, and the onnxc arguments for those."""
        return flatten_inputs(model, load_set_inputs(model, os.path.join(test_dir, s)))
    inputs, names, elements = set_inputs("test_data_set_0")
    with tempfile.TemporaryDirectory(prefix="onnxc-node-bind-") as work:
        # The inputs that decide shapes compiled in, as the emulated run does.
        binds = bind_shape_inputs(onnxc, model, inputs, work, names)
        r = subprocess.run([onnxc, model, "--target", "cuda", "--name", "model", "--quiet",
                            "-o", gen, *binds, *elements], capture_output=True, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[0]
        shutil.rmtree(out, ignore_errors=True)
        return ("refused: " if r.returncode == 3 else "fail: ") + first
    with open(os.path.join(out, "outputs.json"), "w") as f:
        json.dump(output_kinds(model), f)
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    for s in sets:
        os.makedirs(os.path.join(out, s))
        for k, x in enumerate(set_inputs(s)[0]):
            np.save(os.path.join(out, s, f"in{k}.npy"), x)
        for k, o in enumerate(graph.output):
            path = os.path.join(test_dir, s, f"output_{k}.pb")
            if os.path.exists(path):
                save_expected(os.path.join(out, s, f"out{k}"), load_value(path, o.type))
    return "ok"


def save_expected(stem, value):
    """An expected output: an array as STEM.npy, a sequence's (or a present
    optional sequence's) as STEM.npz, an absent optional as an empty
    STEM.none."""
    if value is None:
        open(stem + ".none", "w").close()
    elif isinstance(value, list):
        np.savez(stem + ".npz", *value)
    else:
        np.save(stem + ".npy", value)


def load_expected(stem):
    """save_expected's value back; (False, None) when there is none."""
    if os.path.exists(stem + ".npy"):
        return True, np.load(stem + ".npy", allow_pickle=True)  # strings: object arrays
    if os.path.exists(stem + ".npz"):
        with np.load(stem + ".npz", allow_pickle=True) as z:
            return True, [z[f"arr_{i}"] for i in range(len(z.files))]
    return os.path.exists(stem + ".none"), None


def prepare(a):
    import onnx
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    root = os.path.join(TESTDATA, "node")
    todo, refused = [], []
    for name in sorted(os.listdir(root)):
        test_dir = os.path.join(root, name)
        if not os.path.exists(os.path.join(test_dir, "model.onnx")):
            continue
        m = onnx.load(os.path.join(test_dir, "model.onnx"), load_external_data=False)
        if out_of_scope(name, model_info(m)[0]):
            continue
        todo.append(name)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = dict(zip(todo, pool.map(
            lambda n: prepare_one(a.onnxc, os.path.join(root, n), os.path.join(a.out, n)), todo)))
    kept = [n for n in todo if results[n] == "ok"]
    refused += [(n, results[n]) for n in todo if results[n] != "ok"]
    with open(os.path.join(a.out, "refused.txt"), "w") as f:
        for n, why in refused:
            f.write(f"{n}: {why}\n")
    with open(os.path.join(a.out, "tests.json"), "w") as f:
        json.dump(kept, f)
    print(f"node kit: {len(kept)} tests compiled for cuda, {len(refused)} refused, in {a.out}")


def run_one(kit, name, runtime, nvcc, arch):
    """(status, why, seconds): status 'pass' or 'fail'."""
    start = time.monotonic()
    test = os.path.join(kit, name)
    gen = os.path.join(test, "gen")
    tensors = interface(os.path.join(gen, "model.h"))
    ins = [t for t in tensors if t[0] == "in"]
    outs = [t for t in tensors if t[0] == "out"]
    with tempfile.TemporaryDirectory(prefix="onnxc-node-") as work:
        with open(os.path.join(work, "main.cu"), "w") as f:
            f.write(MAIN)
        program = os.path.join(work, "model")
        for step in (["c++", "-c", os.path.join(gen, "model_weights.S"), "-Wa,-I" + gen,
                      "-o", program + "_weights.o"],
                     [nvcc, "-std=c++17", "-O2", f"-arch={arch}", "-I" + runtime, "-I" + gen,
                      os.path.join(work, "main.cu"), os.path.join(gen, "model.cu"),
                      program + "_weights.o", "-o", program]):
            r = subprocess.run(step, capture_output=True, text=True)
            if r.returncode != 0:
                lines = (r.stderr.strip() or r.stdout.strip()).splitlines() or [""]
                return "fail", "build failed: " + lines[0], time.monotonic() - start
        for s in sorted(d for d in os.listdir(test) if d.startswith("test_data_set_")):
            inputs = [np.load(os.path.join(test, s, f"in{k}.npy"), allow_pickle=True)
                      for k in range(len(ins))]  # (strings are object arrays)
            try:
                kinds = [tuple(k) for k in json.load(open(os.path.join(test, "outputs.json")))]
                outputs = graph_outputs(os.path.join(gen, "model.h"), kinds,
                                        run_program(program, work, inputs, ins, outs,
                                                    timeout=120))
            except (RuntimeError, subprocess.TimeoutExpired) as err:
                return "fail", str(err), time.monotonic() - start
            for k, got in enumerate(outputs):
                given, expected = load_expected(os.path.join(test, s, f"out{k}"))
                if not given:
                    continue
                why = compare(expected, got)
                if why:
                    return "fail", f"{s} output {k}: {why}", time.monotonic() - start
    return "pass", "", time.monotonic() - start


def run(a):
    runtime = os.path.join(ROOT, "runtime-lite", "include")
    tests = [t for t in json.load(open(os.path.join(a.kit, "tests.json")))
             if re.search(a.only, t)]
    refused = open(os.path.join(a.kit, "refused.txt")).read().splitlines()
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = dict(zip(tests, pool.map(
            lambda n: run_one(a.kit, n, runtime, a.nvcc, a.arch), tests)))
    failed = sorted(n for n, (st, _, _) in results.items() if st != "pass")
    for n in failed:
        print(f"FAIL {n}: {results[n][1]}")
    passed = len(tests) - len(failed)
    summary = (f"{passed} of {len(tests)} node tests{' matching ' + repr(a.only) if a.only else ''} passed on the GPU ({len(failed)} failed); "
               f"{len(refused)} refused by the cuda target at compile time; "
               f"{time.monotonic() - start:.0f} s")
    print(summary)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "node-tests.md"), "w") as f:
        f.write("# ONNX node tests on the GPU (onnxc --target cuda)\n\n" + summary + "\n\n")
        f.write("Tolerances: rtol 1e-3, atol 1e-7 (run_conformance.py).\n\n")
        for n in failed:
            f.write(f"- FAIL {n}: {results[n][1]}\n")
        f.write("\n## Passed\n\n" + " ".join(sorted(set(tests) - set(failed))) + "\n")
        f.write("\n## Refused at compile time\n\n" + "\n".join(f"- {r}" for r in refused) + "\n")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--onnxc", default=os.path.join(ROOT, "build", "compiler", "tools", "onnxc"))
    p.add_argument("--out", default=os.path.join(HERE, "kit", "node"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    r = sub.add_parser("run")
    r.add_argument("--kit", default=os.path.join(HERE, "kit", "node"))
    r.add_argument("--out", default=os.environ.get("OUT", "results"))
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    r.add_argument("--nvcc", default="nvcc")
    r.add_argument("--arch", default="sm_90")
    r.add_argument("--only", default="", help="only the tests whose name this regex finds")
    a = ap.parse_args()
    sys.exit(prepare(a) if a.step == "prepare" else run(a))


if __name__ == "__main__":
    main()
