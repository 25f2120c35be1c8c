# CUDA tests, included by test/CMakeLists.txt. They need the CUDA compiler
# (scripts/install-deps.sh installs Debian's nvidia-cuda-toolkit where no
# nvcc is present) but no GPU: what needs one is skipped without one.
#
# Build: the e2e models the CUDA kernels cover, compiled to a library by
# nvcc for sm_80 and sm_90 with warnings as errors (host and device code).
# Run: the same models on the GPU with `onnxc run --target cuda` against
# PyTorch's outputs (1e-4 relative: float kernels, no TF32); skipped (exit
# 77) on a machine without a GPU.
set(CUDA_WERROR_ENV "ONNXC_CXXFLAGS=-Xcompiler=-Werror --Werror=all-warnings")
foreach(model cifar_cnn resnet18 mobilenet_v2 squeezenet1_1 shufflenet_v2 efficientnet_b0
              transformer_encoder lstm bigru)
  add_test(NAME cuda.build.${model}
           COMMAND ${CMAKE_COMMAND} -E env ${CUDA_WERROR_ENV}
                   $<TARGET_FILE:onnxc> ${MODEL_DIR}/${model}_op17/model.onnx --target cuda
                   --emit lib --quiet -o ${CMAKE_CURRENT_BINARY_DIR}/cuda-build/${model})
  set_tests_properties(cuda.build.${model} PROPERTIES FIXTURES_REQUIRED models)
  add_test(NAME cuda.run.${model}
           COMMAND ${CMAKE_COMMAND}
                   -DONNXC=$<TARGET_FILE:onnxc> -DPYTHON=${ONNXC_PYTHON} -DTARGET=cuda
                   -DMODEL_DIR=${MODEL_DIR}/${model}_op17 -DCOMPARE=${E2E_COMPARE}
                   -P ${E2E_RUN})
  set_tests_properties(cuda.run.${model} PROPERTIES FIXTURES_REQUIRED models
                       ENVIRONMENT "${CUDA_WERROR_ENV}"
                       SKIP_REGULAR_EXPRESSION "SKIPPED: no cuda device")
endforeach()

# The tensor-core kernels (--precision tf32, fp16, bf16) built the same way.
foreach(build cifar_cnn:fp16 resnet18:tf32 transformer_encoder:bf16)
  string(REPLACE ":" ";" build ${build})
  list(GET build 0 model)
  list(GET build 1 precision)
  add_test(NAME cuda.build.${model}.${precision}
           COMMAND ${CMAKE_COMMAND} -E env ${CUDA_WERROR_ENV}
                   $<TARGET_FILE:onnxc> ${MODEL_DIR}/${model}_op17/model.onnx --target cuda
                   --precision ${precision} --emit lib --quiet
                   -o ${CMAKE_CURRENT_BINARY_DIR}/cuda-build/${model}-${precision})
  set_tests_properties(cuda.build.${model}.${precision} PROPERTIES FIXTURES_REQUIRED models)
endforeach()

# Without a GPU, `onnxc run --target cuda` builds the program, which fails
# to create its session and says why: exit 77 and the CUDA error's text.
add_test(NAME cuda.no_device
         COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_no_device.py
                 --onnxc $<TARGET_FILE:onnxc> --model-dir ${MODEL_DIR}/cifar_cnn_op17)
set_tests_properties(cuda.no_device PROPERTIES FIXTURES_REQUIRED models
                     SKIP_REGULAR_EXPRESSION "SKIPPED: this machine has a GPU")

# A consumer project: the Fashion-MNIST demo on the GPU through
# add_onnx_model(... TARGET cuda) in a CMake project with CUDA enabled,
# built with the CUDA compiler onnxc uses ($CUDACXX, nvcc on PATH,
# /usr/local/cuda); its run is skipped without a GPU.
if(DEFINED ENV{CUDACXX})
  set(ONNXC_TEST_NVCC $ENV{CUDACXX})
else()
  find_program(ONNXC_TEST_NVCC NAMES nvcc PATHS /usr/local/cuda/bin)
endif()
add_test(NAME cuda.example
         COMMAND ${CMAKE_CTEST_COMMAND} --build-and-test
                 ${PROJECT_SOURCE_DIR}/examples/fashion-mnist-cuda
                 ${CMAKE_CURRENT_BINARY_DIR}/cuda-example
                 --build-generator ${CMAKE_GENERATOR}
                 --build-options -Donnxc_DIR=${CMAKE_BINARY_DIR}
                                 -DCMAKE_CUDA_COMPILER=${ONNXC_TEST_NVCC}
                 --test-command fashion_gpu_demo)
