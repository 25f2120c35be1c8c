#!/usr/bin/env bash
# The GPU checks, on the GPU machine (nvcc, PyTorch; no onnxc there), on the
# kit that prepare.py and node_kit.py made here:
#   0. mma_probe.cu: one mma.sync of each tensor-core arithmetic against
#      the host;
#   1. builds every kit/<model>/<variant> with nvcc for sm_90 (in parallel),
#      while node_kit.py builds and runs the ONNX node tests (kit/node;
#      NODE=0: not at all, NODE_ONLY=REGEX: the tests it finds);
#   2. times each build (bench_main.cpp, one at a time) and writes its
#      output; a build whose run fails is rerun under compute-sanitizer;
#   3. torch_gpu.py: parity against eager PyTorch and against the host CPU,
#      and PyTorch's timings at the same precision;
#   4. with NCU=1, Nsight Compute's speed-of-light view of ResNet-18's
#      batch-1 and batch-32 kernels;
#   5. with TILES="1 2" (kernels/cuda/gemm.cuh's Tiles values), each
#      build again with its matrix products forced onto one tile shape
#      (-DONNXC_CUDA_GEMM_TILES), timed and checked against the host, into
#      tiles.md: the data behind choose_tiles.
# Results in $OUT (the device tool's folder) or ./results.
#   bash bench/cuda/run_on_gpu.sh [MODEL...]
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-results}
mkdir -p "$out"
export out
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  for d in kit/*/; do
    [ "$(basename "$d")" = node ] || models+=("$(basename "$d")")
  done
fi
{ nvidia-smi; nvcc --version; python3 -c 'import torch; print("torch", torch.__version__)'; } \
  > "$out/env.txt" 2>&1
runtime=$PWD/../../runtime-lite/include
export runtime
# The tensor cores' fragment layout and rounding, one warp each (mma_probe.cu).
nvcc -std=c++17 -O2 -arch=sm_90 -I"$runtime" mma_probe.cu -o mma_probe &&
  ./mma_probe | tee "$out/mma_probe.txt"

# shellcheck source=build_variant.sh
. ./build_variant.sh
build() { # kit/<model>/<variant> [tiles]: bench, or bench_t<tiles> forced
  if [ -n "${2:-}" ]; then
    build_variant "$1" "_t$2" -DONNXC_CUDA_GEMM_TILES="$2"
  else
    build_variant "$1" ""
  fi
}
export -f build
variants=()
for m in "${models[@]}"; do
  for b in kit/"$m"/b*; do variants+=("$b"); done
done
start=$SECONDS
if [ -d kit/node ] && [ "${NODE:-1}" = 1 ]; then
  python3 node_kit.py run --kit kit/node --out "$out" --jobs "${NODE_JOBS:-8}" \
    --only "${NODE_ONLY:-}" > "$out/node-tests.log" 2>&1 &
  node_pid=$!
fi
jobs=()
for b in "${variants[@]}"; do
  jobs+=("$b")
  for t in ${TILES:-}; do jobs+=("$b $t"); done
done
printf '%s\n' "${jobs[@]}" | xargs -P 12 -I{} bash -c 'build {}' > "$out/build.log" 2>&1
echo "built ${#variants[@]} models in $((SECONDS - start)) s"
if [ -n "${node_pid:-}" ]; then
  wait "$node_pid"
  echo "node tests done at $((SECONDS - start)) s: $(tail -1 "$out/node-tests.log")"
fi
grep -h "BUILD FAILED\|error" "$out/build.log" | head -20
for b in "${variants[@]}"; do
  [ -x "$b/bench" ] || continue
  tag="$(basename "$(dirname "$b")")_$(basename "$b")"
  if ! timeout 120 "$b/bench" 200 "$b/onnxc_out.bin" > "$out/onnxc_$tag.json" 2> "$out/onnxc_$tag.err"; then
    echo "RUN FAILED: $tag: $(cat "$out/onnxc_$tag.err")"
    rm -f "$out/onnxc_$tag.json"
    timeout 120 compute-sanitizer --print-limit 5 "$b/bench" 1 > "$out/sanitizer_$tag.txt" 2>&1
    head -30 "$out/sanitizer_$tag.txt"
  fi
done
echo "timed at $((SECONDS - start)) s"
if [ -n "${TILES:-}" ]; then
  for b in "${variants[@]}"; do
    for t in $TILES; do
      [ -x "$b/bench_t$t" ] || continue
      tag="$(basename "$(dirname "$b")")_$(basename "$b")"
      timeout 120 "$b/bench_t$t" 200 "$b/out_t$t.bin" > "$out/tiles_${tag}_t$t.json" 2> "$out/tiles_${tag}_t$t.err" ||
        echo "RUN FAILED: $tag tiles $t"
    done
  done
  python3 - "$out" "${variants[@]}" <<'PY' > "$out/tiles.md"
import json, os, sys
import numpy as np
out, variants = sys.argv[1], sys.argv[2:]
tiles = os.environ["TILES"].split()
print("| build | auto | " + " | ".join(f"tiles {t}" for t in tiles) + " |")
print("|---|" + "---|" * (len(tiles) + 1))
for b in variants:
    tag = os.path.basename(os.path.dirname(b)) + "_" + os.path.basename(b)
    ref = os.path.join(b, "host_out.bin")
    if not os.path.exists(ref):  # a tf32, fp16 or bf16 build: the float32 build's
        ref = os.path.join(os.path.dirname(b), os.path.basename(b).split("-")[0], "host_out.bin")
    host = np.fromfile(ref, dtype=np.float32)
    def cell(js, outbin):
        try:
            us = json.load(open(js))["median_us"]
            got = np.fromfile(outbin, dtype=np.float32)
            err = float(np.abs(got - host).max() / np.abs(host).max())
            return f"{us:.0f} ({err:.1e})"
        except Exception as e:  # a failed build or run
            return "-"
    cells = [cell(os.path.join(out, f"onnxc_{tag}.json"), os.path.join(b, "onnxc_out.bin"))]
    cells += [cell(os.path.join(out, f"tiles_{tag}_t{t}.json"), os.path.join(b, f"out_t{t}.bin"))
              for t in tiles]
    print(f"| {tag} | " + " | ".join(cells) + " |")
PY
  cat "$out/tiles.md"
fi
timeout "${TORCH_TIMEOUT:-400}" python3 torch_gpu.py --kit kit --out "$out" ${TORCH_ARGS:-} \
  "${models[@]}" > "$out/torch.log" 2>&1 || echo "torch_gpu.py failed: $(tail -3 "$out/torch.log")"
echo "torch done at $((SECONDS - start)) s"
if [ "${NCU:-0}" = 1 ]; then
  for b in 1 32; do
    [ -x kit/resnet18/b$b/bench ] &&
      timeout 90 ncu --clock-control none --section SpeedOfLight --launch-skip 45 --launch-count 45 \
        kit/resnet18/b$b/bench 1 > "$out/ncu-resnet18-b$b.txt" 2>&1
  done
  echo "ncu done at $((SECONDS - start)) s"
fi
cat "$out/cuda-gpu.md" 2>/dev/null
# The device tool returns a few files a call: the per-build timings and
# error logs travel as one archive, beside the tables.
if [ -n "${OUT:-}" ]; then
  (cd "$out" && ls ./*.json ./*.err > /dev/null 2>&1 &&
    tar czf runs.tgz ./*.json ./*.err && rm -f ./*.json ./*.err)
fi
