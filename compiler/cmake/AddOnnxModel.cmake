# add_onnx_model(<lib-target> MODEL <file.onnx>
#                [NAME <name>] [TARGET <onnxc-target>] [CUDA_ARCH <archs>]
#                [QUANTIZE int8 CALIBRATION <dir>] [BIND <input>=<file.pb> ...]
#                [OPTIMIZE <flags...> | OPTIMIZE NONE]
#                [OPTIONS <onnxc options>...])
#
# Compiles MODEL with onnxc at build time and makes <lib-target>, a static
# library holding the model's code and weights, with <name>.h on its include
# path. It builds with the project's own compiler, so cross-compiling
# toolchain files just work, and works in C projects too (project(app C):
# onnxc's package enables C++ for the model's code; the header is a C API).
#   NAME        C name of the model (<name>_run, <name>.h); default: <lib-target>
#   TARGET      onnxc --target (kernels and flags); default: generic. In a
#               cross build, TARGET native (or none) means ONNXC_TARGET, which
#               onnxc's toolchain files set (e.g. cortex-m4.cmake: cortex-m4);
#               a cross build without it must name its target.
#   QUANTIZE    int8: post-training quantization (onnxc --quantize int8),
#               calibrated on the samples in CALIBRATION (a folder).
#   BIND        inputs compiled in as constants (onnxc --bind NAME=FILE.pb).
#   OPTIMIZE    the optimisation flags of the model's code, in every build
#               type; default: the target's own (-O3 on x86-64 and aarch64,
#               -O2 on Cortex-M; `onnxc --print-target-info`). The model's
#               kernels are written to be optimised: at -O0 (CMake's default
#               build type) a model runs 10x or more slower. NONE leaves the
#               build type's flags alone.
#   OPTIONS     more onnxc arguments, e.g. --shape input=1x3x224x224 --dim batch=1
#
# What the target's code requires is added to the model's sources (`onnxc
# --print-target-info`: -march=x86-64-v3 -ffp-contract=off for x86-64,
# -mcpu=cortex-m4 ... for cortex-m4), and the project's toolchain is checked
# against it: a processor or float ABI the model's code cannot link with is
# an error at configure time, not at link time. The library links what the
# code needs (libm). onnxc re-runs when the model, its external data, the
# calibration samples, the BIND files or onnxc itself change (onnxc writes
# a dependency file).
#
# TARGET cuda makes NAME.cu: the project enables CUDA (project(... LANGUAGES
# CXX CUDA)) and the library links the CUDA runtime (CUDA::cudart_static).
#   CUDA_ARCH  the GPU architectures, onnxc --cuda-arch (e.g. "sm_86,sm_90";
#              default sm_80,sm_90); the model's library ignores
#              CMAKE_CUDA_ARCHITECTURES, since its kernels choose with onnxc.

# "x86_64", "AMD64", "arm64", "armv7-m", "cortex-m4" ... -> x86_64, aarch64, arm.
function(_onnxc_processor_family processor out)
  string(TOLOWER "${processor}" p)
  if(p MATCHES "^(x86_64|amd64|x64)$")
    set(${out} x86_64 PARENT_SCOPE)
  elseif(p MATCHES "^(aarch64|arm64)")
    set(${out} aarch64 PARENT_SCOPE)
  elseif(p MATCHES "^(arm|cortex|thumb)")
    set(${out} arm PARENT_SCOPE)
  else()
    set(${out} "${p}" PARENT_SCOPE)
  endif()
endfunction()

# The value of `-<flag>=VALUE` in a flags string, or "" when absent (the last
# one wins, as in GCC).
function(_onnxc_flag_value flags flag out)
  set(value "")
  string(REGEX MATCHALL "(^| )-${flag}=[^ ]+" found " ${flags}")
  foreach(f ${found})
    string(REGEX REPLACE ".*-${flag}=" "" value "${f}")
  endforeach()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# Refuses a project whose compiler builds for another processor, core or