set_tests_properties(cuda.example PROPERTIES PASS_REGULAR_EXPRESSION "15 of 16 correct"
                     SKIP_REGULAR_EXPRESSION "no GPU session: no usable CUDA device")

# The generated NAME.cu run whole on the CPU (test/kernels/cuda_emulation.h:
# CUDA's threads, barriers, warp shuffles and the session's runtime calls;
# the schedule captured as a graph and replayed twice) against PyTorch's
# outputs, 1e-4 relative: the schedule, its arguments, arena offsets and
# weights and the kernels together, without a GPU. A subset for time (the
# CIFAR CNN 3 s, the transformer 14 s, MobileNetV2 44 s, the LSTM and the
# bidirectional GRU 3 s each on 2 cores); docs/targets.md gives all nine
# models' figures.
foreach(model cifar_cnn transformer_encoder mobilenet_v2 lstm bigru)
  add_test(NAME cuda.emulated.${model}
           COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/../../test/e2e/check_cuda_emulated.py
                   --onnxc $<TARGET_FILE:onnxc> --model-dir ${MODEL_DIR}/${model}_op17)
  set_tests_properties(cuda.emulated.${model} PROPERTIES FIXTURES_REQUIRED models)
endforeach()

# Bounded dims (--dim NAME=LO..HI) on cuda: a CNN over the batch and an
# encoder over the sequence, each built once and run through the emulation
# in one session at sizes that change from run to run (the graph captured
# again), against PyTorch; the CNN's library built by nvcc.
add_test(NAME cuda.bounded_emulated
         COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/../../test/shapes/check_bounded_dims.py
                 $<TARGET_FILE:onnxc> --work ${CMAKE_CURRENT_BINARY_DIR}/cuda-bounded cuda)

# Every 24th ONNX node test through the CUDA code on the CPU (run_conformance.py
# --cuda-emulated): the ops the CUDA kernels cover must pass at ONNX's
# tolerances; the ones they do not are refused (exit 3) and listed.
# docs/targets.md gives the whole suite's figures (scripts/node-suites.sh cuda),
# and bench/cuda/node_kit.py
# runs all of them on a GPU.
add_test(NAME cuda.node_tests_emulated
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/conformance/run_conformance.py
                 --onnxc $<TARGET_FILE:onnxc> --suite node --cuda-emulated --jobs 2 --every 24)
# The node tests whose inputs or outputs are sequences or optionals (24; the
# filters also take GRU's and RNN's two seq_length cases), their
# tensors passed one a parameter (onnxc --elements gives their shapes) and the
# outputs regrouped from the header's notes.
add_test(NAME cuda.composites_emulated
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/conformance/run_conformance.py
                 --onnxc $<TARGET_FILE:onnxc> --suite node --cuda-emulated --jobs 2
                 --no-refusals --filter _seq --filter _opt --filter optional_)
# The node tests on strings (12: StringNormalizer, Cast and CastLike to and
# from strings), host steps of the GPU schedule (kernels/cuda/host.cuh).
add_test(NAME cuda.strings_emulated
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/conformance/run_conformance.py
                 --onnxc $<TARGET_FILE:onnxc> --suite node --cuda-emulated --jobs 2
                 --no-refusals --filter strnormalizer --filter STRING)
# The opset-18-and-later cases (test/opset18/make_tests.py) through the
# CUDA code on the CPU: all 38 pass, none refused (Pad and Resize with axes,
# GroupNormalization, float16 and bfloat16 tensors, strings, a Conv3d among
# them).
set(CUDA_OPSET18 ${CMAKE_CURRENT_BINARY_DIR}/cuda-opset18/opset18)
add_test(NAME cuda.opset18_make
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/opset18/make_tests.py ${CUDA_OPSET18})
set_tests_properties(cuda.opset18_make PROPERTIES FIXTURES_SETUP cuda_opset18)
add_test(NAME cuda.opset18_emulated
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/conformance/run_conformance.py
                 --onnxc $<TARGET_FILE:onnxc> --jobs 2 --root ${CUDA_OPSET18}/..
                 --suite opset18 --cuda-emulated --no-refusals)
# The 16-bit float tensors' kernels built with nvcc, warnings as errors.
foreach(type float16 bfloat16)
  add_test(NAME cuda.build.${type}_tensors
           COMMAND ${CMAKE_COMMAND} -E env ${CUDA_WERROR_ENV} $<TARGET_FILE:onnxc>
                   ${CUDA_OPSET18}/test_${type}_elementwise_movement_opset18/model.onnx
                   --target cuda --emit lib --quiet
                   -o ${CMAKE_CURRENT_BINARY_DIR}/cuda-build/${type}_tensors)
  set_tests_properties(cuda.build.${type}_tensors PROPERTIES FIXTURES_REQUIRED cuda_opset18)
