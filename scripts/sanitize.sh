#!/usr/bin/env bash
# Runs the generated code and runtime-lite under AddressSanitizer and UBSan
# (`onnxc run --sanitize`: each model built into a program of its own with
# -fsanitize=address,undefined, any finding fails its run):
#   - the ONNX backend conformance tests on the generic target (the reference
#     kernels: every op), string-I/O tests set aside;
#   - the e2e model set on x86-64 (the SIMD kernels) against PyTorch's outputs.
# Needs a built tree (scripts/build.sh) and the exported models (ctest -R
# e2e.export). Prints each part's summary and duration; exit 0 when clean.
#   bash scripts/sanitize.sh [JOBS] [EVERY]
# EVERY N: every Nth conformance test and each operator's first test those
# miss, so that every operator runs sanitized (CI: 4; default 1, the whole
# suite).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-2}
every=${2:-1}
onnxc=build/compiler/tools/onnxc
models=build/test/models
start=$(date +%s)
status=0
/usr/bin/python3 test/conformance/run_conformance.py --onnxc "$onnxc" --jobs "$jobs" \
  --every "$every" --cover-ops --sanitize > build/sanitize-conformance.log 2>&1 || status=1
tail -2 build/sanitize-conformance.log
grep -E "^REGRESSION" build/sanitize-conformance.log || true
conformance=$(date +%s)
e2e_failed=0 e2e_count=0
for dir in "$models"/*_op17; do
  [ -f "$dir/model.onnx" ] || continue
  e2e_count=$((e2e_count + 1))
  out=$(mktemp -d)
  if "$onnxc" run --sanitize --target x86-64 --quiet "$dir/model.onnx" \
       --inputs "$dir/test_data_set_0" --outputs "$out" > "$out.log" 2>&1 &&
     /usr/bin/python3 test/models/compare_outputs.py "$dir/test_data_set_0" "$out" \
       --max-rel-err 1e-4 >> "$out.log" 2>&1; then
    echo "sanitize: e2e $(basename "$dir") clean"
  else
    echo "sanitize: e2e $(basename "$dir") FAILED:"; head -30 "$out.log"
    e2e_failed=$((e2e_failed + 1)); status=1
  fi
  rm -rf "$out" "$out.log"
done
end=$(date +%s)
echo "sanitize.sh: conformance $((conformance - start)) s; e2e $((e2e_count - e2e_failed)) of $e2e_count clean in $((end - conformance)) s"
exit $status
