# Sourced by run_on_gpu.sh and sweep.sh (GPU machine): builds one kit
# variant with nvcc for sm_90.
#   build_variant kit/<model>/<variant> SUFFIX [NVCC_FLAG...]
# makes <variant>/bench<SUFFIX> from its model.cu (the flags applied) and
# the model's shared weights; says BUILD FAILED on stdout otherwise.
# $runtime: runtime-lite's include folder.
build_variant() {
  local b=$1 suffix=$2 m
  shift 2
  m=$(dirname "$b")
  nvcc -std=c++17 -O3 -arch=sm_90 "$@" -I"$runtime" -I"$b" -c "$b/model.cu" \
    -o "$b/model$suffix.o" &&
    c++ -c "$b/model_weights.S" -Wa,-I"$b" -Wa,-I"$m" -o "$b/weights$suffix.o" &&
    nvcc -std=c++17 -O3 -arch=sm_90 -I"$runtime" -I"$b" bench_main.cpp "$b/model$suffix.o" \
      "$b/weights$suffix.o" -o "$b/bench$suffix" || echo "BUILD FAILED: $b $suffix $*"
}
export -f build_variant
