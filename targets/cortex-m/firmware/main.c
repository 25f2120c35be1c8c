/* The firmware's main: the model (model_io.h) served over the console
   UART with a line protocol, for `onnxc validate` or a terminal.

   On reset it prints
     onnxc-firmware 1 model=NAME board=BOARD core=CORE clock=HZ counter=dwt|systick|nrf-timer0
       inputs=B0,B1.. outputs=B0,..   (on one line)
   then times one run on zeroed inputs ("bench cycles=N") and prints "ready".
   Commands, one a line:
     run HEX   the inputs' bytes (all inputs in order, little-endian, as the
               model's header lays them out) as hex; the firmware answers
               "out I HEX" for each output, "cycles N" and "ok STATUS"
               (STATUS: the model's return value, 0 for success)
     info      the first line again
   Built with onnxc --profile, the first line ends with "profile=N" (the
   model's N nodes), a run's answer has "layer K CYCLES" for each node K
   before "cycles", and
     nodes     answers "node K LABEL" for each ("Conv 'conv1'") and "ok 0".
   Anything else gets "error ..." and the next line is read. */
#include "board.h"
#include "console.h"
#include "model_io.h"

#include <stdint.h>

/* board.ld places the arena (section .arena: the fastest RAM that holds it)
   and the inputs and outputs (.io: the fastest with room left). */
__attribute__((section(".arena"), aligned(64))) static uint8_t
    arena[MODEL_ARENA_SIZE > 0 ? MODEL_ARENA_SIZE : 1];
__attribute__((section(".io"), aligned(64))) static uint8_t inputs[MODEL_INPUT_BYTES];
__attribute__((section(".io"), aligned(64))) static uint8_t outputs[MODEL_OUTPUT_BYTES];

static const char hex_digits[] = "0123456789abcdef";

#ifdef MODEL_PROFILE_NODES
/* Each node's cycles in the last run: the model calls the mark as node K
   begins, and with K = MODEL_PROFILE_NODES after the last. */
static uint64_t node_cycles[MODEL_PROFILE_NODES + 1];
static uint64_t node_start;
static int node_running = MODEL_PROFILE_NODES;

void MODEL_PROFILE_MARK(int node) {
  const uint64_t now = cycles_now();
  node_cycles[node_running] += now - node_start;
  node_running = node >= 0 && node < MODEL_PROFILE_NODES ? node : MODEL_PROFILE_NODES;
  node_start = now;
}
#endif

static void put_sizes(const uint32_t *bytes, int count) {
  for (int i = 0; i < count; ++i) {
    if (i)
      console_putc(',');
    console_put_uint(bytes[i]);
  }
}

static void put_banner(void) {
  console_puts("onnxc-firmware 1 model=" MODEL_NAME " board=" BOARD_NAME " core=" BOARD_CORE
               " clock=");
  console_put_uint(clock_hz());
  console_puts(" counter=");
  console_puts(cycles_counter());
  console_puts(" inputs=");
  put_sizes(model_input_bytes, MODEL_NUM_INPUTS);
  console_puts(" outputs=");
  put_sizes(model_output_bytes, MODEL_NUM_OUTPUTS);
#ifdef MODEL_PROFILE_NODES
  console_puts(" profile=");
  console_put_uint(MODEL_PROFILE_NODES);
#endif
  console_puts("\n");
}

/* Runs the model on `inputs`; the status, and its cycles in *cycles. */
static int run_model(uint64_t *cycles) {
  const void *in[MODEL_NUM_INPUTS];
  void *out[MODEL_NUM_OUTPUTS];
  uint32_t offset = 0;
  for (int i = 0; i < MODEL_NUM_INPUTS; ++i) {
    in[i] = inputs + offset;
    offset += model_input_bytes[i];
  }
  offset = 0;
  for (int i = 0; i < MODEL_NUM_OUTPUTS; ++i) {
    out[i] = outputs + offset;
    offset += model_output_bytes[i];
  }
#ifdef MODEL_PROFILE_NODES
  for (int k = 0; k <= MODEL_PROFILE_NODES; ++k)
    node_cycles[k] = 0;
#endif
  const uint64_t start = cycles_now();
  const int status = MODEL_RUN_V(in, out, arena);
  *cycles = cycles_now() - start;
  return status;
}

