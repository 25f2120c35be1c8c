//===- CortexMDialect.h - the cortexm dialect (CortexMOps.td) -------------===//
#ifndef ONNXC_TARGETS_CORTEXM_CORTEXMDIALECT_H
#define ONNXC_TARGETS_CORTEXM_CORTEXMDIALECT_H

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "targets/cortex-m/CortexMDialect.h.inc"
#define GET_OP_CLASSES
#include "targets/cortex-m/CortexMOps.h.inc"

#endif
