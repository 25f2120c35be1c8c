# add_onnx_model(<lib-target> MODEL <file.onnx>
#                [NAME <name>] [TARGET <onnxc-target>] [OPTIONS <onnxc options>...])
#
# Compiles MODEL with onnxc at build time and makes <lib-target>, a static
# library holding the model's code and weights, with <name>.h on its include
# path. It regenerates when the model or onnxc changes, and builds with the
# project's own compiler, so cross-compiling toolchain files just work; the
# flags the target's code requires (`onnxc --print-target-flags --target T`:
# -march=x86-64-v3 -ffp-contract=off for x86-64, -mcpu=cortex-m4 ... for
# cortex-m4) are added to the model's sources, since its kernels are written
# for that instruction set.
#   NAME     C name of the model (<name>_run, <name>.h); default: <lib-target>
#   TARGET   onnxc --target (kernels and flags); default: generic. In a
#            cross build, TARGET native (or none) means ONNXC_TARGET, which
#            onnxc's toolchain files set (targets/aarch64/aarch64-linux-gnu.cmake:
#            aarch64); a cross build without it must name its target.
#   OPTIONS  more onnxc arguments, e.g. --shape input=1x3x224x224 --dim batch=1
# TARGET cuda makes NAME.cu: the project enables CUDA (project(... LANGUAGES
# CXX CUDA)) and the library links the CUDA runtime (CUDA::cudart_static).
#   CUDA_ARCH  the GPU architectures, onnxc --cuda-arch (e.g. "sm_86,sm_90";
#              default sm_80,sm_90); the model's library ignores
#              CMAKE_CUDA_ARCHITECTURES, since its kernels choose with onnxc.
function(add_onnx_model lib)
  cmake_parse_arguments(ARG "" "MODEL;NAME;TARGET;CUDA_ARCH" "OPTIONS" ${ARGN})
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "add_onnx_model(${lib}): MODEL is required")
  endif()
  if(NOT ARG_NAME)
    string(MAKE_C_IDENTIFIER "${lib}" ARG_NAME)
  endif()
  if(CMAKE_CROSSCOMPILING AND (NOT ARG_TARGET OR ARG_TARGET STREQUAL "native"))
    if(ONNXC_TARGET)
      set(ARG_TARGET "${ONNXC_TARGET}")
    elseif(ARG_TARGET STREQUAL "native")
      message(FATAL_ERROR "add_onnx_model(${lib}): TARGET native names the building machine, "
                          "not the one this cross build is for: set ONNXC_TARGET or name the "
                          "target (onnxc --list-targets)")
    endif()
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET generic)
  endif()
  set(arch_option)
  if(ARG_CUDA_ARCH)
    set(arch_option --cuda-arch "${ARG_CUDA_ARCH}")
  endif()
  execute_process(
    COMMAND "${ONNXC_EXECUTABLE}" --print-target-flags --target "${ARG_TARGET}" ${arch_option}
    OUTPUT_VARIABLE target_flags ERROR_VARIABLE target_error RESULT_VARIABLE target_result
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT target_result EQUAL 0)
    message(FATAL_ERROR "add_onnx_model(${lib}): ${ONNXC_EXECUTABLE} cannot describe target "
                        "'${ARG_TARGET}': ${target_error}")
  endif()
  separate_arguments(target_flags UNIX_COMMAND "${target_flags}")
  # The generated source's language: C++ (NAME.cpp), or CUDA (NAME.cu:
  # TARGET cuda), which the project must have enabled.
  execute_process(
    COMMAND "${ONNXC_EXECUTABLE}" --print-target-language --target "${ARG_TARGET}"
    OUTPUT_VARIABLE language OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(source_ext cpp)
  if(language STREQUAL "CUDA")
    set(source_ext cu)
    if(NOT CMAKE_CUDA_COMPILER)
      message(FATAL_ERROR "add_onnx_model(${lib}): TARGET ${ARG_TARGET} generates CUDA: "
                          "enable the language first (project(... LANGUAGES CXX CUDA) or "
                          "enable_language(CUDA))")
    endif()
    find_package(CUDAToolkit REQUIRED)
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/onnxc/${lib}")
  set(outputs "${dir}/${ARG_NAME}.h" "${dir}/${ARG_NAME}.${source_ext}"
              "${dir}/${ARG_NAME}.weights.bin" "${dir}/${ARG_NAME}_weights.S")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${ONNXC_EXECUTABLE}" "${model}" -o "${dir}" --name "${ARG_NAME}"
            --target "${ARG_TARGET}" ${arch_option} --quiet ${ARG_OPTIONS}
    DEPENDS "${model}" "${ONNXC_EXECUTABLE}"
    COMMENT "onnxc: compiling ${ARG_MODEL} (${ARG_NAME}, ${ARG_TARGET})"
    VERBATIM)
  add_library(${lib} STATIC "${dir}/${ARG_NAME}.${source_ext}" "${dir}/${ARG_NAME}_weights.S")
  # .incbin finds the weights blob through the assembler's include path.
  set_source_files_properties("${dir}/${ARG_NAME}_weights.S" PROPERTIES
    LANGUAGE ASM
    COMPILE_OPTIONS "-Wa,-I${dir}"
    OBJECT_DEPENDS "${dir}/${ARG_NAME}.weights.bin")
  if(language STREQUAL "CUDA")
    # The target's flags choose the GPU architectures (-gencode ...); they
    # are nvcc's, not the assembler's.
    target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${target_flags}>)
    set_target_properties(${lib} PROPERTIES CUDA_ARCHITECTURES OFF)
    target_compile_features(${lib} PUBLIC cuda_std_17)
    target_link_libraries(${lib} PUBLIC CUDA::cudart_static)
  else()
    target_compile_options(${lib} PRIVATE ${target_flags})
  endif()
  target_include_directories(${lib} PUBLIC "${dir}")
  target_link_libraries(${lib} PUBLIC onnxc::runtime)
  target_compile_features(${lib} PUBLIC cxx_std_17)
endfunction()
