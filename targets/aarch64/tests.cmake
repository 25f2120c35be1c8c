# aarch64 tests, included by test/CMakeLists.txt. Everything runs under
# qemu-aarch64 (user mode) on the x86 host.
#
# The SIMD kernel sweeps (test/kernels/simd_*_test.cpp, the same sources as
# the x86 kernels.simd.* tests) built for NEON against the reference
# kernels: every float family on armv8-a (the float kernels use nothing of
# the later extensions), the int8 family once per byte product (armv8-a
# widening multiplies, +dotprod SDOT, +i8mm USDOT and USMMLA), bit-exact.
set(AARCH64_KERNEL_TEST ${CMAKE_CURRENT_LIST_DIR}/run_kernel_test.cmake)
# Catch2's main cross-built once (a fixture: each sweep links the object).
set(AARCH64_CATCH_MAIN ${CMAKE_CURRENT_BINARY_DIR}/aarch64-kernels/catch_main.o)
add_test(NAME kernels.simd.aarch64.catch_main
         COMMAND ${CMAKE_COMMAND} -DCATCH_MAIN_SOURCE=${PROJECT_SOURCE_DIR}/test/catch_main.cpp
                 -DCATCH_MAIN=${AARCH64_CATCH_MAIN} -DMARCH=armv8-a -P ${AARCH64_KERNEL_TEST})
set_tests_properties(kernels.simd.aarch64.catch_main PROPERTIES
                     FIXTURES_SETUP aarch64_catch_main)
foreach(test gemm:armv8-a conv:armv8-a layout:armv8-a norm:armv8-a qs8:armv8-a
             qs8:armv8.2-a+dotprod qs8:armv8.6-a+i8mm)
  string(REPLACE ":" ";" parts ${test})
  list(GET parts 0 family)
  list(GET parts 1 march)
  string(REPLACE "armv8-a" "aarch64" name ${march})
  string(REPLACE "armv8.2-a+" "aarch64-" name ${name})
  string(REPLACE "armv8.6-a+" "aarch64-" name ${name})
  # The convolution sweep, the longest under emulation: every 4th case;
  # the int8 one's convolutions (two thirds of its time), every 2nd, the
  # armv8-a and i8mm builds the even cases and the dotprod build the odd
  # ones, so that each case runs on one byte product at least (the x86
  # builds run them all; scripts/kernel-sweeps.sh runs all here).
  set(first 0)
  if(family STREQUAL "conv")
    set(every 4)
  elseif(family STREQUAL "qs8")
    set(every 2)
    if(march MATCHES "dotprod")
      set(first 1)
    endif()
  else()
    set(every 1)
  endif()
  add_test(NAME kernels.simd.${family}.${name}
           COMMAND ${CMAKE_COMMAND}
                   -DSOURCE=${PROJECT_SOURCE_DIR}/test/kernels/simd_${family}_test.cpp
                   -DSETUP=${PROJECT_SOURCE_DIR}/test/kernels/sweep_setup.cpp
                   -DCATCH_MAIN=${AARCH64_CATCH_MAIN}
                   -DRUNTIME_INCLUDE=${PROJECT_SOURCE_DIR}/runtime-lite/include
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/aarch64-kernels/${family}-${name}
                   -DMARCH=${march} -DEVERY=${every} -DFIRST=${first}
                   -P ${AARCH64_KERNEL_TEST})
  set_tests_properties(kernels.simd.${family}.${name} PROPERTIES
                       FIXTURES_REQUIRED aarch64_catch_main)
endforeach()

# The e2e models cross-built by `onnxc run --target aarch64` against
# PyTorch's outputs (1e-4 relative): a subset that covers the float kernels
# (direct, blocked and Winograd convolution, depthwise, GEMM, layer norm,
# softmax); docs/targets.md gives the whole set's figures.
foreach(model cifar_cnn mobilenet_v2 transformer_encoder)
  add_test(NAME aarch64.${model}
           COMMAND ${CMAKE_COMMAND}
                   -DONNXC=$<TARGET_FILE:onnxc> -DPYTHON=${ONNXC_PYTHON} -DTARGET=aarch64
                   -DMODEL_DIR=${MODEL_DIR}/${model}_op17 -DCOMPARE=${E2E_COMPARE}
                   -P ${E2E_RUN})
  set_tests_properties(aarch64.${model} PROPERTIES FIXTURES_REQUIRED models
                       ENVIRONMENT ${WERROR_ENV})
endforeach()

