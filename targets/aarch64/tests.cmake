# aarch64 tests, included by test/CMakeLists.txt: the CIFAR CNN cross-built
# for aarch64 and run under qemu-aarch64 by `onnxc run --target aarch64`,
# against PyTorch's outputs.
add_test(NAME aarch64.cifar_cnn
         COMMAND ${CMAKE_COMMAND}
                 -DONNXC=$<TARGET_FILE:onnxc> -DPYTHON=${ONNXC_PYTHON} -DTARGET=aarch64
                 -DMODEL_DIR=${MODEL_DIR}/cifar_cnn_op13 -DCOMPARE=${E2E_COMPARE}
                 -P ${E2E_RUN})
set_tests_properties(aarch64.cifar_cnn PROPERTIES FIXTURES_REQUIRED models
                     ENVIRONMENT ${WERROR_ENV})
