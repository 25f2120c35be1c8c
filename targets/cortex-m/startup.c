/* Minimal Cortex-M startup: vector table, .data copy, .bss clear, FPU (and
   MVE) on where the core has them, then main. Two builds use it:
   - onnxc's own runs under QEMU (`onnxc run`, every board in
     CortexMTarget.cpp, the tests): newlib's semihosting stdio, and main's
     return value is the program's exit status;
   - the firmware of `onnxc --emit firmware` (ONNXC_FIRMWARE defined): the
     board's RAM banks switched on first (board.h), the SysTick handler of
     console.c, no semihosting; main never returns. */
#include <stdint.h>
#include <stdlib.h>

#ifdef ONNXC_FIRMWARE
#include "board.h"
#endif

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
/* The firmware's console.c counts the SysTick's wraps. */
void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(&__stack_top), Reset_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, 0, 0, 0, 0,
    Default_Handler, Default_Handler, 0, Default_Handler, SysTick_Handler};

#ifdef ONNXC_FIRMWARE
void board_apply(const board_register_write *writes, unsigned count) {
  for (unsigned i = 0; i < count; ++i) {
    volatile uint32_t *reg = (volatile uint32_t *)writes[i].address;
    *reg = (writes[i].mask == 0xFFFFFFFFu ? 0 : (*reg & ~writes[i].mask)) | writes[i].value;
  }
}
#endif

void Reset_Handler(void) {
#ifdef ONNXC_FIRMWARE
  /* RAM banks that are off after reset (the STM32H7's D2 SRAMs) first. */
  static const board_register_write memory_init[] = BOARD_MEMORY_INIT;
  board_apply(memory_init, BOARD_MEMORY_INIT_COUNT);
#endif
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
#ifdef ONNXC_FIRMWARE
  __libc_init_array();
  main();
  for (;;) {
  }
#else
  initialise_monitor_handles();
  __libc_init_array();
  exit(main());
#endif
}
