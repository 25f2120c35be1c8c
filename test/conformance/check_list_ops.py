#!/usr/bin/env python3
"""`onnxc --list-ops` against docs/op-support.md and ONNX's operator set.

Every operator with a passing backend test in docs/op-support.md (what the
conformance runner measured) must be listed, and every listed operator must
be an ONNX operator (the onnx package's schemas, plus the operators of
opsets 18-22 that its 1.12 does not know) or one of ONNX Runtime's
com.microsoft operators: none of onnxc's internal ops (FusedConv, QConv,
BlockedConv, ...). Exits non-zero naming each mismatch.
"""
import re
import subprocess
import sys

import onnx.defs

# Operators added in opsets 18 to 22, which ONNX 1.12's schemas predate.
NEWER_OPS = {"BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "CenterCropPad", "Col2Im",
             "GroupNormalization", "Mish", "DeformConv", "AffineGrid", "Gelu", "ImageDecoder",
             "RegexFullMatch", "StringConcat", "StringSplit"}


def main():
    onnxc, doc = sys.argv[1], sys.argv[2]
    listed = subprocess.run([onnxc, "--list-ops"], check=True, capture_output=True,
                            text=True).stdout.split()
    problems = []
    for op in listed:
        if op.startswith("com.microsoft."):
            continue
        if not onnx.defs.has(op) and op not in NEWER_OPS:
            problems.append(f"--list-ops lists '{op}', which is not an ONNX operator")
    passing = set()
    for line in open(doc, encoding="utf-8"):
        m = re.match(r"\| (\w+) \| (\d+) / (\d+) \|", line)
        if m and int(m.group(2)) > 0:
            passing.add(m.group(1))
    for op in sorted(passing - set(listed)):
        problems.append(f"'{op}' passes backend tests (docs/op-support.md) but --list-ops "
                        "omits it")
    for p in problems:
        print(p)
    print(f"check_list_ops: {len(listed)} operators listed, {len(passing)} with passing tests "
          f"in {doc}; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
