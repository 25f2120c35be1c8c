# --emit firmware as a user meets it: the installed onnxc writes the project
# for BOARD into a clean folder, CMake builds it with nothing but the cross
# toolchain, and the installed `onnxc validate` runs it under QEMU's model of
# the board, over the emulated UART, on the 16 bundled Fashion-MNIST images
# against this machine's build of the same model.
# With -DPROFILE=ON the firmware is built with --profile and validate prints
# each node's instructions and cycles.
#   cmake -DONNXC=<prefix>/bin/onnxc -DBOARD=netduinoplus2 -DMODEL=... -DEXAMPLE=<examples
#         /fashion-mnist-firmware> -DPYTHON=... -DWORK=... -DGENERATOR=Ninja [-DPROFILE=ON]
#         -P firmware_test.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(step what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${rc})")
  endif()
endfunction()
step("writing the input sets" ${PYTHON} ${EXAMPLE}/make_input_sets.py inputs)
set(profile "")
if(PROFILE)
  set(profile --profile)
endif()
step("onnxc --board ${BOARD} --emit firmware"
     ${ONNXC} ${MODEL} --board ${BOARD} --emit firmware -o fw --name fashion --report ${profile})
step("configuring the firmware" ${CMAKE_COMMAND} -S fw -B fw/build -G ${GENERATOR})
step("building the firmware" ${CMAKE_COMMAND} --build fw/build)
step("onnxc validate" ${ONNXC} validate ${MODEL} --board ${BOARD}
     --qemu fw/build/fashion_firmware.elf --inputs inputs)
