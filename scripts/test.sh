#!/usr/bin/env bash
# Builds everything and runs every test suite: lit (dialect, import, passes,
# codegen, errors), the e2e model set against PyTorch, the ONNX backend
# conformance run, the Cortex-M4 QEMU smoke test and the CMake consumer
# examples. Prints ctest's summary (and the conformance line).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
start=$(date +%s)
bash scripts/build.sh
cd build
status=0
ctest -j2 --output-on-failure --timeout 1800 || status=$?
# The conformance runner's closing line, for the log.
grep -h "passed, .* failed" Testing/Temporary/LastTest.log | tail -1 || true
echo "test.sh: build and tests took $(( $(date +%s) - start )) s"
exit $status
