#!/usr/bin/env bash
# On the GPU machine: the kit's builds again with compile-time knobs of the
# CUDA kernels, each timed and checked against the host, side by side in
# one table (sweep.md): the data behind gemm.cuh's choose_tiles and the
# tensor cores' depth.
#   SWEEP="name:-DFLAG=V,-DFLAG2=V name2:..." bash bench/cuda/sweep.sh kit/<model>/<variant>...
# Each name builds bench_<name> next to the variant's model.cu.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-results}
mkdir -p "$out"
runtime=$PWD/../../runtime-lite/include
export runtime
# shellcheck source=build_variant.sh
. ./build_variant.sh
build() { # variant name flags (comma-separated)
  # shellcheck disable=SC2086
  build_variant "$1" "_$2" ${3//,/ }
}
export -f build
jobs=()
for b in "$@"; do
  for entry in $SWEEP; do jobs+=("$b ${entry%%:*} ${entry#*:}"); done
done
printf '%s\n' "${jobs[@]}" | xargs -P 12 -L 1 bash -c 'build "$0" "$1" "$2"' \
  > "$out/sweep-build.log" 2>&1
grep -h "BUILD FAILED" "$out/sweep-build.log"
for b in "$@"; do
  for entry in $SWEEP; do
    name=${entry%%:*}
    [ -x "$b/bench_$name" ] || continue
    timeout 120 "$b/bench_$name" 200 "$b/out_$name.bin" > "$b/time_$name.json" 2> /dev/null ||
      echo "RUN FAILED: $b $name"
  done
done
python3 - "$@" <<'PY' | tee "$out/sweep.md"
import json, os, sys
import numpy as np
names = [e.split(":")[0] for e in os.environ["SWEEP"].split()]
print("| build | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for b in sys.argv[1:]:
    ref = os.path.join(os.path.dirname(b), os.path.basename(b).split("-")[0], "host_out.bin")
    host = np.fromfile(ref, dtype=np.float32)
    cells = []
    for n in names:
        try:
            us = json.load(open(os.path.join(b, f"time_{n}.json")))["median_us"]
            got = np.fromfile(os.path.join(b, f"out_{n}.bin"), dtype=np.float32)
            cells.append(f"{us:.0f} ({np.abs(got - host).max() / np.abs(host).max():.1e})")
        except Exception:
            cells.append("-")
    print(f"| {b.replace('kit/', '')} | " + " | ".join(cells) + " |")
PY
