# A consumer project as a user builds it: configured with CMake's defaults
# (no CMAKE_BUILD_TYPE), built, run. Checks that the model's code was
# compiled with its target's optimisation flags all the same (EXPECT_FLAG in
# the model source's compile command), that the program prints EXPECT, and
# that a second build has nothing to do (onnxc's dependency file does not
# make the model regenerate every build).
#   -DEXAMPLE=<project> -DWORK=<build folder> -DGENERATOR=<generator>
#   -DONNXC_DIR=<onnxc build or <prefix>/lib/cmake/onnxc> -DPROGRAM=<name>
#   -DMODEL_SOURCE=<generated source's file name> -DEXPECT_FLAG=-O3
#   [-DOPTIONS=<more configure options, ;-list>] [-DRUNNER=<emulator command line>]
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${EXAMPLE} -B ${WORK} -G ${GENERATOR}
                        -Donnxc_DIR=${ONNXC_DIR} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ${OPTIONS}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring ${EXAMPLE} failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${EXAMPLE} failed")
endif()
file(READ ${WORK}/compile_commands.json commands)
string(REGEX MATCH "\"command\": \"[^\"]*${MODEL_SOURCE}\"" model_command "${commands}")
if(NOT model_command)
  message(FATAL_ERROR "no compile command for ${MODEL_SOURCE} in ${WORK}/compile_commands.json")
endif()
if(NOT model_command MATCHES " ${EXPECT_FLAG} ")
  message(FATAL_ERROR "the model's code was not compiled with ${EXPECT_FLAG}: ${model_command}")
endif()
message(STATUS "the model's compile command: ${model_command}")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} OUTPUT_VARIABLE again RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR (GENERATOR STREQUAL "Ninja" AND NOT again MATCHES "no work to do"))
  message(FATAL_ERROR "a second build of an unchanged project did work:\n${again}")
endif()
separate_arguments(runner UNIX_COMMAND "${RUNNER}")
execute_process(COMMAND ${runner} ${WORK}/${PROGRAM} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (${rc})")
endif()
