// The reference kernel families the compiler's constant folder evaluates
// (lowering/HostKernels.cpp; it adds reference/qs8.h). Generated code
// includes only the headers its kernel calls name.
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
