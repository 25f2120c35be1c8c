# Builds one SIMD kernel sweep test (test/kernels/simd_<family>_test.cpp)
# for aarch64 with the cross compiler and runs it under qemu-aarch64.
#   -DSOURCE=... -DSETUP=... -DCATCH_MAIN=<object> -DRUNTIME_INCLUDE=... -DWORK=...
#   -DMARCH=armv8-a [-DEVERY=N] [-DFIRST=K]
# With -DCATCH_MAIN_SOURCE=test/catch_main.cpp it only compiles Catch2's
# main into CATCH_MAIN (the fixture every sweep links: once, not seven times).
foreach(tool aarch64-linux-gnu-g++:g++-aarch64-linux-gnu qemu-aarch64:qemu-user)
  string(REPLACE ":" ";" parts ${tool})
  list(GET parts 0 program)
  list(GET parts 1 package)
  find_program(found_${program} ${program})
  if(NOT found_${program})
    message(FATAL_ERROR "${program} not found: install Debian's ${package} (apt-get install ${package})")
  endif()
endforeach()
# The flags the aarch64 targets compile the kernels with (Aarch64Target.cpp).
set(flags -std=c++17 -O2 -march=${MARCH} -ffp-contract=off -Wall -Wextra -Werror -pthread)
if(CATCH_MAIN_SOURCE)
  get_filename_component(dir ${CATCH_MAIN} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND ${found_aarch64-linux-gnu-g++} ${flags} -c ${CATCH_MAIN_SOURCE}
                          -o ${CATCH_MAIN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building ${CATCH_MAIN_SOURCE} for ${MARCH} failed (${rc})")
  endif()
  return()
endif()
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${found_aarch64-linux-gnu-g++} ${flags} -static -DONNXC_RT_MIN_TASK_CYCLES=0
                        -I${RUNTIME_INCLUDE} ${SETUP} ${SOURCE} ${CATCH_MAIN} -o ${WORK}/kernel_test
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${SOURCE} for ${MARCH} failed (${rc})")
endif()
# EVERY, FIRST: every how many cases the long sweeps take, from which
# (ONNXC_KERNEL_TEST_EVERY, _FIRST; the environment's EVERY, when set, wins
# and takes them from the first: scripts/kernel-sweeps.sh runs them all).
if(DEFINED ENV{ONNXC_KERNEL_TEST_EVERY})
  set(EVERY $ENV{ONNXC_KERNEL_TEST_EVERY})
  set(FIRST 0)
elseif(NOT EVERY)
  set(EVERY 1)
endif()
if(NOT FIRST)
  set(FIRST 0)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ONNXC_KERNEL_TEST_EVERY=${EVERY}
                        ONNXC_KERNEL_TEST_FIRST=${FIRST}
                        ${found_qemu-aarch64} ${WORK}/kernel_test RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} under qemu-aarch64 (${MARCH}) failed (${rc})")
endif()
