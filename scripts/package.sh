#!/usr/bin/env bash
# Builds onnxc's Debian package (docs/install.md): a Release build without the
# test suites in build-package/, then CPack's DEB generator ->
# build-package/onnxc_<version>_amd64.deb. Needs the build dependencies
# (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-package -G Ninja -DCMAKE_BUILD_TYPE=Release -DONNXC_BUILD_TESTS=OFF \
  > build-package.log 2>&1 || { cat build-package.log; exit 1; }
rm -f build-package.log
cmake --build build-package --target onnxc
(cd build-package && cpack -G DEB)
ls build-package/onnxc_*_amd64.deb
