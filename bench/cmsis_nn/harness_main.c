/* bench/cmsis_nn's firmware main, the same for both sides: reads the int8
   input and the number of runs through semihosting (input.bin, runs.txt in
   the working folder), runs the network that many times, writes
   output.bin and the deepest stack the runs used (the stack below main's
   frame painted beforehand). compare.py counts the instructions of 1 and
   1 + N runs under QEMU; start-up and I/O cancel out. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static int8_t input[65536], output[65536];

#define STACK_PAINT 32768

static uintptr_t stack_pointer(void) {
  uintptr_t sp;
  __asm volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

static __attribute__((noinline)) int run_all(int runs) {
  for (int i = 0; i < runs; ++i) {
    int rc = net_run(input, output);
    if (rc != 0)
      return rc;
  }
  return 0;
}

int main(void) {
  FILE *f = fopen("input.bin", "rb");
  if (!f || fread(input, 1, (size_t)net_in_size, f) != (size_t)net_in_size) {
    printf("harness: cannot read input.bin (%ld bytes)\n", (long)net_in_size);
    return 2;
  }
  fclose(f);
  int runs = 1;
  if ((f = fopen("runs.txt", "r")) != NULL) {
    if (fscanf(f, "%d", &runs) != 1)
      runs = 1;
    fclose(f);
  }
  int rc = net_init();
  if (rc != 0) {
    printf("harness: net_init returned %d\n", rc);
    return 3;
  }
  /* Paint the stack below main's frame (its own locals are above sp). */
  const uintptr_t top = stack_pointer() - 16;
  volatile unsigned char *const base = (volatile unsigned char *)(top - STACK_PAINT);
  for (volatile unsigned char *p = base; p < (volatile unsigned char *)top; ++p)
    *p = 0xA5;
  rc = run_all(runs);
  if (rc != 0) {
    printf("harness: layer %d failed\n", rc);
    return 3;
  }
  volatile unsigned char *p = base;
  while (p < (volatile unsigned char *)top && *p == 0xA5)
    ++p;
  printf("harness: stack %ld\n", (long)(top + 16 - (uintptr_t)p));
  printf("harness: scratch %ld\n", (long)net_scratch_bytes());
  printf("harness: arena %ld\n", (long)net_arena_bytes);
  if (!(f = fopen("output.bin", "wb")) ||
      fwrite(output, 1, (size_t)net_out_size, f) != (size_t)net_out_size) {
    printf("harness: cannot write output.bin\n");
    return 2;
  }
  fclose(f);
  printf("harness: done\n");
  return 0;
}
