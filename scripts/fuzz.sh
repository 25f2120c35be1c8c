#!/usr/bin/env bash
# Fuzzes onnxc's front to back (parse -> import -> passes -> C++ emission)
# with libFuzzer: builds test/fuzz/fuzz_compile.cpp and the compiler with
# clang-19, ASan and UBSan in build-fuzz/ (incremental after the first build),
# seeds it with the ONNX backend-test models (Debian's libonnx-testdata, those
# up to 64 KB) and runs it for SECONDS (default 60). Exit 0 when nothing was
# found; a crash, leak, sanitizer report, timeout or memory blow-up leaves the
# input in build-fuzz/artifacts/ and exits non-zero. FUZZ_SEED=N fixes
# libFuzzer's random seed (the test command's run uses 1, so CI repeats the
# inputs a developer's run of the same command tried); unset, each run
# differs.
#   [FUZZ_SEED=N] bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
root=$(pwd)
build=$root/build-fuzz
start=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DONNXC_FUZZ=ON -DONNXC_BUILD_TESTS=OFF > "$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; exit 1; }
fi
ninja -C "$build" onnxc_fuzz_compile | tail -1
built=$(date +%s)

seeds=$build/seeds
if [ ! -d "$seeds" ]; then
  mkdir -p "$seeds"
  for f in /usr/share/libonnx-testdata/data/*/*/model.onnx; do
    if [ "$(stat -c %s "$f")" -le 65536 ]; then
      suite=$(basename "$(dirname "$(dirname "$f")")")
      cp "$f" "$seeds/${suite}_$(basename "$(dirname "$f")").onnx"
    fi
  done
fi
mkdir -p "$build/corpus" "$build/artifacts"
cd "$build"
set +e
./test/fuzz/onnxc_fuzz_compile -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" \
  -max_len=65536 -timeout=30 \
  -rss_limit_mb=4096 -artifact_prefix="$build/artifacts/" -print_final_stats=1 \
  corpus "$seeds" > fuzz.log 2>&1
rc=$?
set -e
grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" fuzz.log || true
echo "fuzz.sh: build $((built - start)) s, fuzzing ${seconds} s, $(ls "$seeds" | wc -l) seeds, corpus $(ls corpus | wc -l) inputs"
if [ $rc -ne 0 ]; then
  grep -E "ERROR|SUMMARY|runtime error|Test unit written" fuzz.log | head -20
  echo "fuzz.sh: FOUND a problem (exit $rc); full report in $build/fuzz.log"
  exit 1
fi
echo "fuzz.sh: nothing found"
