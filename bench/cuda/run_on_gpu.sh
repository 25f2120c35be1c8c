#!/usr/bin/env bash
# The GPU checks, on the GPU machine (nvcc, PyTorch; no onnxc there), on the
# kit that prepare.py and node_kit.py made here:
#   1. builds every kit/<model>/<variant> with nvcc for sm_90 (in parallel),
#      while node_kit.py builds and runs the ONNX node tests (kit/node;
#      NODE=0: not at all, NODE_ONLY=REGEX: the tests it finds);
#   2. times each build (bench_main.cpp, one at a time) and writes its
#      output; a build whose run fails is rerun under compute-sanitizer;
#   3. torch_gpu.py: parity against eager PyTorch and against the host CPU,
#      and PyTorch's timings at the same precision;
#   4. with NCU=1, Nsight Compute's speed-of-light view of ResNet-18's
#      batch-1 and batch-32 kernels.
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

build() { # kit/<model>/<variant>
  local b=$1 m
  m=$(dirname "$b")
  nvcc -std=c++17 -O3 -arch=sm_90 -I"$runtime" -I"$b" -c "$b/model.cu" -o "$b/model.o" &&
    c++ -c "$b/model_weights.S" -Wa,-I"$b" -Wa,-I"$m" -o "$b/weights.o" &&
    nvcc -std=c++17 -O3 -arch=sm_90 -I"$runtime" -I"$b" bench_main.cpp "$b/model.o" \
      "$b/weights.o" -o "$b/bench" || echo "BUILD FAILED: $b"
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
printf '%s\n' "${variants[@]}" | xargs -P 8 -I{} bash -c 'build {}' > "$out/build.log" 2>&1
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
