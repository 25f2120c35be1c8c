#!/usr/bin/env bash
# The long sets CI samples: the whole ONNX backend node suite through
# `onnxc run` on the targets this machine emulates (CI runs every 12th test
# on aarch64 and Cortex-M4 and every 24th through the CUDA emulation), and
# on the host's x86-64 all four suites (CI's ctest `conformance` runs every
# 2nd test and each operator's first test those miss). Each prints its
# summary line; exit 0 when every target passes (no failure other than the
# known ones). About 45 minutes on 2 cores for the three emulated ones,
# 5 more for x86-64 (313 s at aa96cf9 on the Zen 5 host).
#   bash scripts/node-suites.sh [TARGET ...]   (default: aarch64 cortex-m4 cuda)
#   bash scripts/node-suites.sh x86-64
set -euo pipefail
cd "$(dirname "$0")/.."
onnxc=build/compiler/tools/onnxc
status=0
for target in "${@:-aarch64 cortex-m4 cuda}"; do
  for t in $target; do
    start=$(date +%s)
    case $t in
      cuda) args=(--suite node --cuda-emulated) ;;
      x86-64) args=(--target x86-64) ;; # ctest conformance's suites, all of them
      cortex-m*) args=(--suite node --target "$t" --no-float64 --no-string-io) ;;
      *) args=(--suite node --target "$t" --no-string-io) ;;
    esac
    ONNXC_CXXFLAGS=-Werror /usr/bin/python3 test/conformance/run_conformance.py \
      --onnxc "$onnxc" --jobs 2 "${args[@]}" > "build/node-suite-$t.log" 2>&1 ||
      status=1
    echo "node-suites.sh: $t: $(grep -h '^conformance: ' "build/node-suite-$t.log" | tail -1)" \
         "($(( $(date +%s) - start )) s; log build/node-suite-$t.log)"
  done
done
exit $status
