/* The network interface bench/cmsis_nn's firmware runs: one side is
   CMSIS-NN (cmsis_net.py's generated C), the other onnxc's library
   (onnxc_net.c). Inputs and outputs are int8 (int16 for compare.py
   --int16: the buffers hold their bytes), the input in the ONNX model's
   layout (NCHW); net_in_size and net_out_size count bytes. */
#ifndef CMSIS_NN_HARNESS_H
#define CMSIS_NN_HARNESS_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Once before the runs (TFLM's Prepare: buffer sizes, kernel sums);
   0 on success. */
int net_init(void);
/* One inference; 0 on success. */
int net_run(const int8_t *input, int8_t *output);
/* RAM beside the arena the network holds (scratch, kernel sums). */
int32_t net_scratch_bytes(void);
extern const int32_t net_arena_bytes, net_in_size, net_out_size;
#ifdef __cplusplus
}
#endif
#endif
