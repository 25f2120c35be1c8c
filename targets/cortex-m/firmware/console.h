/* The firmware's console (the board's UART) and cycle counter. */
#ifndef ONNXC_FIRMWARE_CONSOLE_H
#define ONNXC_FIRMWARE_CONSOLE_H

#include <stdint.h>

/* Raises the clock by board.h's steps (or leaves the reset clock where a
   step's poll times out); then the core's clock in Hz. */
void clock_init(void);
uint32_t clock_hz(void);

void console_init(void);
void console_putc(char c);
void console_puts(const char *s);
void console_put_uint(uint64_t v);
int console_getc(void); /* blocks until a byte arrives */

/* Cycles since cycles_init: the DWT's cycle counter where the core has
   one that counts, else the SysTick (core clock) extended by its wrap
   interrupt, or the nRF51's TIMER0 at 16 MHz (= its core clock); which one,
   as the banner names it. */
void cycles_init(void);
uint64_t cycles_now(void);
const char *cycles_counter(void);

#endif
