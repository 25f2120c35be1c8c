/* count_instructions.c - a QEMU TCG plugin that counts executed guest
 * instructions, for `onnxc run --count-instructions`.
 *
 * Each translated block adds its instruction count to one 64-bit counter
 * when it executes (an inline add: no callback per block), and the total is
 * written at exit as "onnxc-instructions: N" to QEMU's log (stderr), or to
 * the file named by outfile=PATH. A block left early by an exception counts
 * whole, as in QEMU's own insn plugin; the models' code takes no exceptions.
 * With blocks=PATH it also writes each translated block's address, size
 * and executions there (a profile: bench/mcu_profile.py sums it per
 * function of the program). With mark=ADDR and marks=PATH it appends the
 * count so far to PATH, one line each time the instruction at ADDR (hex)
 * executes: `onnxc validate` marks the entry of a --profile build's
 * NAME_profile_mark, so the differences are each node's instructions (the
 * count moves a whole block at a time: each line is off by the same few
 * instructions of the mark's own block, which cancel in the differences).
 *
 * The few declarations it needs from QEMU's plugin API (version 1, QEMU 7.2;
 * the API is a stable C ABI) are written here: Debian ships QEMU's plugin
 * support but not its header. Built by onnxc itself with the host's C
 * compiler, the first time a run asks for it.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t; /* not read */
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void *userdata);
void qemu_plugin_outs(const char *string);
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* One guest CPU (the models run single-threaded on bare metal and under
 * qemu-user), so one counter; QEMU's plugin state outlives every block. */
static uint64_t executed;
static char outfile[4096], blocksfile[4096];
static uint64_t mark_vaddr;
static FILE *marks;

/* A translated block of the profile (a list; kept until exit). */
struct block {
  uint64_t vaddr, insns, executions;
  struct block *next;
};
static struct block *blocks;

static void on_mark(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  (void)userdata;
  fprintf(marks, "%" PRIu64 "\n", executed);
  fflush(marks);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, n);
  if (marks)
    for (size_t i = 0; i < n; ++i) {
      struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
      if (qemu_plugin_insn_vaddr(insn) == mark_vaddr)
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
  if (blocksfile[0]) {
    struct block *b = calloc(1, sizeof *b);
    if (!b)
      return;
    b->vaddr = qemu_plugin_tb_vaddr(tb);
    b->insns = n;
    b->next = blocks;
    blocks = b;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->executions, 1);
  }
}

static void write_blocks(void) {
  FILE *f = fopen(blocksfile, "w");
  if (!f)
    return;
  for (const struct block *b = blocks; b; b = b->next)
    fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", b->vaddr, b->insns, b->executions);
  fclose(f);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata) {
  (void)id;
  (void)userdata;
  if (blocksfile[0])
    write_blocks();
  char line[64];
  snprintf(line, sizeof line, "onnxc-instructions: %" PRIu64 "\n", executed);
  if (outfile[0]) {
    FILE *f = fopen(outfile, "w");
    if (f) {
      fputs(line, f);
      fclose(f);
      return;
    }
  }
  qemu_plugin_outs(line);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                               char **argv) {
  (void)info;
  for (int i = 0; i < argc; ++i)
    if (strncmp(argv[i], "outfile=", 8) == 0)
      snprintf(outfile, sizeof outfile, "%s", argv[i] + 8);
    else if (strncmp(argv[i], "blocks=", 7) == 0)
      snprintf(blocksfile, sizeof blocksfile, "%s", argv[i] + 7);
    else if (strncmp(argv[i], "mark=", 5) == 0)
      mark_vaddr = strtoull(argv[i] + 5, NULL, 16);
    else if (strncmp(argv[i], "marks=", 6) == 0 && !(marks = fopen(argv[i] + 6, "w")))
      return 1;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
  return 0;
}
