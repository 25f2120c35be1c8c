#!/usr/bin/python3
"""Runs the ONNX backend tests (Debian's libonnx-testdata) through `onnxc run`.

Every test of the chosen suites is attempted: compile and run the model on
each test_data_set_N and compare every output with the expected one at
ONNX's usual tolerances (rtol 1e-3, atol 1e-7, NaN equal to NaN). Only tests
whose reference outputs are random (Bernoulli, training-mode Dropout) and the
training-only ops (Adagrad, Adam, Momentum, Gradient) are set aside, listed
with that reason.

A test either passes, fails (wrong numbers, crash, build error) or is
refused (onnxc exit code 3: a feature it does not support yet, with the
reason). The runner prints a line per test and a closing
`N passed, N failed, N skipped` (failed counts refused tests too; skipped
counts the set-aside ones), and writes the per-op table (docs/op-support.md).

known_failures.txt lists the tests that do not pass yet. The run exits
non-zero when a test outside that list does not pass (a regression) or a
listed test passes (update the list with --update-known-failures).

Run with Debian's /usr/bin/python3 (it has onnx and numpy).
"""
import argparse
import collections
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from onnx_tensors import load_value  # noqa: E402

TESTDATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
KNOWN_FAILURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_failures.txt")
RTOL, ATOL = 1e-3, 1e-7
UNSUPPORTED = 3  # onnxc's exit code for "the model uses something not supported yet"
TRAINING_OPS = {"Adagrad", "Adam", "Momentum", "Gradient"}
RANDOM_OPS = {"Bernoulli"}


def model_info(model):
    """(ops, opset, dtypes): op types (subgraphs included), the default-domain
    opset, and the element types of the graph's inputs and outputs."""
    ops = set()

    def walk(graph):
        for node in graph.node:
            ops.add((node.domain or "", node.op_type))
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)

    walk(model.graph)
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                default=0)
    dtypes = set()
    for vi in list(model.graph.input) + list(model.graph.output):
        if vi.type.HasField("tensor_type"):
            dtypes.add(onnx.TensorProto.DataType.Name(vi.type.tensor_type.elem_type).lower())
        else:
            dtypes.add(vi.type.WhichOneof("value"))
    return ops, opset, dtypes


def out_of_scope(name, ops):
    names = {op for _, op in ops}
    if names & TRAINING_OPS:
        return "training-only op " + ", ".join(sorted(names & TRAINING_OPS))
    if names & RANDOM_OPS or "bernoulli" in name:
        return "random reference outputs (Bernoulli)"
    if "Dropout" in names and "training" in name:
        return "random reference outputs (training-mode Dropout)"
    return None


def compare(expected, actual):
    """None when equal within tolerance, else the reason. Sequences are
    lists, an empty optional is None."""
    if isinstance(expected, list) or isinstance(actual, list):
        if not (isinstance(expected, list) and isinstance(actual, list)):
            return "a sequence against a tensor"
        if len(expected) != len(actual):
            return f"sequence of {len(actual)} != expected {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            why = compare(e, a)
            if why:
                return f"element {i}: {why}"
        return None
    if expected is None or actual is None:
        return None if expected is actual else "optional presence differs"
    if expected.shape != actual.shape:
        return f"shape {actual.shape} != expected {expected.shape}"
    if expected.dtype != actual.dtype:
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if expected.dtype.kind in "fc":
        if not np.allclose(actual, expected, rtol=RTOL, atol=ATOL, equal_nan=True):
            err = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
            return f"max abs error {np.nanmax(err):.3g} beyond rtol {RTOL}, atol {ATOL}"
        return None
    if not np.array_equal(actual, expected):
        return f"{int(np.sum(actual != expected))} elements differ"
    return None


