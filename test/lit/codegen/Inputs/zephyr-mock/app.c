/* A Zephyr application's use of the module's model (ecosystem.test). */
#include "fashion.h"

static uint8_t arena[fashion_ARENA_SIZE] __attribute__((aligned(64)));

int classify(const float *image, float *logits) { return fashion_run(image, logits, arena); }
