# Cortex-M tests, included by test/CMakeLists.txt.
# The CIFAR CNN through `onnxc run --target cortex-mX` (a firmware run under
# qemu-system-arm) against PyTorch's outputs on every core with an FPU (its
# float arena does not fit the micro:bit's 16 KB that cortex-m0plus runs on),
# and the model's object checked for heap, exception and RTTI symbols (it
# must be freestanding).
foreach(cpu cortex-m4 cortex-m7 cortex-m33 cortex-m55)
  add_test(NAME ${cpu}.cifar_cnn
           COMMAND ${CMAKE_COMMAND}
                   -DONNXC=$<TARGET_FILE:onnxc> -DPYTHON=${ONNXC_PYTHON} -DTARGET=${cpu}
                   -DMODEL_DIR=${MODEL_DIR}/cifar_cnn_op13 -DCOMPARE=${E2E_COMPARE}
                   -P ${E2E_RUN})
  set_tests_properties(${cpu}.cifar_cnn PROPERTIES FIXTURES_REQUIRED models
                       ENVIRONMENT ${WERROR_ENV})
endforeach()
add_test(NAME cortex-m4.freestanding
         COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_freestanding.py
                 --onnxc $<TARGET_FILE:onnxc>
                 --model ${MODEL_DIR}/cifar_cnn_op13/model.onnx
                 --work ${CMAKE_CURRENT_BINARY_DIR}/cortex-m4-freestanding)
set_tests_properties(cortex-m4.freestanding PROPERTIES FIXTURES_REQUIRED models
                     ENVIRONMENT ${WERROR_ENV})
# The int8 QDQ models on Cortex-M against their reference outputs.
foreach(test cortex-m4.fashion_qdq cortex-m4.blocks_qdq cortex-m33.fashion_qdq
             cortex-m55.fashion_qdq)
  string(REPLACE "." ";" parts ${test})
  list(GET parts 0 cpu)
  list(GET parts 1 model)
  add_test(NAME ${test}
           COMMAND ${ONNXC_PYTHON} ${QDQ_CHECK} --onnxc $<TARGET_FILE:onnxc>
                   --model-dir ${QUANT_DIR}/${model} --target ${cpu})
  set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED qdq_models
                       ENVIRONMENT ${WERROR_ENV})
endforeach()
# A model quantized by PyTorch (uint8 activations, Q -> Cast -> DQ) on the
# Cortex-M4's kernels against ONNX Runtime.
add_test(NAME cortex-m4.pytorch_eager_fbgemm
         COMMAND ${ONNXC_PYTHON} ${QDQ_CHECK} --onnxc $<TARGET_FILE:onnxc>
                 --model-dir ${PRODUCERS_DIR}/pytorch_eager_fbgemm --target cortex-m4)
set_tests_properties(cortex-m4.pytorch_eager_fbgemm PROPERTIES ENVIRONMENT ${WERROR_ENV})
# The bundled Fashion-MNIST CNN quantized by onnxc, one test image, on every
# core: the same integers as the host build (plain C on the M0+, whose 16 KB
# micro:bit holds it: arena 5.9 KB; SMLAD and the fused pool on the others).
foreach(cpu cortex-m0plus cortex-m4 cortex-m7 cortex-m33 cortex-m55)
  add_test(NAME ${cpu}.fashion_int8
           COMMAND ${ONNXC_PYTHON} ${SAME_AS_HOST}
                   --onnxc $<TARGET_FILE:onnxc> --target ${cpu}
                   --model ${PROJECT_SOURCE_DIR}/examples/fashion-mnist/fashion_cnn.onnx
                   --inputs ${QUANT_DIR}/fashion_data/test --input-slice 1
                   -- --quantize int8 --calibration ${QUANT_DIR}/fashion_data/calibration)
  set_tests_properties(${cpu}.fashion_int8 PROPERTIES FIXTURES_REQUIRED calibration_data
                       ENVIRONMENT ${WERROR_ENV})
endforeach()
# Silero VAD (both versions, as downloaded; test/realworld) on Cortex-M4:
# the firmware under QEMU against ONNX Runtime's outputs.
add_test(NAME cortex-m4.silero_vad
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/realworld/check_models.py
                 $<TARGET_FILE:onnxc> --target cortex-m4
                 --models silero_vad_v5,silero_vad_legacy)
set_tests_properties(cortex-m4.silero_vad PROPERTIES ENVIRONMENT ${WERROR_ENV})
# The microcontroller kernels against the reference ones, as firmware: the
# DSP instructions and the hand-scheduled loops themselves (the same test
# runs on the host as kernels.mcu), on a core's QEMU board (MACHINE, CPU,
# linker script) with its flags.
function(mcu_kernels_test core machine cpu script flags)
  add_test(NAME ${core}.mcu_kernels
           COMMAND ${CMAKE_COMMAND}
                   -DSOURCE=${PROJECT_SOURCE_DIR}/test/kernels/mcu_test.cpp
                   -DRUNTIME_INCLUDE=${PROJECT_SOURCE_DIR}/runtime-lite/include
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/${core}-mcu-kernels
                   -DMACHINE=${machine} -DCPU=${cpu} -DLINKER_SCRIPT=${script}
                   "-DCPU_FLAGS=${flags}"
                   "-DEXPECT=mcu kernels: all match the reference"
                   -P ${CMAKE_CURRENT_LIST_DIR}/run_firmware_test.cmake)
