// All reference kernels. Generated code includes only the headers it uses;
// this umbrella is for tools (the compiler's constant folder, tests).
#ifndef ONNXC_RT_KERNELS_H
#define ONNXC_RT_KERNELS_H

#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/detection.h"
#include "onnxc_rt/kernels/reference/elementwise.h"
#include "onnxc_rt/kernels/reference/linalg.h"
#include "onnxc_rt/kernels/reference/norm.h"
#include "onnxc_rt/kernels/reference/quant.h"
#include "onnxc_rt/kernels/reference/reduce.h"
#include "onnxc_rt/kernels/reference/resize.h"
#include "onnxc_rt/kernels/reference/rnn.h"
#include "onnxc_rt/kernels/reference/tensor.h"

#endif
