# Runs one exported model with `onnxc run` and compares with PyTorch's outputs.
#   -DONNXC=... -DPYTHON=... -DMODEL_DIR=... -DCOMPARE=... -DTARGET=... [-DTHREADS=N]
#   [-DPRECISION=bf16 -DMAX_REL_ERR=...]
# A host target this CPU lacks (x86-64-amx on a CPU without AMX) is skipped:
# "SKIPPED: ..." (the test's SKIP_REGULAR_EXPRESSION).
if(NOT THREADS)
  set(THREADS 1)
endif()
if(NOT PRECISION)
  set(PRECISION fp32)
endif()
if(NOT MAX_REL_ERR)
  set(MAX_REL_ERR 1e-4)
endif()
execute_process(COMMAND ${ONNXC} --list-targets OUTPUT_VARIABLE targets)
# The target's entry: its name's line and the indented line after it
# (kernels, runner and, last, "(not on this CPU)").
string(REGEX MATCH "\n  ${TARGET} [^\n]*(\n   +[^\n]*)?\\(not on this CPU\\)" missing
       "\n${targets}")
if(missing)
  message("SKIPPED: this CPU lacks ${TARGET}'s instruction set")
  return()
endif()
set(out ${MODEL_DIR}/onnxc_outputs_${TARGET}_threads${THREADS}_${PRECISION})
file(REMOVE_RECURSE ${out})
execute_process(COMMAND ${ONNXC} run --target ${TARGET} --threads ${THREADS}
                        --precision ${PRECISION} ${MODEL_DIR}/model.onnx
                        --inputs ${MODEL_DIR}/test_data_set_0 --outputs ${out}
                RESULT_VARIABLE rc)
# 77: a device target (cuda) on a machine without its device; the test's
# SKIP_REGULAR_EXPRESSION reads this line as "skipped".
if(rc EQUAL 77)
  message("SKIPPED: no ${TARGET} device on this machine")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "onnxc run failed (${rc})")
endif()
execute_process(COMMAND ${PYTHON} ${COMPARE} ${MODEL_DIR}/test_data_set_0 ${out}
                        --max-rel-err ${MAX_REL_ERR}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "outputs differ from PyTorch's")
endif()