# float ABI than the model's code: such a mix fails at link time ("uses VFP
# register arguments") or at run time (illegal instruction).
function(_onnxc_check_toolchain lib target processor target_flags)
  set(hint "")
  if(processor STREQUAL "arm")
    set(hint " (onnxc installs a toolchain file per core: "
             "-DCMAKE_TOOLCHAIN_FILE=${ONNXC_TARGETS_DIR}/cortex-m/${target}.cmake)")
  elseif(processor STREQUAL "aarch64")
    set(hint " (onnxc installs a toolchain file for it: "
             "-DCMAKE_TOOLCHAIN_FILE=${ONNXC_TARGETS_DIR}/aarch64/aarch64-linux-gnu.cmake)")
  endif()
  string(JOIN "" hint ${hint})
  if(processor)
    _onnxc_processor_family("${CMAKE_SYSTEM_PROCESSOR}" project_family)
    if(NOT project_family STREQUAL processor)
      message(FATAL_ERROR "add_onnx_model(${lib}): TARGET ${target} generates code for ${processor} "
                          "processors, but this project builds for '${CMAKE_SYSTEM_PROCESSOR}' "
                          "with ${CMAKE_CXX_COMPILER}${hint}")
    endif()
  endif()
  # The project's own flags, as its toolchain file and cache set them (C++'s:
  # the model's code and the project's C++ share them).
  set(project_flags "${CMAKE_CXX_FLAGS}")
  string(JOIN " " target_flags ${target_flags})
  _onnxc_flag_value("${target_flags}" "mfloat-abi" model_abi)
  if(model_abi)
    _onnxc_flag_value("${project_flags}" "mfloat-abi" project_abi)
    if(NOT project_abi)
      set(project_abi soft) # arm-none-eabi-gcc's default
    endif()
    # soft and softfp share the calling convention; hard does not.
    set(model_hard 0)
    set(project_hard 0)
    if(model_abi STREQUAL "hard")
      set(model_hard 1)
    endif()
    if(project_abi STREQUAL "hard")
      set(project_hard 1)
    endif()
    if(NOT model_hard EQUAL project_hard)
      message(FATAL_ERROR "add_onnx_model(${lib}): TARGET ${target} compiles with "
                          "-mfloat-abi=${model_abi}, but this project's flags mean "
                          "-mfloat-abi=${project_abi} ('${project_flags}'): objects of the two "
                          "float ABIs do not link together${hint}")
    endif()
  endif()
  _onnxc_flag_value("${target_flags}" "mcpu" model_cpu)
  _onnxc_flag_value("${project_flags}" "mcpu" project_cpu)
  if(model_cpu AND project_cpu AND NOT model_cpu STREQUAL project_cpu)
    message(FATAL_ERROR "add_onnx_model(${lib}): TARGET ${target} compiles for "
                        "-mcpu=${model_cpu}, but this project compiles for -mcpu=${project_cpu}: "
                        "name the TARGET of that core (onnxc --list-targets)${hint}")
  endif()
endfunction()

