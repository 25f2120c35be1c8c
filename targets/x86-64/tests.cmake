# x86-64 tests, included by test/CMakeLists.txt; they run on this host.
#
# The SIMD kernels against the reference kernels: one binary per kernel family
# and ISA (AVX2, AVX-512 and, for the int8 kernels, AVX512-VNNI builds of the
# same source); each skips (77) on a CPU without its ISA. The main
# (test/kernels/main.cpp) is compiled once per ISA.
set(SIMD_KERNEL_FAMILIES gemm conv layout norm qs8)
foreach(isa x86-64-v3 x86-64-v4 x86-64-vnni x86-64-amx)
  # -ffp-contract=off as the x86 targets compile the kernels (see X86Target.cpp).
  if(isa STREQUAL "x86-64-vnni")
    set(flags -march=x86-64-v4 -mavx512vnni)
    set(families qs8) # the float kernels do not use VNNI: their v4 build covers it
  elseif(isa STREQUAL "x86-64-amx")
    # conv2d by AMX tiles (int8, and bf16 for --precision bf16); on a CPU (or
    # OS) without AMX the same build takes its VPDPBUSD / FMA way, so it runs
    # on every AVX512-VNNI host with VBMI.
    set(flags -march=x86-64-v4 -mavx512vnni -mavx512vbmi -mamx-tile -mamx-int8 -mamx-bf16)
    set(families qs8 bf16)
  else()
    set(flags -march=${isa})
    set(families ${SIMD_KERNEL_FAMILIES})
  endif()
  # Every case split into tasks, however small (parallel.h's tasks_for).
  list(APPEND flags -ffp-contract=off -Wall -Wextra -Werror -pthread -DONNXC_RT_MIN_TASK_CYCLES=0)
  add_library(kernel_test_main_${isa} OBJECT ${PROJECT_SOURCE_DIR}/test/kernels/main.cpp)
  target_include_directories(kernel_test_main_${isa} PRIVATE ${PROJECT_SOURCE_DIR}/runtime-lite/include)
  target_link_libraries(kernel_test_main_${isa} PRIVATE Catch2::Catch2)
  target_compile_options(kernel_test_main_${isa} PRIVATE ${flags})
  foreach(family ${families})
    set(bin simd_${family}_test_${isa})
    add_executable(${bin} ${PROJECT_SOURCE_DIR}/test/kernels/simd_${family}_test.cpp $<TARGET_OBJECTS:kernel_test_main_${isa}>)
    target_include_directories(${bin} PRIVATE ${PROJECT_SOURCE_DIR}/runtime-lite/include)
    target_link_libraries(${bin} PRIVATE Catch2::Catch2)
    target_compile_options(${bin} PRIVATE ${flags})
    target_link_options(${bin} PRIVATE -pthread)
    add_test(NAME kernels.simd.${family}.${isa} COMMAND ${bin})
    set_tests_properties(kernels.simd.${family}.${isa} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endforeach()

# --precision bf16 on x86-64-amx: the operands of the convolutions and of
# the matrix products rounded to bfloat16 (8-bit significands)
# and multiplied on AMX-BF16 tiles, fp32 sums; within 1e-2 of PyTorch's
# float32 outputs (max error over max output, measured 3.1e-3 for
# ResNet-18, 1.6e-3 for MobileNetV2, 1.4e-3 for the transformer encoder:
# bf16's rounding, 2^-9 relative, through the network). Skipped on a CPU
# without AMX.
foreach(model resnet18 mobilenet_v2 transformer_encoder)
  add_test(NAME e2e.${model}.x86-64-amx.bf16
           COMMAND ${CMAKE_COMMAND}
                   -DONNXC=$<TARGET_FILE:onnxc> -DPYTHON=${ONNXC_PYTHON} -DTARGET=x86-64-amx
                   -DPRECISION=bf16 -DMAX_REL_ERR=1e-2 -DMODEL_DIR=${MODEL_DIR}/${model}_op17
                   -DCOMPARE=${E2E_COMPARE} -P ${E2E_RUN})
  set_tests_properties(e2e.${model}.x86-64-amx.bf16 PROPERTIES FIXTURES_REQUIRED models
                       ENVIRONMENT "${WERROR_ENV}" SKIP_REGULAR_EXPRESSION "SKIPPED: ")
endforeach()

# The AVX-512 float kernels in whole networks against PyTorch: the
# 7-14-pixel strips of the blocked convolutions, the Winograd choice
# (ResNet-18: F(4x4, 3x3) on its 56x56 and 28x28 layers, F(2x2, 3x3) on its
# 14x14 ones, direct 7x7) and the fused expand + depthwise blocks
# (MobileNetV2). Skipped on a CPU without AVX-512.
foreach(model resnet18 mobilenet_v2)
  add_test(NAME e2e.${model}.x86-64-avx512
           COMMAND ${CMAKE_COMMAND}
                   -DONNXC=$<TARGET_FILE:onnxc> -DPYTHON=${ONNXC_PYTHON} -DTARGET=x86-64-avx512
                   -DMODEL_DIR=${MODEL_DIR}/${model}_op17
                   -DCOMPARE=${E2E_COMPARE} -P ${E2E_RUN})
  set_tests_properties(e2e.${model}.x86-64-avx512 PROPERTIES FIXTURES_REQUIRED models
                       ENVIRONMENT "${WERROR_ENV}" SKIP_REGULAR_EXPRESSION "SKIPPED: ")
endforeach()
