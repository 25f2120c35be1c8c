// Whether this process may use AMX's tile state, asked of the OS: the one
// definition read by the kernels (simd/qs8/amx.h, before each call's
// tiles) and by the compiler (x86-64-amx's runsHere, so `native` picks it
// only where the tiles will run). No AMX instruction here: it builds for
// any x86-64.
#ifndef ONNXC_RT_SIMD_ISA_AMX_STATE_H
#define ONNXC_RT_SIMD_ISA_AMX_STATE_H

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace onnxc_rt {
namespace simd {

/// Linux gives a process AMX's tile state on request (arch_prctl
/// ARCH_REQ_XCOMP_PERM for XTILEDATA, 18); a request once granted returns
/// at once, so callers ask each time rather than remember (the runtime
/// keeps no mutable state). Refused on a CPU or kernel without AMX; other
/// systems enable the state for every process that has it.
inline bool amx_state_granted() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long kReqXcompPerm = 0x1023, kXfeatureXtileData = 18;
  return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtileData) == 0;
#else
  return true;
#endif
}

} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_ISA_AMX_STATE_H
