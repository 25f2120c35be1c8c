// Reference recurrent layers (LSTM, GRU, RNN) following the ONNX equations
// with the default activations. Scratch memory comes from the arena (no
// heap). A step is phases of independent per-element rules (a gate's sum,
// a unit's update: ONNXC_RT_HD), which the CUDA kernels run across threads
// in the same order of operations.
#ifndef ONNXC_RT_REF_RNN_H
#define ONNXC_RT_REF_RNN_H

#include <cmath>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

namespace detail {
template <typename T> ONNXC_RT_HD inline T sigmoid(T x) {
  return x >= T(0) ? T(1) / (T(1) + T(std::exp(-x)))
                   : T(std::exp(x)) / (T(1) + T(std::exp(x)));
}
template <typename T> ONNXC_RT_HD inline T clip_value(T x, float clip) {
  if (clip > 0.f) {
    if (x > T(clip)) return T(clip);
    if (x < T(-clip)) return T(-clip);
  }
  return x;
}

/// Geometry shared by the recurrent kernels. Offsets of X/Y/Y_h elements
/// depend on `layout` (0: seq-major, 1: batch-major).
struct RnnShape {
  int64_t seq, batch, input, hidden, dirs, layout;
  ONNXC_RT_HD int64_t x_at(int64_t t, int64_t b) const {
    return (layout ? b * seq + t : t * batch + b) * input;
  }
  ONNXC_RT_HD int64_t y_at(int64_t t, int64_t d, int64_t b) const {
    return (layout ? ((b * seq + t) * dirs + d) : ((t * dirs + d) * batch + b)) * hidden;
  }
  ONNXC_RT_HD int64_t state_at(int64_t d, int64_t b) const {
    return (layout ? b * dirs + d : d * batch + b) * hidden;
  }
};

/// Y[t, d, b] = h (or zeros when null: steps past the sequence length).
template <typename T>
inline void store_step(T *y, const RnnShape &s, int64_t t, int64_t d, int64_t b, const T *h) {
  if (!y)
    return;
  for (int64_t k = 0; k < s.hidden; ++k)
    y[s.y_at(t, d, b) + k] = h ? h[k] : T(0);
}

/// sum_k v[k] * row[k], in order.
template <typename T> ONNXC_RT_HD inline T dot(const T *row, const T *v, int64_t n) {
  T acc = T(0);
  for (int64_t k = 0; k < n; ++k)
    acc += v[k] * row[k];
  return acc;
}

/// Gate g's sum: its bias (bias_a[g] + bias_b[g], bias_a[g] alone, or 0
/// when bias_a is null), plus row g of m1 . v1, plus row g of m2 . v2 when
/// m2 is given, each product summed on its own and added in that order.
template <typename T>
ONNXC_RT_HD inline T gate_sum(const T *bias_a, const T *bias_b, const T *m1, const T *v1,
                              int64_t n1, const T *m2, const T *v2, int64_t n2, int64_t g) {
  T v = bias_a ? (bias_b ? T(bias_a[g] + bias_b[g]) : bias_a[g]) : T(0);
  v += dot(m1 + g * n1, v1, n1);
  if (m2)
    v += dot(m2 + g * n2, v2, n2);
  return v;
}

/// LSTM unit k's update from its four gates (order in W/R/B: input,
/// output, forget, cell) and the peepholes pd (may be null): c[k], h[k].
template <typename T>
ONNXC_RT_HD inline void lstm_unit(const T *gates, const T *pd, float clip, int64_t H, int64_t k,
                                  T *c, T *h) {
  T gi = gates[k], go = gates[H + k], gf = gates[2 * H + k], gc = gates[3 * H + k];
  if (pd) {
    gi += pd[k] * c[k];
    gf += pd[2 * H + k] * c[k];
  }
  gi = sigmoid(clip_value(gi, clip));
  gf = sigmoid(clip_value(gf, clip));
  gc = T(std::tanh(clip_value(gc, clip)));
  c[k] = gf * c[k] + gi * gc;
  if (pd)
    go += pd[H + k] * c[k];
  go = sigmoid(clip_value(go, clip));
  h[k] = go * T(std::tanh(c[k]));
}

/// GRU unit k's candidate (z in xg[0, H), r in xg[H, 2H), the input's
/// candidate sum in xg[2H, 3H); rd the recurrent weights, bd the biases).
template <typename T>
ONNXC_RT_HD inline T gru_candidate(const T *xg, const T *h, const T *rd, const T *bd, int64_t H,
                                   int64_t linear_before_reset, float clip, int64_t k) {
  const T *rh_row = rd + (2 * H + k) * H;
  T acc = T(0);
  if (linear_before_reset) {
    for (int64_t j = 0; j < H; ++j)
      acc += h[j] * rh_row[j];
    acc = xg[H + k] * T(acc + (bd ? bd[5 * H + k] : T(0)));
  } else {
    for (int64_t j = 0; j < H; ++j)
      acc += xg[H + j] * h[j] * rh_row[j];
    acc += bd ? bd[5 * H + k] : T(0);
  }
  return T(std::tanh(clip_value(T(xg[2 * H + k] + acc), clip)));
}
/// The loop every recurrent layer shares: directions, batch entries and
/// time steps (backwards for the reverse direction; zeros in Y past a
/// sequence's length). begin(d, b) loads the initial state, step(d, b, t)
/// advances it and returns the hidden state, end(d, b) stores the final one.
template <typename T, typename L, typename Begin, typename Step, typename End>
void run_recurrent(const RnnShape &s, int64_t direction, const L *seq_lens, T *y,
                   Begin begin, Step step, End end) {
  for (int64_t d = 0; d < s.dirs; ++d) {
    const bool reverse = direction == 1 || d == 1;
    for (int64_t b = 0; b < s.batch; ++b) {
      const int64_t len = seq_lens ? static_cast<int64_t>(seq_lens[b]) : s.seq;
      begin(d, b);
      for (int64_t i = 0; i < s.seq; ++i) {
        const int64_t t = reverse ? s.seq - 1 - i : i;
        store_step<T>(y, s, t, d, b, t < len ? step(d, b, t) : nullptr);
      }
      end(d, b);
    }
  }
}

/// Initial state (h0 may be null: zeros) for direction d, batch entry b.
template <typename T>
inline void load_state(T *h, const T *h0, const RnnShape &s, int64_t d, int64_t b) {
  for (int64_t k = 0; k < s.hidden; ++k)
    h[k] = h0 ? h0[s.state_at(d, b) + k] : T(0);
}

/// Final state into Y_h / Y_c (may be null).
template <typename T>
inline void save_state(T *out, const T *h, const RnnShape &s, int64_t d, int64_t b) {
  if (out)
    for (int64_t k = 0; k < s.hidden; ++k)
      out[s.state_at(d, b) + k] = h[k];
}
} // namespace detail