def run_emulated_test(onnxc, test_dir):
    """run_test for --cuda-emulated: the model's CUDA code run on the CPU
    (test/e2e/check_cuda_emulated.py); sequences and optionals pass as their
    tensors (onnxc --elements)."""
    from check_cuda_emulated import Refused, load_set_inputs, run_emulated
    start = time.monotonic()
    model = os.path.join(test_dir, "model.onnx")
    graph = onnx.load(model, load_external_data=False).graph
    for s in sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_")):
        inputs = load_set_inputs(model, os.path.join(test_dir, s))
        try:
            outputs = run_emulated(onnxc, model, inputs)
        except Refused as err:
            return "refused", str(err), time.monotonic() - start
        except Exception as err:  # build errors, crashes, timeouts
            return "fail", str(err).splitlines()[0] if str(err) else repr(err), time.monotonic() - start
        for k, got in enumerate(outputs):
            path = os.path.join(test_dir, s, f"output_{k}.pb")
            if not os.path.exists(path):
                return "fail", f"output {k} is not expected", time.monotonic() - start
            why = compare(load_value(path, graph.output[k].type), got)
            if why:
                return "fail", f"{s} output {k}: {why}", time.monotonic() - start
    return "pass", "", time.monotonic() - start


def sample(tests, every, cover_ops):
    """Every `every`-th of `tests` (in their order); with `cover_ops`, plus the
    first test of each operator (subgraphs' included) that those miss, so
    that a sampled run still reaches every operator."""
    every = max(every, 1)
    kept = [i % every == 0 for i in range(len(tests))]
    if cover_ops:
        covered = {op for t, k in zip(tests, kept) if k for op in t["ops"]}
        for i, t in enumerate(tests):
            if not kept[i] and not covered.issuperset(t["ops"]):
                kept[i] = True
                covered.update(t["ops"])
    return [t for t, k in zip(tests, kept) if k]


def run_test(onnxc, target, test_dir, extra=()):
    """Returns (status, reason, seconds); status is "pass", "fail" or
    "refused" (onnxc stopped with a clear not-supported error)."""
    if target == "cuda-emulated":
        return run_emulated_test(onnxc, test_dir)
    start = time.monotonic()
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    model = os.path.join(test_dir, "model.onnx")
    out_types = [o.type for o in onnx.load(model, load_external_data=False).graph.output]
    for s in sets:
        inputs = os.path.join(test_dir, s)
        with tempfile.TemporaryDirectory(prefix="onnxc-conf-") as out:
            try:
                proc = subprocess.run(
                    [onnxc, "run", "--target", target, model, "--inputs", inputs,
                     "--outputs", out, "--quiet", *extra],
                    capture_output=True, text=True, timeout=600)
            except subprocess.TimeoutExpired:
                return "fail", "timed out", time.monotonic() - start
            if proc.returncode != 0:
                lines = proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode]
                status = "refused" if proc.returncode == UNSUPPORTED else "fail"
                return status, lines[0], time.monotonic() - start
            k = 0
            while os.path.exists(os.path.join(inputs, f"output_{k}.pb")):
                otype = out_types[k] if k < len(out_types) else onnx.TypeProto()
                expected = load_value(os.path.join(inputs, f"output_{k}.pb"), otype)
                got_path = os.path.join(out, f"output_{k}.pb")
                if not os.path.exists(got_path):
                    return "fail", f"no output_{k}", time.monotonic() - start
                try:
                    why = compare(expected, load_value(got_path, otype))
                except Exception as err:  # an unreadable output is a failure
                    why = f"cannot read output: {err}"
                if why:
                    return "fail", f"{s} output {k}: {why}", time.monotonic() - start
                k += 1
    return "pass", "", time.monotonic() - start