endforeach()
# Host steps (ops on strings) between GPU kernels, built with nvcc the same way.
add_test(NAME cuda.build.strings
         COMMAND ${CMAKE_COMMAND} -E env ${CUDA_WERROR_ENV} $<TARGET_FILE:onnxc>
                 ${CUDA_OPSET18}/test_strings_between_device_ops_opset18/model.onnx
                 --target cuda --emit lib --quiet
                 -o ${CMAKE_CURRENT_BINARY_DIR}/cuda-build/strings)
set_tests_properties(cuda.build.strings cuda.opset18_emulated
                     PROPERTIES FIXTURES_REQUIRED cuda_opset18)

# --precision tf32, fp16, bf16: the matrix products on the tensor-core
# kernel (mma.sync, emulated per the PTX ISA's fragment layouts), against
# PyTorch's float32 outputs: tf32 within 2e-3 (measured 1.7e-4, the
# transformer), fp16 within 2e-3 (5.2e-4, the CIFAR CNN; MobileNetV2
# 4.0e-4), bf16 within 1e-2 (1.3e-3, the transformer; CIFAR CNN 2.5e-3).
foreach(run transformer_encoder:tf32:2e-3 cifar_cnn:fp16:2e-3 transformer_encoder:bf16:1e-2)
  string(REPLACE ":" ";" run ${run})
  list(GET run 0 model)
  list(GET run 1 precision)
  list(GET run 2 bound)
  add_test(NAME cuda.emulated.${model}.${precision}
           COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/../../test/e2e/check_cuda_emulated.py
                   --onnxc $<TARGET_FILE:onnxc> --model-dir ${MODEL_DIR}/${model}_op17
                   --precision ${precision} --max-rel-err ${bound})
  set_tests_properties(cuda.emulated.${model}.${precision} PROPERTIES FIXTURES_REQUIRED models)
endforeach()

# A float16 model (test/models/to_float16.py: the CIFAR CNN's weights,
# inputs and outputs in float16, as a float16 export gives them): each op
# computed in float on float copies of its tensors (computeInFloat),
# against PyTorch's float32 outputs rounded to float16, within 2e-3
# (measured 8.5e-4); and built with nvcc, warnings as errors.
set(CUDA_FLOAT16_MODEL ${CMAKE_CURRENT_BINARY_DIR}/cuda-float16/cifar_cnn)
add_test(NAME cuda.float16_model_make
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/models/to_float16.py
                 ${MODEL_DIR}/cifar_cnn_op17 ${CUDA_FLOAT16_MODEL})
set_tests_properties(cuda.float16_model_make PROPERTIES FIXTURES_REQUIRED models
                     FIXTURES_SETUP cuda_float16_model)
add_test(NAME cuda.emulated.cifar_cnn.float16_model
         COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/../../test/e2e/check_cuda_emulated.py
                 --onnxc $<TARGET_FILE:onnxc> --model-dir ${CUDA_FLOAT16_MODEL}
                 --max-rel-err 2e-3)
add_test(NAME cuda.build.cifar_cnn.float16_model
         COMMAND ${CMAKE_COMMAND} -E env ${CUDA_WERROR_ENV} $<TARGET_FILE:onnxc>
                 ${CUDA_FLOAT16_MODEL}/model.onnx --target cuda --emit lib --quiet
                 -o ${CMAKE_CURRENT_BINARY_DIR}/cuda-build/cifar_cnn-float16)
set_tests_properties(cuda.emulated.cifar_cnn.float16_model cuda.build.cifar_cnn.float16_model
                     PROPERTIES FIXTURES_REQUIRED cuda_float16_model)

# Quantized models (test/quant: QDQ, QOperator, int16x8 blocks; fixture
# qdq_models) on the qs8 integer kernels (kernels/cuda/qs8.cuh): through
# the emulation, every output identical to the host build's; and built with
# nvcc, warnings as errors.
foreach(model fashion_qdq blocks_qdq qoperator blocks_qdq16)
  add_test(NAME cuda.emulated.${model}
           COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/../../test/e2e/check_cuda_emulated.py
                   --onnxc $<TARGET_FILE:onnxc> --model-dir ${QUANT_DIR}/${model} --same-as-host)
  add_test(NAME cuda.build.${model}
           COMMAND ${CMAKE_COMMAND} -E env ${CUDA_WERROR_ENV} $<TARGET_FILE:onnxc>
                   ${QUANT_DIR}/${model}/model.onnx --target cuda --emit lib --quiet
                   -o ${CMAKE_CURRENT_BINARY_DIR}/cuda-build/${model})
  set_tests_properties(cuda.emulated.${model} cuda.build.${model}
                       PROPERTIES FIXTURES_REQUIRED qdq_models)
