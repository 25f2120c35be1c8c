// Reference recurrent layers (LSTM, GRU) following the ONNX equations with
// the default activations. Scratch memory comes from the arena (no heap).
#ifndef ONNXC_RT_REF_RNN_H
#define ONNXC_RT_REF_RNN_H

#include <cmath>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

namespace detail {
template <typename T> inline T sigmoid(T x) {
  return x >= T(0) ? T(1) / (T(1) + T(std::exp(-x)))
                   : T(std::exp(x)) / (T(1) + T(std::exp(x)));
}
template <typename T> inline T clip_value(T x, float clip) {
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
  int64_t x_at(int64_t t, int64_t b) const {
    return (layout ? b * seq + t : t * batch + b) * input;
  }
  int64_t y_at(int64_t t, int64_t d, int64_t b) const {
    return (layout ? ((b * seq + t) * dirs + d) : ((t * dirs + d) * batch + b)) * hidden;
  }
  int64_t state_at(int64_t d, int64_t b) const {
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

/// gates[g] += sum_k v[k] * m[(row0 + g) * cols + k] for g in [0, rows).
template <typename T>
void matvec_acc(const T *m, int64_t row0, int64_t rows, int64_t cols,
                const T *v, T *gates) {
  for (int64_t g = 0; g < rows; ++g) {
    const T *mr = m + (row0 + g) * cols;
    T acc = T(0);
    for (int64_t k = 0; k < cols; ++k)
      acc += v[k] * mr[k];
    gates[g] += acc;
  }
}
} // namespace detail

/// direction: 0 forward, 1 reverse, 2 bidirectional. Optional inputs and
/// outputs are null when absent. scratch holds 6 * hidden elements.
template <typename T, typename L>
void lstm(const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
          const T *h0, const T *c0, const T *p, T *y, T *y_h, T *y_c,
          int64_t seq, int64_t batch, int64_t input, int64_t hidden,
          int64_t direction, int64_t layout, float clip, T *scratch) {
  const int64_t dirs = direction == 2 ? 2 : 1;
  const detail::RnnShape s{seq, batch, input, hidden, dirs, layout};
  const int64_t H = hidden;
  T *gates = scratch, *h = scratch + 4 * H, *c = scratch + 5 * H;
  for (int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == 1 || d == 1;
    const T *wd = w + d * 4 * H * input, *rd = r + d * 4 * H * H;
    const T *bd = b ? b + d * 8 * H : nullptr, *pd = p ? p + d * 3 * H : nullptr;
    for (int64_t bi = 0; bi < batch; ++bi) {
      const int64_t len = seq_lens ? static_cast<int64_t>(seq_lens[bi]) : seq;
      for (int64_t k = 0; k < H; ++k) {
        h[k] = h0 ? h0[s.state_at(d, bi) + k] : T(0);
        c[k] = c0 ? c0[s.state_at(d, bi) + k] : T(0);
      }
      for (int64_t step = 0; step < seq; ++step) {
        const int64_t t = reverse ? seq - 1 - step : step;
        if (t >= len) {
          detail::store_step<T>(y, s, t, d, bi, nullptr);
          continue;
        }
        for (int64_t g = 0; g < 4 * H; ++g)
          gates[g] = bd ? T(bd[g] + bd[4 * H + g]) : T(0);
        detail::matvec_acc(wd, 0, 4 * H, input, x + s.x_at(t, bi), gates);
        detail::matvec_acc(rd, 0, 4 * H, H, h, gates);
        for (int64_t k = 0; k < H; ++k) {
          // Gate order in W/R/B: input, output, forget, cell.
          T gi = gates[k], go = gates[H + k], gf = gates[2 * H + k], gc = gates[3 * H + k];
          if (pd) {
            gi += pd[k] * c[k];
            gf += pd[2 * H + k] * c[k];
          }
          gi = detail::sigmoid(detail::clip_value(gi, clip));
          gf = detail::sigmoid(detail::clip_value(gf, clip));
          gc = T(std::tanh(detail::clip_value(gc, clip)));
          c[k] = gf * c[k] + gi * gc;
          if (pd)
            go += pd[H + k] * c[k];
          go = detail::sigmoid(detail::clip_value(go, clip));
          h[k] = go * T(std::tanh(c[k]));
        }
        detail::store_step(y, s, t, d, bi, h);
      }
      for (int64_t k = 0; k < H; ++k) {
        if (y_h)
          y_h[s.state_at(d, bi) + k] = h[k];
        if (y_c)
          y_c[s.state_at(d, bi) + k] = c[k];
      }
    }
  }
}

/// Simple RNN (tanh); scratch holds 2 * hidden elements.
template <typename T, typename L>
void rnn(const T *x, const T *w, const T *r, const T *b, const L *seq_lens, const T *h0,
         T *y, T *y_h, int64_t seq, int64_t batch, int64_t input, int64_t hidden,
         int64_t direction, int64_t layout, float clip, T *scratch) {
  const int64_t dirs = direction == 2 ? 2 : 1;
  const detail::RnnShape s{seq, batch, input, hidden, dirs, layout};
  const int64_t H = hidden;
  T *gates = scratch, *h = scratch + H;
  for (int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == 1 || d == 1;
    const T *wd = w + d * H * input, *rd = r + d * H * H;
    const T *bd = b ? b + d * 2 * H : nullptr;
    for (int64_t bi = 0; bi < batch; ++bi) {
      const int64_t len = seq_lens ? static_cast<int64_t>(seq_lens[bi]) : seq;
      for (int64_t k = 0; k < H; ++k)
        h[k] = h0 ? h0[s.state_at(d, bi) + k] : T(0);
      for (int64_t step = 0; step < seq; ++step) {
        const int64_t t = reverse ? seq - 1 - step : step;
        if (t >= len) {
          detail::store_step<T>(y, s, t, d, bi, nullptr);
          continue;
        }
        for (int64_t g = 0; g < H; ++g)
          gates[g] = bd ? T(bd[g] + bd[H + g]) : T(0);
        detail::matvec_acc(wd, 0, H, input, x + s.x_at(t, bi), gates);
        detail::matvec_acc(rd, 0, H, H, h, gates);
        for (int64_t k = 0; k < H; ++k)
          h[k] = T(std::tanh(detail::clip_value(gates[k], clip)));
        detail::store_step(y, s, t, d, bi, h);
      }
      if (y_h)
        for (int64_t k = 0; k < H; ++k)
          y_h[s.state_at(d, bi) + k] = h[k];
    }
  }
}

/// GRU; scratch holds 6 * hidden elements.
template <typename T, typename L>
void gru(const T *x, const T *w, const T *r, const T *b, const L *seq_lens,
         const T *h0, T *y, T *y_h, int64_t seq, int64_t batch, int64_t input,
         int64_t hidden, int64_t direction, int64_t layout, float clip,
         int64_t linear_before_reset, T *scratch) {
  const int64_t dirs = direction == 2 ? 2 : 1;
  const detail::RnnShape s{seq, batch, input, hidden, dirs, layout};
  const int64_t H = hidden;
  // xg: X*W^T + Wb (z, r, h); hg: H*R^T + Rb for z, r (and h when linear
  // before reset); h: the state.
  T *xg = scratch, *hg = scratch + 3 * H, *h = scratch + 5 * H;
  for (int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == 1 || d == 1;
    const T *wd = w + d * 3 * H * input, *rd = r + d * 3 * H * H;
    const T *bd = b ? b + d * 6 * H : nullptr;
    for (int64_t bi = 0; bi < batch; ++bi) {
      const int64_t len = seq_lens ? static_cast<int64_t>(seq_lens[bi]) : seq;
      for (int64_t k = 0; k < H; ++k)
        h[k] = h0 ? h0[s.state_at(d, bi) + k] : T(0);
      for (int64_t step = 0; step < seq; ++step) {
        const int64_t t = reverse ? seq - 1 - step : step;
        if (t >= len) {
          detail::store_step<T>(y, s, t, d, bi, nullptr);
          continue;
        }
        for (int64_t g = 0; g < 3 * H; ++g)
          xg[g] = bd ? bd[g] : T(0);
        detail::matvec_acc(wd, 0, 3 * H, input, x + s.x_at(t, bi), xg);
        // z and r: recurrent part with the plain state.
        for (int64_t g = 0; g < 2 * H; ++g)
          hg[g] = bd ? bd[3 * H + g] : T(0);
        detail::matvec_acc(rd, 0, 2 * H, H, h, hg);
        for (int64_t k = 0; k < 2 * H; ++k)
          xg[k] = detail::sigmoid(detail::clip_value(T(xg[k] + hg[k]), clip));
        // Candidate: z in xg[0,H), r in xg[H,2H).
        for (int64_t k = 0; k < H; ++k) {
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
          hg[k] = T(std::tanh(detail::clip_value(T(xg[2 * H + k] + acc), clip)));
        }
        for (int64_t k = 0; k < H; ++k)
          h[k] = (T(1) - xg[k]) * hg[k] + xg[k] * h[k];
        detail::store_step(y, s, t, d, bi, h);
      }
      if (y_h)
        for (int64_t k = 0; k < H; ++k)
          y_h[s.state_at(d, bi) + k] = h[k];
    }
  }
}

} // namespace ref
} // namespace onnxc_rt

#endif
