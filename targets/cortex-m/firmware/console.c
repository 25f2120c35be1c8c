/* The board's console UART and cycle counter, for the driver board.h
   names (from onnxc's board database). Polled: no interrupts but the
   SysTick's wrap count. */
#include "console.h"

#include "board.h"

#define REG(offset) (*(volatile uint32_t *)(BOARD_CONSOLE_BASE + (offset)))

/* The core's and the UART's clocks: the chip's after reset, or after
   board.h's clock steps where they all completed. */
static uint32_t core_hz = BOARD_CLOCK_HZ, uart_hz = BOARD_CLOCK_HZ;

void clock_init(void) {
#if BOARD_CLOCK_INIT_COUNT
  static const board_register_write steps[] = BOARD_CLOCK_INIT;
  for (unsigned i = 0; i < BOARD_CLOCK_INIT_COUNT; ++i) {
    if (!steps[i].wait) {
      board_apply(&steps[i], 1);
      continue;
    }
    const volatile uint32_t *reg = (const volatile uint32_t *)steps[i].address;
    uint32_t tries = 1000000;
    while ((*reg & steps[i].mask) != steps[i].value)
      if (--tries == 0)
        return; /* a PLL that does not lock (QEMU models none): the reset clock */
  }
  core_hz = BOARD_INIT_CLOCK_HZ;
  uart_hz = BOARD_INIT_UART_CLOCK_HZ;
#endif
}

uint32_t clock_hz(void) { return core_hz; }

void console_init(void) {
  /* Clocks and pins for the UART, as the database lists them. */
  static const board_register_write init[] = BOARD_CONSOLE_INIT;
  board_apply(init, BOARD_CONSOLE_INIT_COUNT);
  const uint32_t clock = uart_hz, baud = BOARD_BAUD;
#if defined(BOARD_CONSOLE_STM32_USART_V1) /* STM32F1/F2/F4: SR, DR, BRR, CR1 */
  REG(0x08) = (clock + baud / 2) / baud;
  REG(0x0C) = (1u << 13) | (1u << 3) | (1u << 2); /* UE, TE, RE */
#elif defined(BOARD_CONSOLE_STM32_USART_V2) /* STM32F0/F3/F7/H7/L4: CR1, BRR, ISR, RDR, TDR */
  REG(0x0C) = (clock + baud / 2) / baud;
  REG(0x00) = (1u << 0) | (1u << 3) | (1u << 2); /* UE, TE, RE */
#elif defined(BOARD_CONSOLE_PL011) /* Arm PL011: Stellaris, RP2040 */
  REG(0x30) = 0;
  const uint32_t div64 = (8u * clock / baud + 1u) / 2u; /* 64 x clock / (16 x baud) */
  REG(0x24) = div64 / 64u;       /* IBRD */
  REG(0x28) = div64 % 64u;       /* FBRD */
  REG(0x2C) = 0x70;              /* LCRH: 8 bits, FIFOs on */
  REG(0x30) = (1u << 0) | (1u << 8) | (1u << 9); /* UARTEN, TXE, RXE */
#elif defined(BOARD_CONSOLE_NRF_UART) /* Nordic nRF51/nRF52 UART (not UARTE) */
#if BOARD_BAUD != 115200
#error "the nRF UART's BAUDRATE value here is 115200's"
#endif
  (void)clock;
  (void)baud;
  REG(0x524) = 0x01D7E000u;      /* BAUDRATE: 115200 */
  REG(0x500) = 4;                /* ENABLE */
  REG(0x008) = 1;                /* TASKS_STARTTX */
  REG(0x000) = 1;                /* TASKS_STARTRX */
#elif defined(BOARD_CONSOLE_CMSDK_UART) /* Arm CMSDK APB UART: MPS2/MPS3 */
  REG(0x10) = clock / baud;      /* BAUDDIV */
  REG(0x08) = 3;                 /* CTRL: TX and RX enabled */
#else
#error "board.h names no console driver"
#endif
}

void console_putc(char c) {
#if defined(BOARD_CONSOLE_STM32_USART_V1)
  while (!(REG(0x00) & (1u << 7))) { /* TXE */
  }
  REG(0x04) = (uint8_t)c;
#elif defined(BOARD_CONSOLE_STM32_USART_V2)
  while (!(REG(0x1C) & (1u << 7))) { /* TXE */
  }
  REG(0x28) = (uint8_t)c;
#elif defined(BOARD_CONSOLE_PL011)
  while (REG(0x18) & (1u << 5)) { /* TXFF */
  }
  REG(0x00) = (uint8_t)c;
#elif defined(BOARD_CONSOLE_NRF_UART)
  REG(0x11C) = 0; /* EVENTS_TXDRDY */
  REG(0x51C) = (uint8_t)c;
  while (!REG(0x11C)) {
  }
#elif defined(BOARD_CONSOLE_CMSDK_UART)
  while (REG(0x04) & 1u) { /* TX full */
  }
  REG(0x00) = (uint8_t)c;
#endif
}

