#!/usr/bin/env bash
# The demo: installs the dependencies, builds onnxc, compiles the bundled
# Fashion-MNIST CNN (examples/fashion-mnist/fashion_cnn.onnx) with onnxc through
# add_onnx_model(), and runs it on 16 test images, printing predicted vs true.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh --target onnxc
cmake -S examples/fashion-mnist -B build/demo -G Ninja -Donnxc_DIR="$PWD/build" > /dev/null
cmake --build build/demo
echo
echo "== onnxc's summary for the model =="
build/compiler/tools/onnxc examples/fashion-mnist/fashion_cnn.onnx -o build/demo/summary --name fashion \
  --target native
echo
echo "== the compiled model on the bundled test images =="
build/demo/fashion_demo
