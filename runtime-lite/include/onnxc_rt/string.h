/* onnxc runtime-lite: the string element of ONNX string tensors, for C and
   C++. A string is `size` bytes at `data` (UTF-8 as in ONNX, not
   NUL-terminated) that the model does not own: an input's strings stay the
   caller's; strings the model makes (Cast to string, StringNormalizer's case
   change) live in the arena until its next use; constant ones in read-only
   data. */
#ifndef ONNXC_RT_STRING_H
#define ONNXC_RT_STRING_H

#include <stdint.h>

typedef struct onnxc_string {
  const char *data;
  int64_t size;
} onnxc_string;

/* The compiler plans string tensors at 16 bytes an element. */
#ifdef __cplusplus
static_assert(sizeof(onnxc_string) == 16, "onnxc_string must be 16 bytes");
#else
_Static_assert(sizeof(onnxc_string) == 16, "onnxc_string must be 16 bytes");
#endif

/* What NAME_run returns when the strings a model makes from its inputs'
   strings do not fit the arena space reserved for them (64 bytes per input
   string of a case-changing StringNormalizer); the outputs are then not
   valid. */
#define ONNXC_STATUS_STRING_SPACE 1

#endif
