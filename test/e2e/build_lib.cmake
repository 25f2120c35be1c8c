# Compiles a model to lib<name>.a (onnxc + the C++ compile) and reports the time.
#   -DONNXC=... -DMODEL=... -DOUT=...
file(REMOVE_RECURSE ${OUT})
string(TIMESTAMP t0 "%s")
execute_process(COMMAND ${ONNXC} ${MODEL} -o ${OUT} --name resnet18 --emit lib
                RESULT_VARIABLE rc)
string(TIMESTAMP t1 "%s")
if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT}/libresnet18.a)
  message(FATAL_ERROR "onnxc --emit lib failed (${rc})")
endif()
math(EXPR secs "${t1} - ${t0}")
message(STATUS "libresnet18.a built in about ${secs} s (onnxc + C++ compile)")
