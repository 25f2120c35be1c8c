# CMake toolchain file: bare-metal Arm Cortex-M with Debian's
# gcc-arm-none-eabi and libnewlib-arm-none-eabi, for the core ONNXC_TARGET
# names. Use one of the per-core files beside it, which set ONNXC_TARGET and
# include this one:
#
#   cmake -S fw -B build-fw -Donnxc_DIR=<prefix>/lib/cmake/onnxc \
#         -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/onnxc/targets/cortex-m/cortex-m4.cmake
#
# The compiler flags are those onnxc's code for that core is built with
# (`onnxc --print-target-flags --target cortex-m4`), so the firmware's own
# code and the model's agree on the core and the float ABI; add_onnx_model
# checks that they do. add_onnx_model(... TARGET native) (or no TARGET) in
# such a build compiles for ONNXC_TARGET.
#
# It also names the QEMU board onnxc's own firmware runs use for the core
# (ONNXC_QEMU_MACHINE, ONNXC_QEMU_CPU) and that board's linker script in
# ${ONNXC_TARGETS_DIR}/cortex-m (ONNXC_BOARD_LINKER_SCRIPT), for projects
# that run under QEMU as examples/fashion-mnist-firmware does; a real board
# brings its own linker script.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# No OS to link a test program against while probing the compiler.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# onnxc itself (a host program) is found through onnxc_DIR.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

if(NOT ONNXC_TARGET)
  message(FATAL_ERROR "arm-none-eabi.cmake: set ONNXC_TARGET (cortex-m0plus, cortex-m3, cortex-m4, "
                      "cortex-m7, cortex-m33, cortex-m55), or use the per-core toolchain file")
endif()
# core: flags; QEMU machine, QEMU cpu, linker script.
if(ONNXC_TARGET STREQUAL "cortex-m0plus")
  set(_onnxc_cpu "-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft")
  set(_onnxc_board microbit cortex-m0 microbit.ld)
elseif(ONNXC_TARGET STREQUAL "cortex-m3")
  set(_onnxc_cpu "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
  set(_onnxc_board mps2-an385 cortex-m3 mps2.ld)
elseif(ONNXC_TARGET STREQUAL "cortex-m4")
  set(_onnxc_cpu "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
  set(_onnxc_board mps2-an386 cortex-m4 mps2.ld)
elseif(ONNXC_TARGET STREQUAL "cortex-m7")
  set(_onnxc_cpu "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16")
  set(_onnxc_board mps2-an500 cortex-m7 mps2.ld)
elseif(ONNXC_TARGET STREQUAL "cortex-m33")
  set(_onnxc_cpu "-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16")
  set(_onnxc_board mps2-an505 cortex-m33 mps2-an505.ld)
elseif(ONNXC_TARGET STREQUAL "cortex-m55")
  set(_onnxc_cpu "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard")
  set(_onnxc_board mps3-an547 cortex-m55 mps3-an547.ld)
else()
  message(FATAL_ERROR "arm-none-eabi.cmake: ONNXC_TARGET '${ONNXC_TARGET}' is not a Cortex-M "
                      "target of onnxc (cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, cortex-m33, cortex-m55)")
endif()
list(GET _onnxc_board 0 ONNXC_QEMU_MACHINE)
list(GET _onnxc_board 1 ONNXC_QEMU_CPU)
list(GET _onnxc_board 2 ONNXC_BOARD_LINKER_SCRIPT)
set(CMAKE_C_FLAGS_INIT "${_onnxc_cpu}")
set(CMAKE_CXX_FLAGS_INIT "${_onnxc_cpu} -fno-exceptions -fno-rtti")
set(CMAKE_ASM_FLAGS_INIT "${_onnxc_cpu}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_onnxc_cpu}")
