/* onnxc's side of bench/cmsis_nn: the model library `onnxc --quantize int8
   --io int8 --emit lib` writes (int16x8 and --io int16 with
   -DNET_ELEM_BYTES=2), behind harness.h. */
#include "harness.h"
#include "model.h"

#ifndef NET_ELEM_BYTES
#define NET_ELEM_BYTES 1
#endif
#if NET_ELEM_BYTES == 2
typedef int16_t net_t;
#else
typedef int8_t net_t;
#endif

static unsigned char arena[model_ARENA_SIZE] __attribute__((aligned(model_ARENA_ALIGNMENT)));

int net_init(void) { return 0; }
int net_run(const int8_t *input, int8_t *output) {
  return model_run((const net_t *)(const void *)input, (net_t *)(void *)output, arena);
}
int32_t net_scratch_bytes(void) { return 0; }
const int32_t net_arena_bytes = model_ARENA_SIZE;
const int32_t net_in_size = model_INPUT0_SIZE * NET_ELEM_BYTES;
const int32_t net_out_size = model_OUTPUT0_SIZE * NET_ELEM_BYTES;
