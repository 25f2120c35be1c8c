#!/usr/bin/env bash
# The GPU benchmark, on the GPU machine (nvcc, PyTorch; no onnxc there):
# builds each model of the kit that prepare.py made here (kit/<model>/b1,
# b32) with nvcc for sm_90, times it (bench_main.cpp), then times PyTorch
# eager and torch.compile on the same weights and inputs and checks parity
# (torch_gpu.py). Results in $OUT (the device tool's folder) or ./results.
# With NCU=1, Nsight Compute's speed-of-light view of ResNet-18's batch-1
# kernels too.
#   bash bench/cuda/run_on_gpu.sh [MODEL...]
set -euo pipefail
cd "$(dirname "$0")"
out=${OUT:-results}
mkdir -p "$out"
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  for d in kit/*/; do models+=("$(basename "$d")"); done
fi
runtime=../../runtime-lite/include
for m in "${models[@]}"; do
  for b in kit/"$m"/b*; do
    tag="${m}_$(basename "$b")"
    nvcc -std=c++17 -O3 -arch=sm_90 -I"$runtime" -I"$b" -c "$b/model.cu" -o "$b/model.o"
    c++ -c "$b/model_weights.S" -Wa,-I"$b" -Wa,-I"kit/$m" -o "$b/weights.o"
    nvcc -std=c++17 -O3 -arch=sm_90 -I"$runtime" -I"$b" bench_main.cpp "$b/model.o" \
      "$b/weights.o" -o "$b/bench"
    "$b/bench" 200 "$b/onnxc_out.bin" | tee "$out/onnxc_$tag.json"
  done
done
python3 torch_gpu.py --kit kit --out "$out" "${models[@]}"
if [ "${NCU:-0}" = 1 ] && [ -x kit/resnet18/b1/bench ]; then
  ncu --section SpeedOfLight --launch-skip 200 --launch-count 30 kit/resnet18/b1/bench 1 \
    > "$out/ncu-resnet18-b1.txt" 2>&1 || true
fi
cat "$out/cuda-gpu.md"