function(add_onnx_model lib)
  cmake_parse_arguments(ARG "" "MODEL;NAME;TARGET;CUDA_ARCH;QUANTIZE;CALIBRATION"
                        "OPTIONS;BIND;OPTIMIZE" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_onnx_model(${lib}): unknown arguments '${ARG_UNPARSED_ARGUMENTS}' "
                        "(onnxc's own options go after OPTIONS)")
  endif()
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
  set(model_options ${arch_option})
  if(ARG_QUANTIZE)
    if(NOT ARG_CALIBRATION)
      message(FATAL_ERROR "add_onnx_model(${lib}): QUANTIZE ${ARG_QUANTIZE} needs CALIBRATION <dir>")
    endif()
    get_filename_component(calibration "${ARG_CALIBRATION}" ABSOLUTE)
    if(NOT IS_DIRECTORY "${calibration}")
      message(FATAL_ERROR "add_onnx_model(${lib}): CALIBRATION '${calibration}' is not a folder")
    endif()
    list(APPEND model_options --quantize "${ARG_QUANTIZE}" --calibration "${calibration}")
  elseif(ARG_CALIBRATION)
    message(FATAL_ERROR "add_onnx_model(${lib}): CALIBRATION goes with QUANTIZE int8")
  endif()
  foreach(binding ${ARG_BIND})
    string(FIND "${binding}" "=" eq)
    if(eq LESS 1)
      message(FATAL_ERROR "add_onnx_model(${lib}): BIND '${binding}' is not <input>=<file.pb>")
    endif()
    string(SUBSTRING "${binding}" 0 ${eq} input)
    math(EXPR eq "${eq} + 1")
    string(SUBSTRING "${binding}" ${eq} -1 file)
    get_filename_component(file "${file}" ABSOLUTE)
    list(APPEND model_options --bind "${input}=${file}")
  endforeach()

  # What the target's code needs: language, required flags, optimisation
  # flags, processor.
  execute_process(
    COMMAND "${ONNXC_EXECUTABLE}" --print-target-info --target "${ARG_TARGET}" ${arch_option}
    OUTPUT_VARIABLE info ERROR_VARIABLE target_error RESULT_VARIABLE target_result
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT target_result EQUAL 0)
    message(FATAL_ERROR "add_onnx_model(${lib}): ${ONNXC_EXECUTABLE} cannot describe target "
                        "'${ARG_TARGET}': ${target_error}")
  endif()
  foreach(key language flags optimize processor)
    string(REGEX MATCH "(^|\n)${key}=([^\n]*)" found "${info}")
    set(${key} "${CMAKE_MATCH_2}")
  endforeach()
  separate_arguments(target_flags UNIX_COMMAND "${flags}")
  separate_arguments(opt_flags UNIX_COMMAND "${optimize}")
  if(ARG_OPTIMIZE STREQUAL "NONE")
    set(opt_flags)
  elseif(ARG_OPTIMIZE)
    set(opt_flags ${ARG_OPTIMIZE})
  endif()
  _onnxc_check_toolchain(${lib} "${ARG_TARGET}" "${processor}" "${target_flags}")

  # The generated source's language: C++ (NAME.cpp), or CUDA (NAME.cu:
  # TARGET cuda), which the project must have enabled.
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
  # Ninja and Makefiles read onnxc's dependency file: the external data,
  # calibration samples and bound values it read, besides the model.
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${ONNXC_EXECUTABLE}" "${model}" -o "${dir}" --name "${ARG_NAME}"
            --target "${ARG_TARGET}" ${model_options} --quiet
            --depfile "${dir}/${ARG_NAME}.d" ${ARG_OPTIONS}
    DEPENDS "${model}" "${ONNXC_EXECUTABLE}"
    DEPFILE "${dir}/${ARG_NAME}.d"
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
    target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${target_flags} ${opt_flags}>)
    set_target_properties(${lib} PROPERTIES CUDA_ARCHITECTURES OFF)
    target_compile_features(${lib} PUBLIC cuda_std_17)
    target_link_libraries(${lib} PUBLIC CUDA::cudart_static)
  else()
    # After the build type's flags on the command line, so they win over
    # its -O0 (Debug, or no build type); -g stays.
    target_compile_options(${lib} PRIVATE ${target_flags}
                           $<$<COMPILE_LANGUAGE:CXX>:${opt_flags}>)
  endif()
  target_include_directories(${lib} PUBLIC "${dir}")
  target_link_libraries(${lib} PUBLIC onnxc::runtime)
  if(NOT MSVC)
    # The kernels' expf, sqrtf, ...: -lm, not `m`, which could name a
    # target of the project (a model called m, for one).
    target_link_libraries(${lib} PUBLIC -lm)
  endif()
  target_compile_features(${lib} PUBLIC cxx_std_17)
  # A C program links the model's C++ objects with the C++ driver.
  set_target_properties(${lib} PROPERTIES LINKER_LANGUAGE CXX)
endfunction()
