// Host steps in a GPU schedule: the calls of ops on strings, which are host
// data (an onnxc_string points at characters in host memory), run on the
// host in stream order. The schedule copies such a call's tensors into the
// session's pinned host memory, enqueues the reference kernel there as a
// host function (cudaLaunchHostFunc, which a CUDA Graph captures as a host
// node), and copies its outputs back. Every address is fixed when the
// schedule is captured, so each replay runs the same steps.
#ifndef ONNXC_RT_CUDA_HOST_CUH
#define ONNXC_RT_CUDA_HOST_CUH

#include <new>
#include <tuple>

#include "onnxc_rt/host_steps.h"
#include "onnxc_rt/kernels/cuda/common.cuh"

namespace onnxc_rt {
namespace cuda {

/// n bytes from device (or host) memory `src` to the session's host memory.
inline void to_host(Stream *stream, const void *src, void *host, size_t n) {
  if (n > 0)
    cudaMemcpyAsync(host, src, n, cudaMemcpyDefault, stream);
}

/// n bytes from the session's host memory back to `dst` on the device.
inline void to_device(Stream *stream, const void *host, void *dst, size_t n) {
  if (n > 0)
    cudaMemcpyAsync(dst, host, n, cudaMemcpyDefault, stream);
}

namespace detail {
template <typename T> struct same {
  using type = T;
};

template <typename... P> struct BoundCall {
  void (*fn)(P...);
  std::tuple<P...> args;
};

template <typename... P> void run_bound_call(void *slot) {
  auto *c = static_cast<BoundCall<P...> *>(slot);
  std::apply(c->fn, c->args);
}
} // namespace detail

/// Enqueues fn(args...) on the host in `stream`'s order. The call and its
/// arguments are stored in `slot` (kHostCallBytes of the session's host
/// memory, host_steps.h), which outlives every replay of the schedule.
template <typename... P>
void host_call(Stream *stream, void *slot, void (*fn)(P...),
               typename detail::same<P>::type... args) {
  using Bound = detail::BoundCall<P...>;
  static_assert(sizeof(Bound) <= size_t(kHostCallBytes), "a host call's arguments do not fit");
  static_assert(alignof(Bound) <= 16, "a host call's slot is 16-byte aligned");
  new (slot) Bound{fn, std::tuple<P...>(args...)};
  cudaLaunchHostFunc(stream, &detail::run_bound_call<P...>, slot);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
