/* cpuinfo_shim.c - an LD_PRELOAD library for ONNX Runtime under qemu-aarch64
 * (user mode), built by bench/arm64_bench.py with aarch64-linux-gnu-gcc.
 *
 * QEMU 7.2's user mode passes /proc/cpuinfo through from the x86 host, and
 * ONNX Runtime's cpuinfo library, finding no Arm "CPU part" in it, crashes
 * while loading. This library answers opens of /proc/cpuinfo with the file
 * named by $ONNXC_FAKE_CPUINFO (an Arm core's /proc/cpuinfo) and passes
 * every other open through. The kernels ONNX Runtime picks follow the
 * hardware capabilities QEMU reports for its -cpu model (getauxval), not
 * this file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *redirect(const char *path) {
  const char *fake = getenv("ONNXC_FAKE_CPUINFO");
  return fake && path && strcmp(path, "/proc/cpuinfo") == 0 ? fake : path;
}

/* The mode argument, present when the flags create a file. */
static mode_t mode_of(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef FILE *(*fopen_fn)(const char *, const char *);

int open(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return ((open_fn)dlsym(RTLD_NEXT, "open"))(redirect(path), flags, mode);
}

int open64(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return ((open_fn)dlsym(RTLD_NEXT, "open64"))(redirect(path), flags, mode);
}

int openat(int dir, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return ((openat_fn)dlsym(RTLD_NEXT, "openat"))(dir, redirect(path), flags, mode);
}

FILE *fopen(const char *path, const char *how) {
  return ((fopen_fn)dlsym(RTLD_NEXT, "fopen"))(redirect(path), how);
}
