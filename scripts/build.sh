#!/usr/bin/env bash
# Configures and builds onnxc in build/ (Release, Ninja). Extra arguments go to
# the build (e.g. a target name).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > build-configure.log 2>&1 || {
  cat build-configure.log; exit 1; }
rm -f build-configure.log
cmake --build build "$@"