/// direction: 0 forward, 1 reverse, 2 bidirectional. Optional inputs and
/// outputs are null when absent. scratch holds 6 * hidden elements.
template <typename T, typename L>
void lstm(const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
          const T *h0, const T *c0, const T *p, T *y, T *y_h, T *y_c,
          int64_t seq, int64_t batch, int64_t input, int64_t hidden,
          int64_t direction, int64_t layout, float clip, T *scratch) {
  const detail::RnnShape s{seq, batch, input, hidden, direction == 2 ? 2 : 1, layout};
  const int64_t H = hidden;
  T *gates = scratch, *h = scratch + 4 * H, *c = scratch + 5 * H;
  detail::run_recurrent<T>(
      s, direction, seq_lens, y,
      [&](int64_t d, int64_t bi) {
        detail::load_state(h, h0, s, d, bi);
        detail::load_state(c, c0, s, d, bi);
      },
      [&](int64_t d, int64_t bi, int64_t t) -> const T * {
        const T *bd = b ? b + d * 8 * H : nullptr, *pd = p ? p + d * 3 * H : nullptr;
        for (int64_t g = 0; g < 4 * H; ++g)
          gates[g] = detail::gate_sum(bd, bd ? bd + 4 * H : nullptr, w + d * 4 * H * input,
                                      x + s.x_at(t, bi), input, r + d * 4 * H * H, h, H, g);
        for (int64_t k = 0; k < H; ++k)
          detail::lstm_unit(gates, pd, clip, H, k, c, h);
        return h;
      },
      [&](int64_t d, int64_t bi) {
        detail::save_state(y_h, h, s, d, bi);
        detail::save_state(y_c, c, s, d, bi);
      });
}