# int8, bit-exact: the bundled Fashion-MNIST CNN quantized by onnxc gives the
# host build's integers on each aarch64 target (one test image: the model's
# batch is 1), and the synthetic QDQ model
# with every folded op (QAdd, QMul, QLookup, QAveragePool, a rescaling
# Concat) matches its reference outputs on aarch64-dotprod.
foreach(target aarch64 aarch64-dotprod aarch64-i8mm)
  add_test(NAME ${target}.fashion_int8
           COMMAND ${ONNXC_PYTHON} ${SAME_AS_HOST}
                   --onnxc $<TARGET_FILE:onnxc> --target ${target}
                   --model ${PROJECT_SOURCE_DIR}/examples/fashion-mnist/fashion_cnn.onnx
                   --inputs ${QUANT_DIR}/fashion_data/test --input-slice 1
                   -- --quantize int8 --calibration ${QUANT_DIR}/fashion_data/calibration)
  set_tests_properties(${target}.fashion_int8 PROPERTIES FIXTURES_REQUIRED calibration_data
                       ENVIRONMENT ${WERROR_ENV})
endforeach()
# MobileNetV2 quantized by onnxc (calibrated on its test input) on
# aarch64-dotprod: depthwise, pointwise and residual adds, the same integers.
add_test(NAME aarch64-dotprod.mobilenet_v2_int8
         COMMAND ${ONNXC_PYTHON} ${SAME_AS_HOST} --onnxc $<TARGET_FILE:onnxc>
                 --target aarch64-dotprod --model ${MODEL_DIR}/mobilenet_v2_op17/model.onnx
                 --inputs ${MODEL_DIR}/mobilenet_v2_op17/test_data_set_0 --calibrate-on-inputs
                 -- --quantize int8)
set_tests_properties(aarch64-dotprod.mobilenet_v2_int8 PROPERTIES FIXTURES_REQUIRED models
                     ENVIRONMENT ${WERROR_ENV})
# The transformer encoder quantized by onnxc on aarch64-i8mm: its linear
# layers through USMMLA (fully_connected's 2 x 2 row and column pairs), the
# same outputs as the host build. (Opset 13's, whose float layers come out
# the same; opset 17's LayerNormalization runs the SIMD float kernel, not
# the reference one, 4.8e-7 apart: docs/targets.md.)
add_test(NAME aarch64-i8mm.transformer_encoder_int8
         COMMAND ${ONNXC_PYTHON} ${SAME_AS_HOST} --onnxc $<TARGET_FILE:onnxc>
                 --target aarch64-i8mm --model ${MODEL_DIR}/transformer_encoder_op13/model.onnx
                 --inputs ${MODEL_DIR}/transformer_encoder_op13/test_data_set_0
                 --calibrate-on-inputs -- --quantize int8)
set_tests_properties(aarch64-i8mm.transformer_encoder_int8 PROPERTIES FIXTURES_REQUIRED models
                     ENVIRONMENT ${WERROR_ENV})
# ONNX Runtime's QOperator form (QLinearConv, QGemm) against ONNX Runtime.
add_test(NAME aarch64-dotprod.ort_qoperator
         COMMAND ${ONNXC_PYTHON} ${QDQ_CHECK} --onnxc $<TARGET_FILE:onnxc>
                 --model-dir ${PRODUCERS_DIR}/ort_qoperator --target aarch64-dotprod)
set_tests_properties(aarch64-dotprod.ort_qoperator PROPERTIES ENVIRONMENT ${WERROR_ENV})
add_test(NAME aarch64-dotprod.blocks_qdq
         COMMAND ${ONNXC_PYTHON} ${QDQ_CHECK} --onnxc $<TARGET_FILE:onnxc>
                 --model-dir ${QUANT_DIR}/blocks_qdq --target aarch64-dotprod)
set_tests_properties(aarch64-dotprod.blocks_qdq PROPERTIES FIXTURES_REQUIRED qdq_models
                     ENVIRONMENT ${WERROR_ENV})

# The ONNX node tests through `onnxc run --target aarch64` under
# qemu-aarch64: every 12th test of the suite in CI (each is a cross build of
# its own; the whole suite: scripts/node-suites.sh aarch64, its figures in
# docs/targets.md), strings set
# aside (they cannot cross into the emulated program). Failures other than
# the host's known ones fail the test.
add_test(NAME aarch64.node_tests
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/conformance/run_conformance.py
                 --onnxc $<TARGET_FILE:onnxc> --suite node --target aarch64 --jobs 2
                 --every 12 --no-string-io)
set_tests_properties(aarch64.node_tests PROPERTIES ENVIRONMENT ${WERROR_ENV})