def read_known_failures():
    """test id -> the note after '#' on its line (may be empty)."""
    known = {}
    if os.path.exists(KNOWN_FAILURES):
        for line in open(KNOWN_FAILURES):
            tid, _, note = line.partition("#")
            if tid.strip():
                known[tid.strip()] = note.strip()
    return known


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True, help="path to the onnxc binary")
    ap.add_argument("--suite", action="append", default=None,
                    help=f"suite under --root (default: all of {', '.join(SUITES)})")
    ap.add_argument("--root", default=TESTDATA,
                    help="folder holding the suites, or the tests themselves with --suite .")
    ap.add_argument("--target", default="generic",
                    help="onnxc target the tests compile for (a host target)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", action="append", default=[],
                    help="only tests whose name contains this (repeated: any of them)")
    ap.add_argument("--report", help="write the op support table (markdown) here")
    ap.add_argument("--update-known-failures", action="store_true",
                    help="rewrite known_failures.txt from this run")
    ap.add_argument("--every", type=int, default=1, metavar="K",
                    help="attempt every K-th test of the selection (a documented subset, "
                         "e.g. for an emulated target in CI)")
    ap.add_argument("--cover-ops", action="store_true",
                    help="with --every: also attempt each operator's first test where the "
                         "sample holds none of that operator's tests")
    ap.add_argument("--no-float64", action="store_true",
                    help="set aside the tests with float64 inputs or outputs and count a "
                         "float64 refusal as set aside (targets without a double-precision "
                         "FPU refuse float64 by design)")
    ap.add_argument("--no-string-io", action="store_true",
                    help="set aside the tests with string inputs or outputs (strings cannot "
                         "cross into a firmware under QEMU)")
    ap.add_argument("--sanitize", action="store_true",
                    help="onnxc run --sanitize: the generated code and runtime-lite built "
                         "with AddressSanitizer and UBSan (tests with string inputs or "
                         "outputs are set aside: strings cannot cross into that program)")
    ap.add_argument("--cuda-emulated", action="store_true",
                    help="run each model's --target cuda code on the CPU through "
                         "test/kernels/cuda_emulation.h (no GPU needed); tests the CUDA "
                         "target refuses (ops it has no kernel for) are reported, not "
                         "counted as regressions")
    ap.add_argument("--no-refusals", action="store_true",
                    help="with --cuda-emulated: count a refusal as a regression (for a "
                         "selection the CUDA target covers whole)")
    args = ap.parse_args()
    extra = ["--sanitize"] if args.sanitize else []
    if args.cuda_emulated:
        args.target = "cuda-emulated"
    suites = args.suite or SUITES

    tests, set_aside = [], []
    for suite in suites:
        root = os.path.join(args.root, suite)
        for name in sorted(os.listdir(root)):
            test_dir = os.path.join(root, name)
            wanted = not args.filter or any(f in name for f in args.filter)
            if not wanted or not os.path.exists(os.path.join(test_dir, "model.onnx")):
                continue
            m = onnx.load(os.path.join(test_dir, "model.onnx"), load_external_data=False)
            ops, opset, dtypes = model_info(m)
            entry = dict(id=f"{os.path.basename(os.path.normpath(root))}/{name}", suite=suite, dir=test_dir,
                         ops=sorted({op for _, op in ops}), opset=opset, dtypes=dtypes)
            why = out_of_scope(name, ops)
            if (args.sanitize or args.no_string_io) and not why and any(
                    v.type.tensor_type.elem_type == onnx.TensorProto.STRING
                    for v in list(m.graph.input) + list(m.graph.output)):
                why = ("string inputs or outputs cannot cross into a "
                       + ("sanitized program" if args.sanitize else "firmware under QEMU"))
            if args.no_float64 and not why and "double" in dtypes:
                why = "float64 tensors: the target has no double-precision FPU"
            if why:
                entry["why"] = why
                set_aside.append(entry)
            else:
                tests.append(entry)
    tests = sample(tests, args.every, args.cover_ops)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_test, args.onnxc, args.target, t["dir"], extra): t
                   for t in tests}
        for fut in concurrent.futures.as_completed(futures):
            t = futures[fut]
            status, why, secs = fut.result()
            if args.no_float64 and status == "refused" and "computes in float64" in why:
                t["why"] = "computes in float64 inside: the target has no double-precision FPU"
                set_aside.append(t)
                print(f"SET ASIDE {t['id']}: {why}", flush=True)
                continue
            results[t["id"]] = (status, why)
            print(f"{status.upper()} {t['id']} ({secs:.1f}s)" + ("" if status == "pass" else ": " + why),
                  flush=True)

    tests = [t for t in tests if t["id"] in results]
    passed = sum(1 for st, _ in results.values() if st == "pass")
    refused = sum(1 for st, _ in results.values() if st == "refused")
    failed = len(results) - passed
    if args.report:
        write_report(args.report, suites, tests, set_aside, results, read_known_failures())

    not_passing = {tid for tid, (st, _) in results.items() if st != "pass"}
    if args.cuda_emulated and not args.no_refusals:  # it covers a subset of the ops
        not_passing = {tid for tid, (st, _) in results.items() if st == "fail"}
    if args.update_known_failures:
        old = read_known_failures()
        attempted = {t["id"] for t in tests}
        keep = {tid for tid in old if tid not in attempted} | not_passing
        with open(KNOWN_FAILURES, "w") as f:
            f.write("# Backend tests that do not pass yet (docs/op-support.md gives each one's\n"
                    "# error). Rewritten by run_conformance.py --update-known-failures, which\n"
                    "# keeps the notes after '#'.\n")
            for tid in sorted(keep):
                note = old.get(tid, "")
                f.write(tid + (f"  # {note}" if note else "") + "\n")
    known = read_known_failures()
    regressions = sorted(not_passing - set(known))
    fixed = sorted(tid for tid in known if tid in results and tid not in not_passing
                   and results[tid][0] == "pass")
    for tid in regressions:
        print(f"REGRESSION {tid}: {results[tid][1]}")
    for tid in fixed:
        print(f"NOW PASSES {tid}: remove it from known_failures.txt")
    sampled = f" (a sample: 1 test in {args.every}" + (
        ", and each operator's first test the sample missed)" if args.cover_ops else ")")
    print(f"conformance: {len(tests)} attempted in {', '.join(suites)}"
          f"{sampled if args.every > 1 else ''}: {passed} pass, "
          f"{failed - refused} fail, {refused} refused as not supported; "
          f"{len(set_aside)} set aside as out of scope")
    print(f"{passed} passed, {failed} failed, {len(set_aside)} skipped")
    return 1 if regressions or fixed else 0


