# Cortex-M tests, included by test/CMakeLists.txt.
# The CIFAR CNN through `onnxc run --target cortex-m4|cortex-m7` (a firmware
# run under qemu-system-arm) against PyTorch's outputs, and the model's object
# checked for heap, exception and RTTI symbols (it must be freestanding).
foreach(cpu cortex-m4 cortex-m7)
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
# The int8 QDQ models on Cortex-M4: the same integers as the host.
foreach(model fashion_qdq blocks_qdq)
  add_test(NAME cortex-m4.${model}
           COMMAND ${ONNXC_PYTHON} ${QDQ_CHECK} --onnxc $<TARGET_FILE:onnxc>
                   --model-dir ${QUANT_DIR}/${model} --target cortex-m4)
  set_tests_properties(cortex-m4.${model} PROPERTIES FIXTURES_REQUIRED qdq_models
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
# runs on the host as kernels.mcu).
add_test(NAME cortex-m4.mcu_kernels
         COMMAND ${CMAKE_COMMAND}
                 -DSOURCE=${PROJECT_SOURCE_DIR}/test/kernels/mcu_test.cpp
                 -DRUNTIME_INCLUDE=${PROJECT_SOURCE_DIR}/runtime-lite/include
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/cortex-m4-mcu-kernels
                 -DMACHINE=mps2-an386 -DCPU=cortex-m4
                 "-DCPU_FLAGS=-mcpu=cortex-m4;-mthumb;-mfloat-abi=hard;-mfpu=fpv4-sp-d16"
                 -P ${CMAKE_CURRENT_LIST_DIR}/run_firmware_test.cmake)
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
