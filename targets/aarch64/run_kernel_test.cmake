# Builds one SIMD kernel sweep test (test/kernels/simd_<family>_test.cpp)
# for aarch64 with the cross compiler and runs it under qemu-aarch64.
#   -DSOURCE=... -DMAIN=... -DRUNTIME_INCLUDE=... -DWORK=... -DMARCH=armv8-a [-DEVERY=N]
foreach(tool aarch64-linux-gnu-g++:g++-aarch64-linux-gnu qemu-aarch64:qemu-user)
  string(REPLACE ":" ";" parts ${tool})
  list(GET parts 0 program)
  list(GET parts 1 package)
  find_program(found_${program} ${program})
  if(NOT found_${program})
    message(FATAL_ERROR "${program} not found: install Debian's ${package} (apt-get install ${package})")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK})
# The flags the aarch64 targets compile the kernels with (Aarch64Target.cpp).
execute_process(COMMAND ${found_aarch64-linux-gnu-g++} -std=c++17 -O2 -march=${MARCH}
                        -ffp-contract=off -Wall -Wextra -Werror -pthread -static
                        -DONNXC_RT_MIN_TASK_CYCLES=0
                        -I${RUNTIME_INCLUDE} ${MAIN} ${SOURCE} -o ${WORK}/kernel_test
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${SOURCE} for ${MARCH} failed (${rc})")
endif()
# EVERY: every how many cases the long sweeps take (ONNXC_KERNEL_TEST_EVERY).
if(NOT EVERY)
  set(EVERY 1)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ONNXC_KERNEL_TEST_EVERY=${EVERY}
                        ${found_qemu-aarch64} ${WORK}/kernel_test RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} under qemu-aarch64 (${MARCH}) failed (${rc})")
endif()
