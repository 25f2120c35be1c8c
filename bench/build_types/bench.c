/* Times a compiled model from C: its inputs filled with a fixed pattern, a
   few warm-up runs, then the median of N timed runs (argv[1], default 50). */
#include "net.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static alignas(64) unsigned char arena[net_ARENA_SIZE > 0 ? net_ARENA_SIZE : 1];

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 50;
  if (runs < 1)
    runs = 1;
  static float in0[net_INPUT0_SIZE], out0[net_OUTPUT0_SIZE];
  for (long i = 0; i < (long)net_INPUT0_SIZE; ++i)
    in0[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
  const void *inputs[] = {in0};
  void *outputs[] = {out0};
  for (int i = 0; i < 3; ++i)
    if (net_run_v(inputs, outputs, arena) != 0)
      return 1;
  double *us = malloc(sizeof(double) * (size_t)runs);
  for (int i = 0; i < runs; ++i) {
    double t0 = now_us();
    net_run_v(inputs, outputs, arena);
    us[i] = now_us() - t0;
  }
  qsort(us, (size_t)runs, sizeof(double), by_value);
  printf("median %.1f us over %d runs (output[0] %g)\n", us[runs / 2], runs, out0[0]);
  free(us);
  return 0;
}
