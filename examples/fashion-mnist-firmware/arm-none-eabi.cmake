# CMake toolchain file: bare-metal Arm Cortex-M4 with FPU (Debian's
# gcc-arm-none-eabi and libnewlib-arm-none-eabi). add_onnx_model adds the
# flags onnxc's cortex-m4 code needs to the model's own sources; these are
# for the rest of the firmware, which must agree on the CPU and float ABI.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# No OS to link a test program against while probing the compiler.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(cpu "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${cpu}")
set(CMAKE_CXX_FLAGS_INIT "${cpu} -fno-exceptions -fno-rtti")
set(CMAKE_ASM_FLAGS_INIT "${cpu}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${cpu}")
