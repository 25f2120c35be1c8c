# Builds a self-checking C++ program (SOURCE, with runtime-lite's headers)
# as Cortex-M firmware (CPU_FLAGS, the startup code and linker script beside
# this file, semihosting) and runs it under qemu-system-arm (MACHINE, CPU):
# the test fails when the program fails or does not finish, or (EXPECT)
# does not print the line it prints on success: QEMU stopped by a signal
# exits 0 too.
#   cmake -DSOURCE=... -DRUNTIME_INCLUDE=... -DWORK=... -DMACHINE=mps2-an386
#         -DCPU=cortex-m4 "-DCPU_FLAGS=-mcpu=cortex-m4;..." [-DLINKER_SCRIPT=mps2.ld]
#         [-DEXPECT=text] -P run_firmware_test.cmake
set(support ${CMAKE_CURRENT_LIST_DIR})
if(NOT LINKER_SCRIPT)
  set(LINKER_SCRIPT mps2.ld)
endif()
file(MAKE_DIRECTORY ${WORK})
execute_process(
  COMMAND arm-none-eabi-gcc -O2 ${CPU_FLAGS} -c ${support}/startup.c -o ${WORK}/startup.o
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the startup code for ${CPU} failed")
endif()
execute_process(
  COMMAND arm-none-eabi-g++ -std=c++17 -O2 -fno-exceptions -fno-rtti -Wall -Wextra -Werror
          ${CPU_FLAGS} -I${RUNTIME_INCLUDE} ${SOURCE} ${WORK}/startup.o
          -T ${support}/${LINKER_SCRIPT} -L ${support} --specs=rdimon.specs -nostartfiles -Wl,--gc-sections
          -o ${WORK}/test.elf
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${SOURCE} for ${CPU} failed")
endif()
execute_process(
  COMMAND qemu-system-arm -M ${MACHINE} -cpu ${CPU} -nographic -monitor none -serial none
          -semihosting-config enable=on,target=native -kernel ${WORK}/test.elf
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 600)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} failed on ${CPU} under QEMU (exit ${rc})")
endif()
if(EXPECT)
  string(FIND "${out}" "${EXPECT}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${SOURCE} on ${CPU} under QEMU did not print '${EXPECT}'")
  endif()
endif()