endfunction()
mcu_kernels_test(cortex-m4 mps2-an386 cortex-m4 mps2.ld
                 "-mcpu=cortex-m4;-mthumb;-mfloat-abi=hard;-mfpu=fpv4-sp-d16")
# Armv8.1-M: the DSP loops and Helium's.
mcu_kernels_test(cortex-m55 mps3-an547 cortex-m55 mps3-an547.ld
                 "-mcpu=cortex-m55;-mthumb;-mfloat-abi=hard")
# ARMv7-M without DSP: the MLA loops (int8 convolution weights, the M3's default).
mcu_kernels_test(cortex-m3 mps2-an385 cortex-m3 mps2.ld "-mcpu=cortex-m3;-mthumb;-mfloat-abi=soft")
# ARMv6-M (the M0+'s loops in Thumb-1 assembly), on mps2-an385: its Cortex-M3
# runs ARMv6-M code as it is, and the micro:bit's 16 KB of RAM do not hold the test.
mcu_kernels_test(cortex-m0plus mps2-an385 cortex-m3 mps2.ld
                 "-mcpu=cortex-m0plus;-mthumb;-mfloat-abi=soft")
# `onnxc run --count-instructions` loads onnxc's QEMU plugin and reports a
# count per inference (its value is measured in bench/results/cortex-m.md).
add_test(NAME cortex-m4.count_instructions
         COMMAND $<TARGET_FILE:onnxc> run ${MODEL_DIR}/cifar_cnn_op13/model.onnx
                 --target cortex-m4 --count-instructions --repeat 2 --quiet
                 --inputs ${MODEL_DIR}/cifar_cnn_op13/test_data_set_0
                 --outputs ${CMAKE_CURRENT_BINARY_DIR}/cortex-m4-count)
set_tests_properties(cortex-m4.count_instructions PROPERTIES FIXTURES_REQUIRED models
                     PASS_REGULAR_EXPRESSION "instructions per inference: [1-9][0-9]+ "
                     ENVIRONMENT ${WERROR_ENV})
# The firmware example (examples/fashion-mnist-firmware) on every core, as a
# user builds it: onnxc installed (fixture `installed`, test/CMakeLists.txt),
# the core's installed toolchain file, no build type (the model still gets
# -O2), add_onnx_model with no TARGET (the toolchain's core) and RAM/flash
# budgets; run on the QEMU board the toolchain file names.
foreach(core cortex-m0plus:microbit:cortex-m0 cortex-m4:mps2-an386:cortex-m4
             cortex-m7:mps2-an500:cortex-m7 cortex-m33:mps2-an505:cortex-m33
             cortex-m55:mps3-an547:cortex-m55)
  string(REPLACE ":" ";" parts ${core})
  list(GET parts 0 cpu)
  list(GET parts 1 machine)
  list(GET parts 2 qemu_cpu)
  add_test(NAME ${cpu}.example_firmware
           COMMAND ${CMAKE_COMMAND}
                   -DEXAMPLE=${PROJECT_SOURCE_DIR}/examples/fashion-mnist-firmware
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/${cpu}-example-firmware
                   -DGENERATOR=${CMAKE_GENERATOR} -DONNXC_DIR=${INSTALLED_ONNXC_DIR}
                   -DOPTIONS=-DCMAKE_TOOLCHAIN_FILE=${INSTALLED_TARGETS}/cortex-m/${cpu}.cmake
                   "-DRUNNER=qemu-system-arm -M ${machine} -cpu ${qemu_cpu} -nographic -monitor none -serial none -semihosting-config enable=on,target=native -kernel"
                   -DPROGRAM=fashion_firmware.elf -DMODEL_SOURCE=fashion.cpp -DEXPECT_FLAG=-O2
                   -P ${CONSUMER_CHECK})
  set_tests_properties(${cpu}.example_firmware PROPERTIES FIXTURES_REQUIRED installed
                       PASS_REGULAR_EXPRESSION "int8 on ${cpu}: arena [0-9]+ bytes.*15 of 16 correct")
endforeach()
# The ONNX backend node tests through `onnxc run --target cortex-m4`, each a
# firmware under QEMU, against the expected outputs: every test that passes
# on the host passes here, but for those with float64 (no double-precision
# FPU: refused by design) or string inputs or outputs (they cannot cross into
# a firmware), which are set aside. Every 12th test in CI (each is a cross
# build and a QEMU run, about 2 s: the whole suite takes 14 minutes on 2
# cores); the whole suite: scripts/node-suites.sh cortex-m4
# (docs/targets.md).
add_test(NAME cortex-m4.node_tests
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/conformance/run_conformance.py
                 --onnxc $<TARGET_FILE:onnxc> --suite node --target cortex-m4 --jobs 2
                 --every 12 --no-float64 --no-string-io)
