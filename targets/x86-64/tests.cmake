# x86-64 tests, included by test/CMakeLists.txt; they run on this host.
#
# The SIMD kernels against the reference kernels: one binary per kernel family
# and ISA (AVX2, AVX-512 and, for the int8 kernels, AVX512-VNNI builds of the
# same source), linked with test/kernels/sweep_setup.cpp built for the same
# ISA (the skip, 77, on a CPU without it) and Catch2's main (catch2_main).
#
# ONNXC_KERNEL_TEST_ISAS=host (the default) builds the sweeps only for the
# ISAs the configuring machine runs (sweep_setup.cpp's own check, run at
# configure time): on another CPU the sources are compiled -fsyntax-only
# (the same flags and -Werror: what does not compile still fails the build)
# and the tests report Skipped (4 s for the convolution sweep against 3.5
# minutes at -O3; on the AVX2-only CI host the build went from 1095 to 733
# s). =all builds every one (a build to be run elsewhere).
set(ONNXC_KERNEL_TEST_ISAS host CACHE STRING
    "SIMD kernel sweeps to build: host (the ISAs this machine runs) or all")
set(SIMD_KERNEL_FAMILIES gemm conv layout norm qs8)
get_target_property(catch2_includes Catch2::Catch2 INTERFACE_INCLUDE_DIRECTORIES)
# The syntax check sees the build type's flags too (-O3 defines __OPTIMIZE__,
# which some intrinsic headers test).
string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type)
separate_arguments(build_type_flags UNIX_COMMAND
                   "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${build_type}}")
foreach(isa x86-64-v3 x86-64-v4 x86-64-vnni x86-64-amx)
  # -ffp-contract=off as the x86 targets compile the kernels (see X86Target.cpp).
  if(isa STREQUAL "x86-64-vnni")
    set(isa_flags -march=x86-64-v4 -mavx512vnni)
    set(families qs8) # the float kernels do not use VNNI: their v4 build covers it
  elseif(isa STREQUAL "x86-64-amx")
    # conv2d by AMX tiles (int8, and bf16 for --precision bf16); on a CPU (or
    # OS) without AMX the same build takes its VPDPBUSD / FMA way, so it runs
    # on every AVX512-VNNI host with VBMI: there it is x86-64-vbmi's sweep
    # (the same kernels and flags, AMX aside), which has no binary of its own.
    set(isa_flags -march=x86-64-v4 -mavx512vnni -mavx512vbmi -mamx-tile -mamx-int8 -mamx-bf16)
    set(families qs8 bf16)
  else()
    set(isa_flags -march=${isa})
    set(families ${SIMD_KERNEL_FAMILIES})
  endif()
  set(runs_here TRUE)
  if(NOT ONNXC_KERNEL_TEST_ISAS STREQUAL "all")
    try_run(probe_exit_${isa} probe_built_${isa} ${CMAKE_CURRENT_BINARY_DIR}/isa-probe-${isa}
            ${PROJECT_SOURCE_DIR}/test/kernels/sweep_setup.cpp
            COMPILE_DEFINITIONS ${isa_flags} -DKERNEL_TEST_ISA_PROBE
            RUN_OUTPUT_VARIABLE probe_output)
    if(NOT probe_built_${isa} OR NOT probe_exit_${isa} EQUAL 0)
      set(runs_here FALSE)
    endif()
  endif()
  # Every case split into tasks, however small (parallel.h's tasks_for).
  set(flags ${isa_flags} -ffp-contract=off -Wall -Wextra -Werror -pthread
            -DONNXC_RT_MIN_TASK_CYCLES=0)
  if(runs_here)
    add_library(kernel_sweep_setup_${isa} OBJECT ${PROJECT_SOURCE_DIR}/test/kernels/sweep_setup.cpp)
    target_include_directories(kernel_sweep_setup_${isa} PRIVATE
                               ${PROJECT_SOURCE_DIR}/runtime-lite/include)
    target_link_libraries(kernel_sweep_setup_${isa} PRIVATE Catch2::Catch2)
    target_compile_options(kernel_sweep_setup_${isa} PRIVATE ${flags})
  else()
    message(STATUS "SIMD kernel sweeps ${isa}: this CPU does not run them; "
                   "compiled -fsyntax-only, tests skipped (ONNXC_KERNEL_TEST_ISAS=all builds them)")
  endif()
  foreach(family ${families})
    set(bin simd_${family}_test_${isa})
    set(source ${PROJECT_SOURCE_DIR}/test/kernels/simd_${family}_test.cpp)
    if(runs_here)
      add_executable(${bin} ${source} $<TARGET_OBJECTS:kernel_sweep_setup_${isa}>)
      target_include_directories(${bin} PRIVATE ${PROJECT_SOURCE_DIR}/runtime-lite/include)
      target_link_libraries(${bin} PRIVATE catch2_main)
      target_compile_options(${bin} PRIVATE ${flags})
      target_link_options(${bin} PRIVATE -pthread)
      add_test(NAME kernels.simd.${family}.${isa} COMMAND ${bin})
    else()
      set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${bin}.syntax-checked)
      list(TRANSFORM catch2_includes PREPEND -I OUTPUT_VARIABLE catch2_include_flags)
      add_custom_command(
        OUTPUT ${stamp}
        COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 ${build_type_flags} ${flags}
                -I${PROJECT_SOURCE_DIR}/runtime-lite/include
                ${catch2_include_flags} -fsyntax-only -MD -MF ${stamp}.d -MT ${stamp} ${source}
        COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 ${build_type_flags} ${flags} -fsyntax-only
                ${PROJECT_SOURCE_DIR}/test/kernels/sweep_setup.cpp
                -I${PROJECT_SOURCE_DIR}/runtime-lite/include ${catch2_include_flags}
        COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
        DEPENDS ${source} ${PROJECT_SOURCE_DIR}/test/kernels/sweep_setup.cpp
        DEPFILE ${stamp}.d
        COMMENT "Syntax-checking ${bin} (this CPU does not run ${isa})")
      add_custom_target(${bin}_syntax ALL DEPENDS ${stamp})
      set(why "this CPU does not run ${isa}: syntax-checked, not built")
      add_test(NAME kernels.simd.${family}.${isa} COMMAND sh -c "echo '${why}'; exit 77")
    endif()
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