/// Simple RNN (tanh); scratch holds 2 * hidden elements.
template <typename T, typename L>
void rnn(const T *x, const T *w, const T *r, const T *b, const L *seq_lens, const T *h0,
         T *y, T *y_h, int64_t seq, int64_t batch, int64_t input, int64_t hidden,
         int64_t direction, int64_t layout, float clip, T *scratch) {
  const detail::RnnShape s{seq, batch, input, hidden, direction == 2 ? 2 : 1, layout};
  const int64_t H = hidden;
  T *gates = scratch, *h = scratch + H;
  detail::run_recurrent<T>(
      s, direction, seq_lens, y, [&](int64_t d, int64_t bi) { detail::load_state(h, h0, s, d, bi); },
      [&](int64_t d, int64_t bi, int64_t t) -> const T * {
        const T *bd = b ? b + d * 2 * H : nullptr;
        for (int64_t g = 0; g < H; ++g)
          gates[g] = detail::gate_sum(bd, bd ? bd + H : nullptr, w + d * H * input,
                                      x + s.x_at(t, bi), input, r + d * H * H, h, H, g);
        for (int64_t k = 0; k < H; ++k)
          h[k] = T(std::tanh(detail::clip_value(gates[k], clip)));
        return h;
      },
      [&](int64_t d, int64_t bi) { detail::save_state(y_h, h, s, d, bi); });
}

/// GRU; scratch holds 6 * hidden elements.
template <typename T, typename L>
void gru(const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
         const T *h0, T *y, T *y_h, int64_t seq, int64_t batch, int64_t input,
         int64_t hidden, int64_t direction, int64_t layout, float clip,
         int64_t linear_before_reset, T *scratch) {
  const detail::RnnShape s{seq, batch, input, hidden, direction == 2 ? 2 : 1, layout};
  const int64_t H = hidden;
  // xg: X*W^T + Wb (z, r, h); hg: H*R^T + Rb for z and r, then the
  // candidate; h: the state.
  T *xg = scratch, *hg = scratch + 3 * H, *h = scratch + 5 * H;
  detail::run_recurrent<T>(
      s, direction, seq_lens, y, [&](int64_t d, int64_t bi) { detail::load_state(h, h0, s, d, bi); },
      [&](int64_t d, int64_t bi, int64_t t) -> const T * {
        const T *rd = r + d * 3 * H * H, *bd = b ? b + d * 6 * H : nullptr;
        for (int64_t g = 0; g < 3 * H; ++g)
          xg[g] = detail::gate_sum(bd, static_cast<const T *>(nullptr), w + d * 3 * H * input,
                                   x + s.x_at(t, bi), input, static_cast<const T *>(nullptr),
                                   static_cast<const T *>(nullptr), 0, g);
        // z and r: recurrent part with the plain state.
        for (int64_t g = 0; g < 2 * H; ++g)
          hg[g] = detail::gate_sum(bd ? bd + 3 * H : nullptr, static_cast<const T *>(nullptr),
                                   rd, h, H, static_cast<const T *>(nullptr),
                                   static_cast<const T *>(nullptr), 0, g);
        for (int64_t k = 0; k < 2 * H; ++k)
          xg[k] = detail::sigmoid(detail::clip_value(T(xg[k] + hg[k]), clip));
        for (int64_t k = 0; k < H; ++k)
          hg[k] = detail::gru_candidate(xg, h, rd, bd, H, linear_before_reset, clip, k);
        for (int64_t k = 0; k < H; ++k)
          h[k] = (T(1) - xg[k]) * hg[k] + xg[k] * h[k];
        return h;
      },
      [&](int64_t d, int64_t bi) { detail::save_state(y_h, h, s, d, bi); });
}

} // namespace ref
} // namespace onnxc_rt

#endif
