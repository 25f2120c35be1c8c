#!/usr/bin/python3
"""Runs onnxc on every case of the malformed-model corpus (make_corpus.py).

A case passes when onnxc exits with a status in 1..127 (an error, not a
signal or a timeout), prints "onnxc: error:" and the case's expected text
on stderr (and, where the case says, that many errors: one per cause), and
leaves no output folder. Prints a Markdown table (case,
exit status, first error line) and exits non-zero if any case fails.

Usage: check_corpus.py ONNXC CORPUS_DIR [--timeout S]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("corpus")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    cases = json.load(open(os.path.join(args.corpus, "cases.json")))
    failures = []
    print("| case | exit | error (first line) | verdict |\n|---|---|---|---|")
    for case in cases:
        folder = os.path.join(args.corpus, case["name"])
        out = os.path.join(folder, "out")
        shutil.rmtree(out, ignore_errors=True)
        try:
            p = subprocess.run([args.onnxc, os.path.join(folder, "model.onnx"), "-o", out] +
                               case.get("args", []),
                               capture_output=True, text=True, errors="replace",
                               timeout=args.timeout)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = "timeout", ""
        first = next((l for l in err.splitlines() if "error" in l), err.strip()[:200])
        problems = []
        if not isinstance(rc, int) or rc <= 0 or rc >= 128:
            problems.append(f"exit {rc}")
        if "error:" not in err:
            problems.append("no error message")
        if case["expect"] not in err:
            problems.append(f"error does not mention {case['expect']!r}")
        errors = sum("error:" in l for l in err.splitlines())
        if "errors" in case and errors != case["errors"]:
            problems.append(f"{errors} errors, expected {case['errors']}")
        if os.path.exists(out):
            problems.append("output written")
            shutil.rmtree(out, ignore_errors=True)
        verdict = "ok" if not problems else "FAIL: " + "; ".join(problems)
        cell = first.replace("|", "\\|")[:160]
        print(f"| {case['name']} | {rc} | {cell} | {verdict} |")
        if problems:
            failures.append(case["name"])
    print(f"\n{len(cases) - len(failures)} of {len(cases)} cases rejected cleanly")
    if failures:
        print("failed: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
