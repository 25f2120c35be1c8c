# --emit firmware as a user meets it: the installed onnxc writes the project
# for BOARD into a clean folder, CMake builds it with nothing but the cross
# toolchain, and the installed `onnxc validate` runs it under QEMU's model of
# the board, over the emulated UART, on the 16 bundled Fashion-MNIST images
# against this machine's build of the same model.
# With -DPROFILE=ON the firmware is built with --profile and validate prints
# each node's instructions and cycles. With -DQEMU_MACHINE=M -DQEMU_CPU=C
# validate talks to it as to a board on a serial port: QEMU runs it on its
# own with the UART on a pseudo-terminal, and validate gets --port /dev/pts/N.
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
if(NOT QEMU_MACHINE)
  step("onnxc validate" ${ONNXC} validate ${MODEL} --board ${BOARD}
       --qemu fw/build/fashion_firmware.elf --inputs inputs)
  return()
endif()
# QEMU names its pseudo-terminal on stderr ("char device redirected to
# /dev/pts/N (label serial0)").
file(WRITE ${WORK}/port.sh "
qemu-system-arm -M ${QEMU_MACHINE} -cpu ${QEMU_CPU} -display none -monitor none -serial pty \\
  -kernel fw/build/fashion_firmware.elf > qemu.log 2>&1 &
qemu=$!
for i in $(seq 100); do
  port=$(grep -o '/dev/pts/[0-9]*' qemu.log) && break
  sleep 0.1
done
'${ONNXC}' validate '${MODEL}' --board ${BOARD} --port \"$port\" --inputs inputs
rc=$?
kill $qemu
exit $rc
")
step("onnxc validate --port" sh ${WORK}/port.sh)