int console_getc(void) {
#if defined(BOARD_CONSOLE_STM32_USART_V1)
  while (!(REG(0x00) & (1u << 5))) { /* RXNE */
  }
  return (int)(REG(0x04) & 0xFF);
#elif defined(BOARD_CONSOLE_STM32_USART_V2)
  for (;;) {
    const uint32_t isr = REG(0x1C);
    if (isr & (1u << 5)) /* RXNE */
      return (int)(REG(0x24) & 0xFF);
    if (isr & (1u << 3)) /* ORE: clear it, or reception stops */
      REG(0x20) = 1u << 3;
  }
#elif defined(BOARD_CONSOLE_PL011)
  while (REG(0x18) & (1u << 4)) { /* RXFE */
  }
  return (int)(REG(0x00) & 0xFF);
#elif defined(BOARD_CONSOLE_NRF_UART)
  while (!REG(0x108)) { /* EVENTS_RXDRDY */
  }
  REG(0x108) = 0;
  return (int)(REG(0x518) & 0xFF);
#elif defined(BOARD_CONSOLE_CMSDK_UART)
  while (!(REG(0x04) & 2u)) { /* RX full */
  }
  return (int)(REG(0x00) & 0xFF);
#endif
}

void console_puts(const char *s) {
  while (*s)
    console_putc(*s++);
}

void console_put_uint(uint64_t v) {
  char digits[21];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n)
    console_putc(digits[--n]);
}

/* ---- cycles ---- */

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)
#define NRF_TIMER0(offset) (*(volatile uint32_t *)(0x40008000u + (offset)))

/* The DWT's cycle counter, where the architecture has one (ARMv7-M and
   ARMv8-M mainline: M3, M4, M7, M33, M55): used when it counts (QEMU reads
   it as zero; a chip may leave it out), SysTick otherwise. */
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__) || \
    defined(__ARM_ARCH_8_1M_MAIN__)
#define CYCLES_DWT 1
#define DEMCR (*(volatile uint32_t *)0xE000EDFC)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004)
#define DWT_LAR (*(volatile uint32_t *)0xE0001FB0)
static int use_dwt;
static uint32_t dwt_last, dwt_high; /* CYCCNT extended past 32 bits */
#endif

static volatile uint32_t systick_wraps;

void SysTick_Handler(void) { systick_wraps = systick_wraps + 1; }

const char *cycles_counter(void) {
#if defined(BOARD_CYCLES_NRF_TIMER0)
  return "nrf-timer0";
#else
#if CYCLES_DWT
  if (use_dwt)
    return "dwt";
#endif
  return "systick";
#endif
}

void cycles_init(void) {
#if CYCLES_DWT && !defined(BOARD_CYCLES_NRF_TIMER0)
  DEMCR |= 1u << 24;    /* TRCENA */
  DWT_LAR = 0xC5ACCE55; /* the M7's lock (ignored where there is none) */
  DWT_CYCCNT = 0;
  DWT_CTRL |= 1u;       /* CYCCNTENA */
  const uint32_t before = DWT_CYCCNT;
  for (volatile int i = 0; i < 16; ++i) {
  }
  if (DWT_CYCCNT != before) {
    use_dwt = 1;
    return;
  }
#endif
#if defined(BOARD_CYCLES_NRF_TIMER0)
  NRF_TIMER0(0x504) = 0;   /* MODE: timer */
  NRF_TIMER0(0x508) = 3;   /* BITMODE: 32 bits */
  NRF_TIMER0(0x510) = 0;   /* PRESCALER: 16 MHz */
  NRF_TIMER0(0x00C) = 1;   /* TASKS_CLEAR */
  NRF_TIMER0(0x000) = 1;   /* TASKS_START */
#else
  SYST_RVR = 0x00FFFFFF;
  SYST_CVR = 0;
  SYST_CSR = 7; /* enabled, wrap interrupt, core clock */
#endif
}

uint64_t cycles_now(void) {
#if CYCLES_DWT && !defined(BOARD_CYCLES_NRF_TIMER0)
  if (use_dwt) {
    const uint32_t now = DWT_CYCCNT;
    if (now < dwt_last)
      ++dwt_high;
    dwt_last = now;
    return ((uint64_t)dwt_high << 32) | now;
  }
#endif
#if defined(BOARD_CYCLES_NRF_TIMER0)
  NRF_TIMER0(0x040) = 1; /* TASKS_CAPTURE[0] */
  return NRF_TIMER0(0x540);
#else
  uint32_t wraps, count;
  do { /* a wrap between the two reads: read again */
    wraps = systick_wraps;
    count = SYST_CVR;
  } while (wraps != systick_wraps);
  return ((uint64_t)wraps << 24) + (0x00FFFFFFu - count);
#endif
}
