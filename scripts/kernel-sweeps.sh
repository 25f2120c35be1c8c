#!/usr/bin/env bash
# The SIMD kernel sweeps whole: CI's ctest runs every 4th convolution case
# and every 2nd int8 convolution under qemu-aarch64
# (targets/aarch64/tests.cmake) for time; this runs every
# case of every aarch64 sweep, and the x86 sweeps this CPU runs: 335 s on
# the 2-core AVX2-only AMD EPYC. Needs a build (scripts/build.sh).
#   bash scripts/kernel-sweeps.sh
set -euo pipefail
cd "$(dirname "$0")/../build"
ONNXC_KERNEL_TEST_EVERY=1 ctest -j2 --output-on-failure -R '^kernels\.simd\.'
