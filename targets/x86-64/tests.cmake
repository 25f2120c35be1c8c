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
    # conv2d by AMX tiles; on a CPU (or OS) without AMX the same build takes
    # its VPDPBUSD way, so it runs on every AVX512-VNNI host.
    set(flags -march=x86-64-v4 -mavx512vnni -mamx-tile -mamx-int8)
    set(families qs8)
  else()
    set(flags -march=${isa})
    set(families ${SIMD_KERNEL_FAMILIES})
  endif()
  list(APPEND flags -ffp-contract=off -Wall -Wextra -Werror -pthread)
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