set_tests_properties(cortex-m4.node_tests PROPERTIES ENVIRONMENT ${WERROR_ENV})
# The four MLPerf Tiny architectures (bench/mlperf_tiny/make_models.py:
# ResNet-8, DS-CNN, MobileNetV1 0.25, the FC autoencoder), quantized to int8
# by onnxc and run as Cortex-M firmware: the same integers as the host
# build (their instruction counts: bench/results/mlperf-tiny.md).
set(MLPERF_DIR ${CMAKE_CURRENT_BINARY_DIR}/mlperf-tiny)
add_test(NAME cortex-m.mlperf_tiny_models
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/bench/mlperf_tiny/make_models.py
                 ${MLPERF_DIR})
set_tests_properties(cortex-m.mlperf_tiny_models PROPERTIES FIXTURES_SETUP mlperf_models)
# DS-CNN and MobileNet also on the M55 (Helium's VMLADAVA convolutions).
foreach(test cortex-m4.resnet8 cortex-m4.dscnn cortex-m4.mobilenet cortex-m4.autoencoder
             cortex-m55.dscnn cortex-m55.mobilenet)
  string(REPLACE "." ";" parts ${test})
  list(GET parts 0 cpu)
  list(GET parts 1 model)
  add_test(NAME ${cpu}.mlperf_${model}
           COMMAND ${ONNXC_PYTHON} ${SAME_AS_HOST}
                   --onnxc $<TARGET_FILE:onnxc> --target ${cpu}
                   --model ${MLPERF_DIR}/${model}/model.onnx --inputs ${MLPERF_DIR}/${model}/test
                   -- --quantize int8 --calibration ${MLPERF_DIR}/${model}/calibration)
  set_tests_properties(${cpu}.mlperf_${model} PROPERTIES FIXTURES_REQUIRED mlperf_models
                       ENVIRONMENT ${WERROR_ENV})
endforeach()
# --emit firmware for the boards QEMU models (firmware_test.cmake): the
# installed onnxc, a clean folder, the project built by CMake alone, run
# over the UART and checked by `onnxc validate` against the host's build;
# the Netduino Plus 2's and the LM3S6965's built with --profile, validate
# printing each node's instructions (QEMU's count) and cycles.
foreach(board netduinoplus2:ON lm3s6965evb:ON microbit:OFF mps3-an547:OFF)
  string(REPLACE ":" ";" parts ${board})
  list(GET parts 0 board)
  list(GET parts 1 profile)
  set(expect "16 of 16 input sets agree with the host")
  if(profile)
    set(expect "QConvNhwc '/net/net.4/Conv' +[1-9][0-9]+ .*${expect}")
  endif()
  # The LM3S6965's PLL, which QEMU models, takes it to 50 MHz; the
  # STM32F405's, which QEMU does not, times out to the 16 MHz HSI. QEMU's
  # DWT cycle counter reads zero: the firmware counts with the SysTick.
  if(board STREQUAL "lm3s6965evb")
    set(expect "${expect}.* at 50000000 Hz \\(systick\\)")
  elseif(board STREQUAL "netduinoplus2")
    set(expect "${expect}.* at 16000000 Hz")
  endif()
  add_test(NAME firmware.${board}
           COMMAND ${CMAKE_COMMAND} -DONNXC=${PREFIX}/bin/onnxc -DBOARD=${board}
                   -DMODEL=${PROJECT_SOURCE_DIR}/examples/fashion-mnist-firmware/fashion_cnn_int8.onnx
                   -DEXAMPLE=${PROJECT_SOURCE_DIR}/examples/fashion-mnist-firmware
                   -DPYTHON=${ONNXC_PYTHON} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/firmware-${board}
                   -DGENERATOR=${CMAKE_GENERATOR} -DPROFILE=${profile}
                   -P ${CMAKE_CURRENT_LIST_DIR}/firmware_test.cmake)
  set_tests_properties(firmware.${board} PROPERTIES FIXTURES_REQUIRED installed
                       PASS_REGULAR_EXPRESSION "${expect}")
endforeach()
# The same through --port: QEMU runs the firmware on its own with the UART
# on a pseudo-terminal, as a board on a serial port.
add_test(NAME firmware.microbit_port
         COMMAND ${CMAKE_COMMAND} -DONNXC=${PREFIX}/bin/onnxc -DBOARD=microbit
                 -DMODEL=${PROJECT_SOURCE_DIR}/examples/fashion-mnist-firmware/fashion_cnn_int8.onnx
                 -DEXAMPLE=${PROJECT_SOURCE_DIR}/examples/fashion-mnist-firmware
                 -DPYTHON=${ONNXC_PYTHON} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/firmware-microbit-port
                 -DGENERATOR=${CMAKE_GENERATOR} -DQEMU_MACHINE=microbit -DQEMU_CPU=cortex-m0
                 -P ${CMAKE_CURRENT_LIST_DIR}/firmware_test.cmake)
set_tests_properties(firmware.microbit_port PROPERTIES FIXTURES_REQUIRED installed
                     PASS_REGULAR_EXPRESSION "on nrf51822 \\(cortex-m0plus, /dev/pts/[0-9]+\\).*16 of 16 input sets agree with the host")
