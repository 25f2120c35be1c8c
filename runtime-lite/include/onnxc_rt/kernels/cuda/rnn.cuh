// CUDA LSTM, GRU and RNN. One block walks the directions, batch entries and
// time steps in the reference's order (ref::detail::run_recurrent); each
// step's phases (every gate's sum, then every unit's update) spread over
// its threads with a barrier between phases, by the reference's own
// per-element rules (rnn.h: gate_sum, lstm_unit, gru_candidate), so every
// output is the reference's operation for operation. A step is as wide as
// its gates (4 x hidden for LSTM): enough for the small recurrent layers
// of the models at hand, not a kernel for large batched RNNs.
#ifndef ONNXC_RT_CUDA_RNN_CUH
#define ONNXC_RT_CUDA_RNN_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/rnn.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

using RnnShape = ::onnxc_rt::ref::detail::RnnShape;

/// A block-stride loop over [0, n): a phase of a step.
#define ONNXC_CUDA_FOR_BLOCK(k, n)                                             \
  for (int64_t k = threadIdx.x; k < (n); k += blockDim.x)

/// run_recurrent on one block: begin(d, b), step(d, b, t) and end(d, b)
/// run their phases across the block; h is the state Y takes each step
/// (zeros past a sequence's length).
template <typename T, typename L, typename Begin, typename Step, typename End>
__device__ void run_recurrent_block(const RnnShape &s, int64_t direction, const L *seq_lens,
                                    T *y, const T *h, Begin begin, Step step, End end) {
  for (int64_t d = 0; d < s.dirs; ++d) {
    const bool reverse = direction == 1 || d == 1;
    for (int64_t b = 0; b < s.batch; ++b) {
      const int64_t len = seq_lens ? static_cast<int64_t>(seq_lens[b]) : s.seq;
      begin(d, b);
      __syncthreads();
      for (int64_t i = 0; i < s.seq; ++i) {
        const int64_t t = reverse ? s.seq - 1 - i : i;
        if (t < len)
          step(d, b, t);
        __syncthreads();
        if (y)
          ONNXC_CUDA_FOR_BLOCK(k, s.hidden) { y[s.y_at(t, d, b) + k] = t < len ? h[k] : T(0); }
        __syncthreads();
      }
      end(d, b);
      __syncthreads();
    }
  }
}

template <typename T, typename L>
__global__ void lstm_kernel(const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
                            const T *h0, const T *c0, const T *p, T *y, T *y_h, T *y_c,
                            RnnShape s, int64_t direction, float clip, T *scratch) {
  const int64_t H = s.hidden, input = s.input;
  T *gates = scratch, *h = scratch + 4 * H, *c = scratch + 5 * H;
  run_recurrent_block(
      s, direction, seq_lens, y, h,
      [&](int64_t d, int64_t bi) {
        ONNXC_CUDA_FOR_BLOCK(k, H) {
          h[k] = h0 ? h0[s.state_at(d, bi) + k] : T(0);
          c[k] = c0 ? c0[s.state_at(d, bi) + k] : T(0);
        }
      },
      [&](int64_t d, int64_t bi, int64_t t) {
        const T *bd = b ? b + d * 8 * H : nullptr, *pd = p ? p + d * 3 * H : nullptr;
        ONNXC_CUDA_FOR_BLOCK(g, 4 * H) {
          gates[g] = ref::detail::gate_sum(bd, bd ? bd + 4 * H : nullptr, w + d * 4 * H * input,
                                           x + s.x_at(t, bi), input, r + d * 4 * H * H, h, H, g);
        }
        __syncthreads();
        ONNXC_CUDA_FOR_BLOCK(k, H) { ref::detail::lstm_unit(gates, pd, clip, H, k, c, h); }
      },
      [&](int64_t d, int64_t bi) {
        ONNXC_CUDA_FOR_BLOCK(k, H) {
          if (y_h)
            y_h[s.state_at(d, bi) + k] = h[k];
          if (y_c)
            y_c[s.state_at(d, bi) + k] = c[k];
        }
      });
}

