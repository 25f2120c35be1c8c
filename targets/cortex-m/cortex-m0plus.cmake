# CMake toolchain file: Arm Cortex-M0+ (no FPU, soft float; e.g. RP2040, STM32G0, the micro:bit's nRF51 class),
# with Debian's gcc-arm-none-eabi. Installed with onnxc as
# ${ONNXC_TARGETS_DIR}/cortex-m/cortex-m0plus.cmake:
#
#   cmake -S fw -B build-fw -Donnxc_DIR=<prefix>/lib/cmake/onnxc \
#         -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/onnxc/targets/cortex-m/cortex-m0plus.cmake
#
# add_onnx_model(... TARGET native), or with no TARGET, then compiles for cortex-m0plus.
set(ONNXC_TARGET cortex-m0plus) # what add_onnx_model(... TARGET native) compiles for
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
