// The host side of a model on a GPU: one device allocation holding the
// weights, the arena the memory planner laid out and the input and output
// buffers; the weights uploaded once; the whole schedule captured once into
// a CUDA Graph on the session's own stream and replayed by every run.
// A model with ops on strings also holds pinned host memory, where those
// ops run as host steps of the schedule (host.cuh).
// A model with bounded dims (onnxc --dim NAME=LO..HI) runs at the sizes each
// run gives: its memory is planned at the upper bounds, and the session
// keeps the graph of the last sizes it ran, capturing the schedule again
// when a run brings other sizes.
// Every CUDA failure becomes a status code and a message in the session,
// never an abort. The Session lives in memory the caller owns (the
// generated NAME_session): no host heap.
#ifndef ONNXC_RT_CUDA_SESSION_CUH
#define ONNXC_RT_CUDA_SESSION_CUH

#include <stdio.h>
#include <string.h>

#include "onnxc_rt/kernels/cuda/common.cuh"

namespace onnxc_rt {
namespace cuda {

/// Status codes the generated entry points return (0: success).
enum Status : int {
  kOk = 0,
  kNoDevice = 20,      // no usable GPU, or the driver is missing or too old
  kCudaError = 21,     // a CUDA call failed; the message says which
  kNotCreated = 22,    // the session was not created, or creating it failed
  kDimRange = 2,       // a bounded dim's size outside its bounds (ONNXC_STATUS_DIM_RANGE)
};

/// Bounded dims a session holds the sizes of (the generated code refuses a
/// model with more).
constexpr int kMaxBoundedDims = 8;

/// The model's schedule: enqueues every kernel on `stream`; `io` holds the
/// device pointers of the inputs then the outputs, in graph order; `host`
/// is the session's host memory (null when the model has no host steps);
/// `dims` the bounded dims' sizes (null when the model has none).
using Enqueue = int (*)(const int64_t *dims, void *const *io, void *host, const void *weights,
                        void *arena, Stream *stream);

/// What the generated code tells the session about its model.
struct ModelInfo {
  const unsigned char *weights; // the host copy of the weights blob
  size_t weight_bytes, arena_bytes;
  int num_inputs, num_outputs;
  const size_t *io_bytes; // inputs then outputs
  Enqueue enqueue;
  size_t host_bytes; // pinned host memory for the host steps (0: none)
  // Bounded dims: how many, their ONNX names and bounds, and the bytes of
  // each input and output at given sizes (io_bytes holds them at the upper
  // bounds).
  int num_dims;
  const char *const *dim_names;
  const int64_t *dim_min, *dim_max;
  void (*io_bytes_at)(const int64_t *dims, size_t *bytes);
};

struct Session {
  int device;
  int created;
  cudaStream_t stream;
  cudaGraphExec_t graph;
  unsigned char *memory; // weights | arena | inputs | outputs
  unsigned char *host;   // the host steps' memory: status word | calls | tensors
  int64_t dims[kMaxBoundedDims]; // the sizes the graph was captured at
  char message[224];
};

namespace detail {

constexpr size_t kDeviceAlignment = 256;

inline size_t align_up(size_t n) { return (n + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment; }

/// Byte offset of input or output `i` (inputs first) in the allocation.
inline size_t io_offset(const ModelInfo &m, int i) {
  size_t off = align_up(m.weight_bytes) + align_up(m.arena_bytes);
  for (int k = 0; k < i; ++k)
    off += align_up(m.io_bytes[k]);
  return off;
}

inline int fail(Session *s, int status, const char *what, cudaError_t e) {
  snprintf(s->message, sizeof s->message, "%s: %s (%s)", what, cudaGetErrorString(e),
           cudaGetErrorName(e));
  return status;
}

/// Device pointers of the inputs then outputs, into `io` (capacity n).
inline void io_pointers(const Session *s, const ModelInfo &m, void **io, int n) {
  for (int i = 0; i < n && i < m.num_inputs + m.num_outputs; ++i)
    io[i] = s->memory + io_offset(m, i);
}

/// Captures the schedule at `dims` into a graph and instantiates it as
/// s->graph (replacing the one there); records the sizes.
inline int capture(Session *s, const ModelInfo &m, const int64_t *dims, void **io) {
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess)
    return fail(s, kCudaError, "cudaStreamBeginCapture", e);
  m.enqueue(dims, io, s->host, s->memory, s->memory + align_up(m.weight_bytes), s->stream);
  cudaError_t launch = cudaGetLastError();
  e = cudaStreamEndCapture(s->stream, &graph);
  int status = kOk;
  if (launch != cudaSuccess)
    status = fail(s, kCudaError, "launching the model's kernels", launch);
  else if (e != cudaSuccess)
    status = fail(s, kCudaError, "cudaStreamEndCapture", e);
  cudaGraphExec_t exec = nullptr;
  if (status == kOk && (e = cudaGraphInstantiateWithFlags(&exec, graph, 0)) != cudaSuccess)
    status = fail(s, kCudaError, "cudaGraphInstantiateWithFlags", e);
  if (graph)
    cudaGraphDestroy(graph);
  if (status != kOk)
    return status;
  if (s->graph)
    cudaGraphExecDestroy(s->graph);
  s->graph = exec;
  for (int i = 0; i < m.num_dims; ++i)
    s->dims[i] = dims[i];
  return kOk;
}

/// Whether `dims` lie within the model's bounds; else says which does not.
inline bool dims_in_bounds(Session *s, const ModelInfo &m, const int64_t *dims) {
  for (int i = 0; i < m.num_dims; ++i)
    if (dims[i] < m.dim_min[i] || dims[i] > m.dim_max[i]) {
      snprintf(s->message, sizeof s->message,
               "bounded dim '%s' is %lld, outside the model's bounds %lld..%lld",
               m.dim_names[i], static_cast<long long>(dims[i]),
               static_cast<long long>(m.dim_min[i]),
               static_cast<long long>(m.dim_max[i]));
      return false;
    }
  return true;
}

} // namespace detail

/// Selects `device`, allocates and uploads, captures the schedule.
/// `io_scratch` has room for num_inputs + num_outputs pointers.
inline int session_create(Session *s, const ModelInfo &m, int device, void **io_scratch) {
  *s = Session{};
  s->device = device;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    return detail::fail(s, kNoDevice, "no usable CUDA device", e);
  if (device < 0 || device >= count) {
    snprintf(s->message, sizeof s->message, "CUDA device %d does not exist (%d present)", device,
             count);
    return kNoDevice;
  }
  if ((e = cudaSetDevice(device)) != cudaSuccess)
    return detail::fail(s, kNoDevice, "cudaSetDevice", e);
  if ((e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) != cudaSuccess)
    return detail::fail(s, kCudaError, "cudaStreamCreateWithFlags", e);
  const int n = m.num_inputs + m.num_outputs;
  const size_t bytes = detail::io_offset(m, n) + 1;
  void *memory = nullptr;
  if ((e = cudaMalloc(&memory, bytes)) != cudaSuccess) {
    cudaStreamDestroy(s->stream);
    return detail::fail(s, kCudaError, "cudaMalloc of the model's device memory", e);
  }
  s->memory = static_cast<unsigned char *>(memory);
  int status = kOk;
  if (m.host_bytes > 0) {
    void *host = nullptr;
    if ((e = cudaMallocHost(&host, m.host_bytes)) != cudaSuccess)
      status = detail::fail(s, kCudaError, "cudaMallocHost of the model's host memory", e);
    else
      memset(host, 0, m.host_bytes);
    s->host = static_cast<unsigned char *>(host);
  }
  if (status == kOk && m.weight_bytes > 0 &&
      (e = cudaMemcpy(s->memory, m.weights, m.weight_bytes, cudaMemcpyHostToDevice)) != cudaSuccess)
    status = detail::fail(s, kCudaError, "uploading the weights", e);
  if (status == kOk) { // bounded dims: captured at the upper bounds
    detail::io_pointers(s, m, io_scratch, n);
    status = detail::capture(s, m, m.num_dims ? m.dim_max : nullptr, io_scratch);
  }
  if (status != kOk) {
    cudaFree(s->memory);
    if (s->host)
      cudaFreeHost(s->host);
    cudaStreamDestroy(s->stream);
    s->memory = s->host = nullptr;
    return status;
  }
  s->created = 1;
  return kOk;
}

/// Copies the inputs in (host or device pointers), replays the graph,
/// copies the outputs out and waits for them. Returns a host step's status
/// (ONNXC_STATUS_STRING_SPACE) when one set it. Bounded dims: `dims` their
/// sizes (the graph captured again when they differ from the last run's),
/// the inputs and outputs the bytes of those sizes; `io_scratch` has room
/// for num_inputs + num_outputs pointers and `bytes_scratch` for as many
/// sizes.
inline int session_run(Session *s, const ModelInfo &m, const int64_t *dims,
                       const void *const *inputs, void *const *outputs, void **io_scratch,
                       size_t *bytes_scratch) {
  if (!s->created) {
    snprintf(s->message, sizeof s->message, "the session was not created");
    return kNotCreated;
  }
  if (m.num_dims && !detail::dims_in_bounds(s, m, dims))
    return kDimRange;
  cudaError_t e = cudaSetDevice(s->device);
  const size_t *io_bytes = m.io_bytes;
  if (m.num_dims) {
    m.io_bytes_at(dims, bytes_scratch);
    io_bytes = bytes_scratch;
    bool same = true;
    for (int i = 0; i < m.num_dims; ++i)
      same &= dims[i] == s->dims[i];
    if (e == cudaSuccess && !same) {
      detail::io_pointers(s, m, io_scratch, m.num_inputs + m.num_outputs);
      if (int status = detail::capture(s, m, dims, io_scratch))
        return status;
    }
  }
  int *host_status = s->host ? reinterpret_cast<int *>(s->host) : nullptr;
  if (host_status) // the last run has finished: this thread waited for it
    *host_status = 0;
  for (int i = 0; e == cudaSuccess && i < m.num_inputs; ++i)
    e = cudaMemcpyAsync(s->memory + detail::io_offset(m, i), inputs[i], io_bytes[i],
                        cudaMemcpyDefault, s->stream);
  if (e == cudaSuccess)
    e = cudaGraphLaunch(s->graph, s->stream);
  for (int i = 0; e == cudaSuccess && i < m.num_outputs; ++i) {
    const int k = m.num_inputs + i;
    e = cudaMemcpyAsync(outputs[i], s->memory + detail::io_offset(m, k), io_bytes[k],
                        cudaMemcpyDefault, s->stream);
  }
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(s->stream);
  if (e != cudaSuccess)
    return detail::fail(s, kCudaError, "running the model", e);
  if (host_status && *host_status != kOk) {
    snprintf(s->message, sizeof s->message,
             "the strings the model makes need more room than it holds for them");
    return *host_status;
  }
  return kOk;
}

/// Enqueues the schedule on the caller's stream with the caller's device
/// buffers (no graph, no copies); returns without waiting, so a host step's
/// status is not seen here (session_run reports it). Bounded dims: `dims`
/// their sizes.
inline int session_enqueue(Session *s, const ModelInfo &m, const int64_t *dims, void *const *io,
                           Stream *stream) {
  if (!s->created) {
    snprintf(s->message, sizeof s->message, "the session was not created");
    return kNotCreated;
  }
  if (m.num_dims && !detail::dims_in_bounds(s, m, dims))
    return kDimRange;
  cudaError_t e = cudaSetDevice(s->device);
  if (e == cudaSuccess) {
    m.enqueue(dims, io, s->host, s->memory, s->memory + detail::align_up(m.weight_bytes), stream);
    e = cudaGetLastError();
  }
  return e == cudaSuccess ? kOk : detail::fail(s, kCudaError, "launching the model's kernels", e);
}

inline void session_destroy(Session *s) {
  if (s->created) {
    cudaSetDevice(s->device);
    cudaGraphExecDestroy(s->graph);
    cudaFree(s->memory);
    if (s->host)
      cudaFreeHost(s->host);
    cudaStreamDestroy(s->stream);
  }
  s->created = 0;
}

} // namespace cuda
} // namespace onnxc_rt

#endif
