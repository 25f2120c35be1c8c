/* Minimal Cortex-M startup for onnxc's firmware under QEMU (every board in
   CortexMTarget.cpp): vector table, .data copy, .bss clear, FPU (and MVE)
   on where the core has one, semihosting stdio, main. */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __data_load, __data_start, __data_end, __bss_start__, __bss_end__;
extern uint32_t __stack_top;
extern int main(void);
extern void initialise_monitor_handles(void);
extern void __libc_init_array(void);

void Reset_Handler(void);
/* -nostartfiles drops crti/crtn; __libc_init_array still calls these. */
void _init(void) {}
void _fini(void) {}
static void Default_Handler(void) {
  for (;;) {
  }
}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(&__stack_top), Reset_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, 0, 0, 0, 0,
    Default_Handler, Default_Handler, 0, Default_Handler, Default_Handler};

void Reset_Handler(void) {
  uint32_t *src = &__data_load, *dst = &__data_start;
  while (dst < &__data_end)
    *dst++ = *src++;
  for (dst = &__bss_start__; dst < &__bss_end__;)
    *dst++ = 0;
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  /* CPACR: full access to CP10/CP11 (the FPU, and MVE on the M55). */
  *(volatile uint32_t *)0xE000ED88 |= (0xFu << 20);
  __asm volatile("dsb\n isb");
#endif
  initialise_monitor_handles();
  __libc_init_array();
  exit(main());
}
