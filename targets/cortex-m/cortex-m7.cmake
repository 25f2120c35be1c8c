# CMake toolchain file: Arm Cortex-M7 with double-precision FPU, hard float (e.g. STM32F7, STM32H7),
# with Debian's gcc-arm-none-eabi. Installed with onnxc as
# ${ONNXC_TARGETS_DIR}/cortex-m/cortex-m7.cmake:
#
#   cmake -S fw -B build-fw -Donnxc_DIR=<prefix>/lib/cmake/onnxc \
#         -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/onnxc/targets/cortex-m/cortex-m7.cmake
#
# add_onnx_model(... TARGET native), or with no TARGET, then compiles for cortex-m7.
set(ONNXC_TARGET cortex-m7) # what add_onnx_model(... TARGET native) compiles for
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
