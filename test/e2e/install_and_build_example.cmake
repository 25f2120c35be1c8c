# Installs onnxc into PREFIX, then builds and runs the example against it.
# With CROSS=<folder>/<toolchain file> (relative to the installed
# share/onnxc/targets), the example is cross-built with that installed
# toolchain file and run under EMULATOR (a command line, e.g.
# "qemu-aarch64 -L /usr/aarch64-linux-gnu").
file(REMOVE_RECURSE ${PREFIX} ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
set(options "")
set(runner "")
if(CROSS)
  set(toolchain ${PREFIX}/share/onnxc/targets/${CROSS})
  if(NOT EXISTS ${toolchain})
    message(FATAL_ERROR "the install has no toolchain file ${CROSS}")
  endif()
  set(options -DCMAKE_TOOLCHAIN_FILE=${toolchain})
  separate_arguments(runner UNIX_COMMAND "${EMULATOR}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${EXAMPLE} -B ${WORK} -G ${GENERATOR}
                        -Donnxc_DIR=${PREFIX}/lib/cmake/onnxc ${options}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the example against the install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the example against the install failed")
endif()
execute_process(COMMAND ${runner} ${WORK}/fashion_demo RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the example failed")
endif()
