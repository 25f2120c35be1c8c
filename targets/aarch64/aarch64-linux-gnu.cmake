# CMake toolchain file: 64-bit Arm Linux with Debian's cross compiler
# (g++-aarch64-linux-gnu), installed with onnxc as
# ${ONNXC_TARGETS_DIR}/aarch64/aarch64-linux-gnu.cmake.
#
#   cmake -S app -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=<that file> -Donnxc_DIR=...
#
# add_onnx_model() in such a build compiles for ONNXC_TARGET (aarch64 unless
# set: -DONNXC_TARGET=aarch64-dotprod for armv8.2-a cores, aarch64-i8mm for
# armv8.6-a) where a model says TARGET native or names none, and adds the
# flags that target's code requires to the model's sources. The rest of the
# program needs no such flag. Programs run under qemu-aarch64 (Debian's
# qemu-user) through CMAKE_CROSSCOMPILING_EMULATOR, e.g. from ctest.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_ASM_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# onnxc itself (a host program) is found through onnxc_DIR.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
set(ONNXC_TARGET aarch64 CACHE STRING
    "onnxc target for add_onnx_model(... TARGET native): aarch64, aarch64-dotprod or aarch64-i8mm")