template <typename T, typename L>
__global__ void rnn_kernel(const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
                           const T *h0, T *y, T *y_h, RnnShape s, int64_t direction, float clip,
                           T *scratch) {
  const int64_t H = s.hidden, input = s.input;
  T *gates = scratch, *h = scratch + H;
  run_recurrent_block(
      s, direction, seq_lens, y, h,
      [&](int64_t d, int64_t bi) {
        ONNXC_CUDA_FOR_BLOCK(k, H) { h[k] = h0 ? h0[s.state_at(d, bi) + k] : T(0); }
      },
      [&](int64_t d, int64_t bi, int64_t t) {
        const T *bd = b ? b + d * 2 * H : nullptr;
        ONNXC_CUDA_FOR_BLOCK(g, H) {
          gates[g] = ref::detail::gate_sum(bd, bd ? bd + H : nullptr, w + d * H * input,
                                           x + s.x_at(t, bi), input, r + d * H * H, h, H, g);
        }
        __syncthreads();
        ONNXC_CUDA_FOR_BLOCK(k, H) {
          h[k] = T(std::tanh(ref::detail::clip_value(gates[k], clip)));
        }
      },
      [&](int64_t d, int64_t bi) {
        if (y_h)
          ONNXC_CUDA_FOR_BLOCK(k, H) { y_h[s.state_at(d, bi) + k] = h[k]; }
      });
}

template <typename T, typename L>
__global__ void gru_kernel(const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
                           const T *h0, T *y, T *y_h, RnnShape s, int64_t direction, float clip,
                           int64_t linear_before_reset, T *scratch) {
  const int64_t H = s.hidden, input = s.input;
  T *xg = scratch, *hg = scratch + 3 * H, *h = scratch + 5 * H;
  const T *none = nullptr;
  run_recurrent_block(
      s, direction, seq_lens, y, h,
      [&](int64_t d, int64_t bi) {
        ONNXC_CUDA_FOR_BLOCK(k, H) { h[k] = h0 ? h0[s.state_at(d, bi) + k] : T(0); }
      },
      [&](int64_t d, int64_t bi, int64_t t) {
        const T *rd = r + d * 3 * H * H, *bd = b ? b + d * 6 * H : nullptr;
        ONNXC_CUDA_FOR_BLOCK(g, 3 * H) {
          xg[g] = ref::detail::gate_sum(bd, none, w + d * 3 * H * input, x + s.x_at(t, bi),
                                        input, none, none, 0, g);
          if (g < 2 * H)
            hg[g] = ref::detail::gate_sum(bd ? bd + 3 * H : nullptr, none, rd, h, H, none, none,
                                          0, g);
        }
        __syncthreads();
        ONNXC_CUDA_FOR_BLOCK(k, 2 * H) {
          xg[k] = ref::detail::sigmoid(ref::detail::clip_value(T(xg[k] + hg[k]), clip));
        }
        __syncthreads();
        ONNXC_CUDA_FOR_BLOCK(k, H) {
          hg[k] = ref::detail::gru_candidate(xg, h, rd, bd, H, linear_before_reset, clip, k);
        }
        __syncthreads();
        ONNXC_CUDA_FOR_BLOCK(k, H) { h[k] = (T(1) - xg[k]) * hg[k] + xg[k] * h[k]; }
      },
      [&](int64_t d, int64_t bi) {
        if (y_h)
          ONNXC_CUDA_FOR_BLOCK(k, H) { y_h[s.state_at(d, bi) + k] = h[k]; }
      });
}

} // namespace detail

/// ref::lstm's arguments; one block of kThreads.
template <typename T, typename L>
void lstm(Stream *stream, const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
          const T *h0, const T *c0, const T *p, T *y, T *y_h, T *y_c, int64_t seq,
          int64_t batch, int64_t input, int64_t hidden, int64_t direction, int64_t layout,
          float clip, T *scratch) {
  const detail::RnnShape s{seq, batch, input, hidden, direction == 2 ? 2 : 1, layout};
  launch(detail::lstm_kernel<T, L>, 1, kThreads, stream, x, w, r, b, seq_lens, h0, c0, p, y, y_h,
         y_c, s, direction, clip, scratch);
}

template <typename T, typename L>
void rnn(Stream *stream, const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
         const T *h0, T *y, T *y_h, int64_t seq, int64_t batch, int64_t input, int64_t hidden,
         int64_t direction, int64_t layout, float clip, T *scratch) {
  const detail::RnnShape s{seq, batch, input, hidden, direction == 2 ? 2 : 1, layout};
  launch(detail::rnn_kernel<T, L>, 1, kThreads, stream, x, w, r, b, seq_lens, h0, y, y_h, s,
         direction, clip, scratch);
}

template <typename T, typename L>
void gru(Stream *stream, const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
         const T *h0, T *y, T *y_h, int64_t seq, int64_t batch, int64_t input, int64_t hidden,
         int64_t direction, int64_t layout, float clip, int64_t linear_before_reset,
         T *scratch) {
  const detail::RnnShape s{seq, batch, input, hidden, direction == 2 ? 2 : 1, layout};
  launch(detail::gru_kernel<T, L>, 1, kThreads, stream, x, w, r, b, seq_lens, h0, y, y_h, s,
         direction, clip, linear_before_reset, scratch);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
