#!/usr/bin/env bash
# add_onnx_model's optimisation flags, measured: one model built in a
# consumer project four ways, each timed (median of N runs, pinned to one
# core where taskset exists), in one run on one machine:
#   default      no CMAKE_BUILD_TYPE (CMake's default), a C project
#   release      -DCMAKE_BUILD_TYPE=Release
#   cxx-default  no build type, a C++ project (project(... C CXX))
#   before       OPTIMIZE NONE: the build type's flags alone, as add_onnx_model
#                did before it added the target's (at no build type: -O0)
# Usage: bench/build_types/run.sh MODEL.onnx [ONNXC_DIR] [RUNS] [-- onnxc options]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
model="$(realpath "$1")"
onnxc_dir="$(realpath "${2:-$here/../../build}")"
runs="${3:-50}"
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = "--" ] && shift
options="$*"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pin=""
command -v taskset > /dev/null && pin="taskset -c 1"
declare -A flags=(
  [default]=""
  [release]="-DCMAKE_BUILD_TYPE=Release"
  [cxx-default]="-DLANGUAGES=C;CXX"
  [before]="-DOPTIMIZE=NONE"
)
for kind in default release cxx-default before; do
  cmake -S "$here" -B "$work/$kind" -G Ninja -Donnxc_DIR="$onnxc_dir" -DMODEL="$model" \
        -DMODEL_OPTIONS="$options" ${flags[$kind]} > "$work/$kind.log" 2>&1 ||
    { cat "$work/$kind.log"; exit 1; }
  cmake --build "$work/$kind" >> "$work/$kind.log" 2>&1 || { cat "$work/$kind.log"; exit 1; }
done
# Alternating rounds; the best median of each.
declare -A best
for round in 1 2 3; do
  for kind in default release cxx-default before; do
    us=$($pin "$work/$kind/bench_model_time" "$runs" | sed -n 's/^median \([0-9.]*\) us.*/\1/p')
    if [ -z "${best[$kind]:-}" ] || awk "BEGIN{exit !($us < ${best[$kind]})}"; then
      best[$kind]=$us
    fi
  done
done
echo "model: $(basename "$model") ($options); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf "%-12s %12s %10s\n" build "median us" "/ release"
for kind in default release cxx-default before; do
  printf "%-12s %12.1f %10.3f\n" "$kind" "${best[$kind]}" "$(awk "BEGIN{print ${best[$kind]} / ${best[release]}}")"
done
