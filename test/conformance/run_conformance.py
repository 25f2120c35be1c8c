#!/usr/bin/python3
"""Runs the ONNX backend tests (Debian's libonnx-testdata) through `onnxc run`.

For every test whose operators onnxc claims to support (`onnxc --list-ops`),
compile and run the model on each test_data_set_N and compare every output
with the expected one at ONNX's usual tolerances (rtol 1e-3, atol 1e-7).
Prints one line per attempted test and a closing `N passed, N failed`, and
writes a per-op support table (docs/op-support.md).

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
from onnx_tensors import load_tensor  # noqa: E402

TESTDATA = "/usr/share/libonnx-testdata/data"
RTOL, ATOL = 1e-3, 1e-7


def model_ops(model):
    """(domain, op_type) of every node, subgraphs included."""
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
    return ops


def compare(expected, actual):
    """None when equal within tolerance, else the reason."""
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


UNSUPPORTED = 3  # onnxc's exit code for "the model uses something not supported yet"


def run_test(onnxc, test_dir):
    """Returns (status, reason, seconds); status is "pass", "fail" or
    "unsupported" (onnxc refused the model with a clear not-supported error)."""
    start = time.monotonic()
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    model = os.path.join(test_dir, "model.onnx")
    for s in sets:
        inputs = os.path.join(test_dir, s)
        with tempfile.TemporaryDirectory(prefix="onnxc-conf-") as out:
            proc = subprocess.run(
                [onnxc, "run", model, "--inputs", inputs, "--outputs", out, "--quiet"],
                capture_output=True, text=True)
            if proc.returncode != 0:
                msg = (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[0]
                status = "unsupported" if proc.returncode == UNSUPPORTED else "fail"
                return status, msg, time.monotonic() - start
            k = 0
            while os.path.exists(os.path.join(inputs, f"output_{k}.pb")):
                expected = load_tensor(os.path.join(inputs, f"output_{k}.pb"))
                got_path = os.path.join(out, f"output_{k}.pb")
                if not os.path.exists(got_path):
                    return "fail", f"no output_{k}", time.monotonic() - start
                try:
                    why = compare(expected, load_tensor(got_path))
                except Exception as err:  # an unreadable output is a failure
                    why = f"cannot read output: {err}"
                if why:
                    return "fail", f"{s} output {k}: {why}", time.monotonic() - start
                k += 1
    return "pass", "", time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnxc", required=True, help="path to the onnxc binary")
    ap.add_argument("--suite", action="append", default=None,
                    help="suite under %s (default: node); repeatable" % TESTDATA)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="", help="only tests whose name contains this")
    ap.add_argument("--report", help="write the op support table (markdown) here")
    args = ap.parse_args()
    suites = args.suite or ["node"]

    supported = set(subprocess.run([args.onnxc, "--list-ops"], capture_output=True,
                                   text=True, check=True).stdout.split())
    attempted, skipped = [], []
    for suite in suites:
        root = os.path.join(TESTDATA, suite)
        for name in sorted(os.listdir(root)):
            if args.filter not in name:
                continue
            test_dir = os.path.join(root, name)
            if not os.path.exists(os.path.join(test_dir, "model.onnx")):
                continue
            model = onnx.load(os.path.join(test_dir, "model.onnx"), load_external_data=False)
            ops = model_ops(model)
            missing = sorted(op for dom, op in ops if dom not in ("", "ai.onnx") or op not in supported)
            entry = (suite, name, test_dir, sorted(op for _, op in ops))
            (skipped if missing else attempted).append((entry, missing))

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_test, args.onnxc, e[2]): e for e, _ in attempted}
        for fut in concurrent.futures.as_completed(futures):
            e = futures[fut]
            status, why, secs = fut.result()
            results[(e[0], e[1])] = (status, why)
            print(f"{status.upper()} {e[0]}/{e[1]} ({secs:.1f}s)"
                  + ("" if status == "pass" else ": " + why), flush=True)

    passed = sum(1 for st, _ in results.values() if st == "pass")
    failed = sum(1 for st, _ in results.values() if st == "fail")
    unsupported = len(results) - passed - failed
    if args.report:
        write_report(args.report, suites, attempted, skipped, results)
    # Tests onnxc refuses with a "not supported" error count as skipped; the
    # report lists each with its reason.
    print(f"{passed} passed, {failed} failed, {unsupported} skipped")
    return 0 if failed == 0 else 1


def write_report(path, suites, attempted, skipped, results):
    per_op = collections.defaultdict(lambda: [0, 0])
    for (suite, name, _, ops), _ in attempted:
        ok = results[(suite, name)][0] == "pass"
        for op in set(ops):
            per_op[op][1] += 1
            per_op[op][0] += int(ok)
    per_suite = collections.defaultdict(lambda: [0, 0, 0, 0])
    for (suite, name, _, _), _ in attempted:
        status = results[(suite, name)][0]
        per_suite[suite][0] += int(status == "pass")
        per_suite[suite][1] += 1
        per_suite[suite][2] += int(status == "unsupported")
    for (suite, _, _, _), _ in skipped:
        per_suite[suite][3] += 1
    lines = [
        "# ONNX operator support",
        "",
        "Generated by `test/conformance/run_conformance.py` from the ONNX backend tests",
        "in Debian's `libonnx-testdata` (ONNX 1.12, opsets up to 17). A test is attempted",
        "when onnxc supports all of its operators; outputs must match at rtol 1e-3,",
        "atol 1e-7. Regenerate with `cmake --build build --target op-support`.",
        "",
        "| suite | passed | attempted | of those, refused as not supported | not attempted (unsupported ops) |",
        "|---|---|---|---|---|",
    ]
    for s in suites:
        p, a, u, n = per_suite[s]
        lines.append(f"| {s} | {p} | {a} | {u} | {n} |")
    lines += ["", "## Per operator", "", "| op | tests passed / attempted |", "|---|---|"]
    for op in sorted(per_op):
        p, a = per_op[op]
        lines.append(f"| {op} | {p} / {a} |")
    for status, title in (("fail", "Attempted tests that fail"),
                          ("unsupported", "Attempted tests onnxc refuses (feature not supported yet)")):
        rows = [(s, n, results[(s, n)][1]) for (s, n, _, _), _ in attempted
                if results[(s, n)][0] == status]
        lines += ["", "## " + title, ""]
        lines += [f"- `{s}/{n}`: {why}" for s, n, why in rows] or ["None."]
    missing = collections.Counter()
    for _, miss in skipped:
        missing.update(miss)
    lines += ["", "## Operators not supported yet (tests they block)", ""]
    lines += [", ".join(f"{op} ({n})" for op, n in sorted(missing.items()))]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