def write_report(path, suites, tests, set_aside, results, notes):
    per_op = collections.defaultdict(lambda: dict(passed=0, attempted=0, opsets=set(), dtypes=set()))
    per_suite = collections.defaultdict(lambda: collections.Counter())
    for t in tests:
        status = results[t["id"]][0]
        per_suite[t["suite"]][status] += 1
        per_suite[t["suite"]]["attempted"] += 1
        for op in t["ops"]:
            d = per_op[op]
            d["attempted"] += 1
            d["passed"] += status == "pass"
            if status == "pass":
                d["opsets"].add(t["opset"])
                d["dtypes"] |= t["dtypes"]
    for t in set_aside:
        per_suite[t["suite"]]["set aside"] += 1
    lines = [
        "# ONNX operator support",
        "",
        "Generated by `test/conformance/run_conformance.py` from the ONNX backend tests",
        "in Debian's `libonnx-testdata` (ONNX 1.12, opsets 1 to 17). Every test is",
        "attempted: `onnxc run` compiles the model for the host, runs it on each data set",
        "and every output must match at rtol 1e-3, atol 1e-7 (NaN equals NaN). Only tests",
        "with random reference outputs and the training-only ops are set aside.",
        "Regenerate with `cmake --build build --target op-support`.",
        "",
        "| suite | attempted | pass | fail | refused (not supported) | set aside |",
        "|---|---|---|---|---|---|",
    ]
    for s in suites:
        c = per_suite[s]
        lines.append(f"| {s} | {c['attempted']} | {c['pass']} | {c['fail']} | {c['refused']} | "
                     f"{c['set aside']} |")
    lines += ["", "## Per operator", "",
              "Opsets and dtypes are those of the passing tests (the model's opset; the",
              "element types of its inputs and outputs).", "",
              "| op | passed / attempted | opsets | dtypes |", "|---|---|---|---|"]
    for op in sorted(per_op):
        d = per_op[op]
        lines.append(f"| {op} | {d['passed']} / {d['attempted']} | "
                     f"{', '.join(map(str, sorted(d['opsets']))) or '-'} | "
                     f"{', '.join(sorted(d['dtypes'])) or '-'} |")
    for status, title in (("fail", "Tests that fail"),
                          ("refused", "Tests onnxc refuses (not supported yet)")):
        rows = [(t["id"], results[t["id"]][1]) for t in tests if results[t["id"]][0] == status]
        lines += ["", f"## {title} ({len(rows)})", ""]
        lines += [f"- `{tid}`: {why}" + (f" ({notes[tid]})" if notes.get(tid) else "")
                  for tid, why in rows] or ["None."]
    lines += ["", f"## Set aside as out of scope ({len(set_aside)})", ""]
    lines += [f"- `{t['id']}`: {t['why']}" for t in set_aside] or ["None."]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