endforeach()
# int8 windows of 3 dims (qs8 conv and average pool of rank 3, one output a
# thread on the GPU): a Conv3d and AvgPool3d model quantized by onnxc, its
# outputs through the emulation identical to the host build's; and nvcc.
set(CUDA_QDQ_3D ${CMAKE_CURRENT_BINARY_DIR}/cuda-qdq-3d)
add_test(NAME cuda.qdq_3d_make
         COMMAND ${ONNXC_PYTHON} ${PROJECT_SOURCE_DIR}/test/quant/make_conv3d_qdq.py
                 $<TARGET_FILE:onnxc> ${CUDA_QDQ_3D})
set_tests_properties(cuda.qdq_3d_make PROPERTIES FIXTURES_SETUP cuda_qdq_3d)
add_test(NAME cuda.emulated.qdq_3d
         COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/../../test/e2e/check_cuda_emulated.py
                 --onnxc $<TARGET_FILE:onnxc> --model-dir ${CUDA_QDQ_3D} --same-as-host)
add_test(NAME cuda.build.qdq_3d
         COMMAND ${CMAKE_COMMAND} -E env ${CUDA_WERROR_ENV} $<TARGET_FILE:onnxc>
                 ${CUDA_QDQ_3D}/model.onnx --target cuda --emit lib --quiet
                 -o ${CMAKE_CURRENT_BINARY_DIR}/cuda-build/qdq_3d)
set_tests_properties(cuda.emulated.qdq_3d cuda.build.qdq_3d
                     PROPERTIES FIXTURES_REQUIRED cuda_qdq_3d)

# Models quantized by other tools (test/quant/producers): ONNX Runtime's
# dynamic quantization (DynamicQuantizeLinear, ConvInteger, MatMulInteger),
# PyTorch FX's and tf2onnx's QDQ, identical to the host build's outputs.
foreach(family ort_dynamic pytorch_fx tf2onnx_qdq)
  add_test(NAME cuda.emulated.producer.${family}
           COMMAND ${ONNXC_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/../../test/e2e/check_cuda_emulated.py
                   --onnxc $<TARGET_FILE:onnxc> --model-dir ${PRODUCERS_DIR}/${family}
                   --same-as-host)
endforeach()

# One ONNX node test per kernel added in CUDA round 2 (scatters, GatherND,
# IsInf, EyeLike, the normalizations, ConvTranspose, LRN, the integer ops,
# GridSample, RoiAlign, the recurrent layers, Det, Einsum, TopK, NonZero
# with the packing of data-sized outputs, Unique, NonMaxSuppression, DFT,
# training-mode BatchNormalization, MaxPool's indices, 3-D pools, Dropout's
# mask, MaxUnpool, TfIdfVectorizer; ConvTranspose in 3-D, which builds the
# 2-D kernel too),
# built with nvcc, warnings as errors: the emulation runs them, this checks
# that the device compiler takes them. For sm_90 alone (3.5 -> 2.5 s a
# model): these kernels have no architecture-specific code (only mma.cuh
# has, which cuda.build.<model>.<precision> builds for both).
set(CUDA_NODE_SAMPLE test_scatternd_add test_scatter_elements_with_duplicate_indices
    test_gathernd_example_int32_batch_dim1 test_isinf test_eyelike_with_dtype
    test_instancenorm_example test_convtranspose_3d test_lrn test_dynamicquantizelinear
    test_qlinearconv test_qlinearmatmul_3D test_matmulinteger test_gridsample_bicubic
    test_roialign_aligned_true test_lstm_with_peepholes test_gru_seq_length test_det_nd
    test_einsum_batch_diagonal test_top_k test_compress_1 test_nonmaxsuppression_two_batches
    test_dft test_batchnorm_example_training_mode test_maxpool_with_argmax_2d_precomputed_pads
    test_averagepool_3d_default test_dropout_default_mask test_unique_sorted_with_axis
    test_maxunpool_export_without_output_shape test_tfidfvectorizer_tf_batch_uniandbigrams_skip5)
string(REPLACE ";" " " CUDA_NODE_SAMPLE "${CUDA_NODE_SAMPLE}")
add_test(NAME cuda.build.node_sample
         COMMAND sh -c "for t in ${CUDA_NODE_SAMPLE}; do env '${CUDA_WERROR_ENV}' $<TARGET_FILE:onnxc> /usr/share/libonnx-testdata/data/node/$t/model.onnx --target cuda --cuda-arch sm_90 --emit lib --quiet -o ${CMAKE_CURRENT_BINARY_DIR}/cuda-build/node/$t || exit 1; done")