static int hex_value(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Skips to the end of the line. */
static void skip_line(int c) {
  while (c != '\n')
    c = console_getc();
}

/* "run HEX": reads the inputs straight into their buffer, runs, answers. */
static void command_run(void) {
  uint32_t n = 0;
  int c = console_getc();
  while (c != '\n' && c != '\r' && n < 2u * MODEL_INPUT_BYTES) {
    const int v = hex_value(c);
    if (v < 0)
      break;
    if (n % 2 == 0)
      inputs[n / 2] = (uint8_t)(v << 4);
    else
      inputs[n / 2] |= (uint8_t)v;
    ++n;
    c = console_getc();
  }
  if (n != 2u * MODEL_INPUT_BYTES || (c != '\n' && c != '\r')) {
    skip_line(c);
    console_puts("error run takes ");
    console_put_uint(MODEL_INPUT_BYTES);
    console_puts(" bytes of inputs as hex\n");
    return;
  }
  if (c == '\r')
    skip_line(c);
  uint64_t cycles;
  const int status = run_model(&cycles);
  uint32_t offset = 0;
  for (int i = 0; i < MODEL_NUM_OUTPUTS; ++i) {
    console_puts("out ");
    console_put_uint((uint32_t)i);
    console_putc(' ');
    for (uint32_t b = 0; b < model_output_bytes[i]; ++b) {
      const uint8_t byte = outputs[offset + b];
      console_putc(hex_digits[byte >> 4]);
      console_putc(hex_digits[byte & 15]);
    }
    console_putc('\n');
    offset += model_output_bytes[i];
  }
#ifdef MODEL_PROFILE_NODES
  for (int k = 0; k < MODEL_PROFILE_NODES; ++k) {
    console_puts("layer ");
    console_put_uint((uint32_t)k);
    console_putc(' ');
    console_put_uint(node_cycles[k]);
    console_putc('\n');
  }
#endif
  console_puts("cycles ");
  console_put_uint(cycles);
  console_puts("\nok ");
  if (status < 0) {
    console_putc('-');
    console_put_uint((uint32_t)-status);
  } else {
    console_put_uint((uint32_t)status);
  }
  console_putc('\n');
}

int main(void) {
  clock_init();
  console_init();
  cycles_init();
  put_banner();
  uint64_t cycles;
  run_model(&cycles);
  console_puts("bench cycles=");
  console_put_uint(cycles);
  console_puts("\nready\n");
  for (;;) {
    /* The command word, up to a space or the end of the line. */
    char word[8];
    int n = 0, c = console_getc();
    while (c != ' ' && c != '\n' && c != '\r') {
      if (n < (int)sizeof word - 1)
        word[n++] = (char)c;
      c = console_getc();
    }
    word[n] = 0;
    if (n == 0 && c != ' ')
      continue; /* an empty line, or the \n of \r\n */
    if (n == 3 && word[0] == 'r' && word[1] == 'u' && word[2] == 'n' && c == ' ') {
      command_run();
    } else if (n == 4 && word[0] == 'i' && word[1] == 'n' && word[2] == 'f' && word[3] == 'o') {
      if (c == ' ')
        skip_line(c);
      put_banner();
#ifdef MODEL_PROFILE_NODES
    } else if (n == 5 && word[0] == 'n' && word[1] == 'o' && word[2] == 'd' && word[3] == 'e' &&
               word[4] == 's') {
      if (c == ' ')
        skip_line(c);
      for (int k = 0; k < MODEL_PROFILE_NODES; ++k) {
        console_puts("node ");
        console_put_uint((uint32_t)k);
        console_putc(' ');
        console_puts(MODEL_PROFILE_NAMES[k]);
        console_putc('\n');
      }
      console_puts("ok 0\n");
#endif
    } else {
      skip_line(c == '\r' ? '\n' : c);
      console_puts("error unknown command (run HEX, info, nodes)\n");
    }
  }
}
