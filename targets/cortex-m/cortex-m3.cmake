# CMake toolchain file: Arm Cortex-M3, no FPU, soft float (e.g. STM32F1, LM3S6965),
# with Debian's gcc-arm-none-eabi. Installed with onnxc as
# ${ONNXC_TARGETS_DIR}/cortex-m/cortex-m3.cmake:
#
#   cmake -S fw -B build-fw -Donnxc_DIR=<prefix>/lib/cmake/onnxc \
#         -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/onnxc/targets/cortex-m/cortex-m3.cmake
#
# add_onnx_model(... TARGET native), or with no TARGET, then compiles for cortex-m3.
set(ONNXC_TARGET cortex-m3) # what add_onnx_model(... TARGET native) compiles for
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
