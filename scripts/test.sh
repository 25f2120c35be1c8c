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
set +e
ctest -j2 --output-on-failure --timeout 1800 | tee ctest.log
status=${PIPESTATUS[0]}
set -e
# The conformance run's summary (from its ctest log), then ctest's verdict again
# so that it stays the closing line.
echo
grep -h "^conformance: \|^[0-9]* passed, [0-9]* failed" Testing/Temporary/LastTest.log || true
grep -h "tests passed, .* tests failed out of" ctest.log | tail -1 || true
echo "test.sh: build and tests took $(( $(date +%s) - start )) s"
exit $status
