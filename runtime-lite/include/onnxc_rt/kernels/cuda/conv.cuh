// CUDA convolutions and pools over NCHW, 1-D and 2-D (a 1-D window is a
// 2-D one of height 1; the kernel provider lowers no other convolution
// here). Pools of 3 or more spatial dims, and MaxPool with its indices,
// run one output a thread by the reference's max_pool_one / avg_pool_one;
// ConvTranspose of 3 or more dims one output a thread too.
// A convolution with at least 16 output channels per group runs as an
// implicit GEMM on the tiled kernel of gemm.cuh (rows: output channels,
// columns: output pixels, depth: input channels x window; the im2col
// column is gathered while staging, never stored); depthwise and other
// narrow groups run one output per thread. Bias, the fused residual and
// the activation are applied as each sum is stored. ConvTranspose runs
// one output per thread, gathering what the reference scatters; MaxUnpool
// resolves inputs that name one output by atomicMax on their positions.
#ifndef ONNXC_RT_CUDA_CONV_CUH
#define ONNXC_RT_CUDA_CONV_CUH

#include "onnxc_rt/kernels/cuda/gemm.cuh"
#include "onnxc_rt/kernels/reference/conv.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

/// A 1-D or 2-D window op's geometry, from the reference kernels' window
/// arguments.
struct Window2d {
  int n, c, h, w;     // input
  int m, oh, ow;      // output channels and size
  int kh, kw, sh, sw, ph, pw, dh, dw;
};

inline Window2d window2d(int64_t rank, const int64_t *in_shape, const int64_t *out_shape,
                         const int64_t *kernel, const int64_t *strides,
                         const int64_t *pads_begin, const int64_t *dilations) {
  const bool one = rank == 1; // (N, C, W): height 1
  Window2d g;
  g.n = int(in_shape[0]);
  g.c = int(in_shape[1]);
  g.h = one ? 1 : int(in_shape[2]);
  g.w = int(in_shape[one ? 2 : 3]);
  g.m = int(out_shape[1]);
  g.oh = one ? 1 : int(out_shape[2]);
  g.ow = int(out_shape[one ? 2 : 3]);
  g.kh = one ? 1 : int(kernel[0]);
  g.kw = int(kernel[one ? 0 : 1]);
  g.sh = one ? 1 : int(strides[0]);
  g.sw = int(strides[one ? 0 : 1]);
  g.ph = one ? 0 : int(pads_begin[0]);
  g.pw = int(pads_begin[one ? 0 : 1]);
  g.dh = one ? 1 : int(dilations[0]);
  g.dw = int(dilations[one ? 0 : 1]);
  return g;
}

/// Visits the in-bounds taps of output (oh, ow)'s window: f(input offset
/// ih * w + iw within the plane, tap r * kw + s).
template <typename F>
__device__ inline void for_window(const Window2d &g, int oh, int ow, F &&f) {
  for (int r = 0; r < g.kh; ++r) {
    const int ih = oh * g.sh - g.ph + r * g.dh;
    if (ih < 0 || ih >= g.h)
      continue;
    for (int s = 0; s < g.kw; ++s) {
      const int iw = ow * g.sw - g.pw + s * g.dw;
      if (iw >= 0 && iw < g.w)
        f(ih * g.w + iw, r * g.kw + s);
    }
  }
}

/// One output's integer convolution sum: acc plus (x - xz) * (w - wz)
/// over the cg input channels of output channel oc's group and the
/// in-bounds taps of pixel pix's window (ConvInteger's and the qs8
/// convolution's loop). Weights (M, C / group, KH, KW).
template <typename TAcc, typename TX, typename TW>
__device__ inline TAcc window_sum(const TX *x, const TW *w, TAcc xz, TAcc wz, TAcc acc,
                                  const Window2d &g, int image, int oc, int cg, int mg,
                                  int pix) {
  const int first = oc / mg * cg, taps = g.kh * g.kw;
  for (int ic = 0; ic < cg; ++ic) {
    const TX *xp = x + (int64_t(image) * g.c + first + ic) * g.h * g.w;
    const TW *wp = w + (int64_t(oc) * cg + ic) * taps;
    for_window(g, pix / g.ow, pix % g.ow, [&](int at_x, int tap) {
      acc += (TAcc(xp[at_x]) - xz) * (TAcc(wp[tap]) - wz);
    });
  }
  return acc;
}

/// Launches a window kernel over `planes` planes of g's output pixels
/// (plane_launch); nothing for an empty output.
template <typename... Params, typename... Args>
inline void launch_planes(void (*kernel)(Params...), const Window2d &g, int64_t planes,
                          Stream *stream, const Args &...args) {
  const int64_t pixels = int64_t(g.oh) * g.ow;
  if (planes * pixels == 0)
    return;
  const PlaneLaunch pl = plane_launch(planes, pixels);
  launch(kernel, pl.grid, pl.threads, stream, args...);
}

/// Convolution as a GEMM per group: batch entry = group; a column is an
/// (image, output pixel), images side by side, so the small planes of a
/// network's late layers at batch 32 fill whole tiles (7 x 7 pixels would
/// leave 15 of a 64-wide tile's columns idle per image). A thread finds its
/// column's image and window corner once; a depth step is an input channel
/// and tap, whose plane offset and tap displacement the tile's table holds.
template <typename Act> struct ConvProblem {
  const float *x, *weights, *bias, *z;
  float *y;
  Window2d g;
  int group, cg, mg;
  int m, n, k; // mg, images * oh * ow, cg * kh * kw
  float act_alpha, act_beta;
  // (choose_tiles)
  static constexpr Tiles kFloatTiles = Tiles::Small, kMmaTiles = Tiles::Pipelined;
  struct KStep {
    int plane; // ic * h * w
    int dy, dx; // the tap's displacement from the window's corner
  };
  struct Column {
    const float *x; // its image's planes of the group
    int y0, x0;     // the window's top-left corner (may lie in the padding)
  };
  struct Block {
    const float *x, *w; // the group's input planes of image 0, and its weights
    int64_t image;      // elements from one image to the next
    int pixels, h, width, ow, sh, sw, ph, pw, k;
    __device__ Column column(int j) const {
      const int img = j / pixels, pix = j % pixels;
      return Column{x + img * image, (pix / ow) * sh - ph, (pix % ow) * sw - pw};
    }
    __device__ const float *a_at(int i, int p) const { return w + int64_t(i) * k + p; }
    __device__ float a(int i, int p) const { return *a_at(i, p); }
    __device__ const float *b_at(const Column &c, const KStep &s, bool &inside) const {
      const int ih = c.y0 + s.dy, iw = c.x0 + s.dx;
      inside = unsigned(ih) < unsigned(h) && unsigned(iw) < unsigned(width);
      return c.x + (s.plane + ih * width + iw);
    }
    __device__ float b(const Column &c, const KStep &s) const {
      const int ih = c.y0 + s.dy, iw = c.x0 + s.dx;
      return unsigned(ih) < unsigned(h) && unsigned(iw) < unsigned(width)
                 ? c.x[s.plane + ih * width + iw]
                 : 0.0f;
    }
  };
  __device__ Block block(int64_t grp) const {
    return Block{x + grp * cg * g.h * g.w, weights + grp * mg * k, int64_t(g.c) * g.h * g.w,
                 g.oh * g.ow, g.h, g.w, g.ow, g.sh, g.sw, g.ph, g.pw, k};
  }
  __device__ KStep k_step(int p) const {
    const int taps = g.kh * g.kw;
    const int ic = p / taps, tap = p % taps;
    return KStep{ic * g.h * g.w, (tap / g.kw) * g.dh, (tap % g.kw) * g.dw};
  }
  __device__ void store(int64_t grp, int i, int j, float acc) const {
    const int pixels = g.oh * g.ow, img = j / pixels;
    const int oc = int(grp) * mg + i;
    const int64_t at = (int64_t(img) * g.m + oc) * pixels + j % pixels;
    float v = acc + (bias ? bias[oc] : 0.0f);
    if (z)
      v += z[at];
    y[at] = Act::apply(v, act_alpha, act_beta);
  }
};

/// One output per thread: depthwise and narrow-group convolutions. A plane
/// is an (image, output channel).
template <typename Act>
__global__ void direct_conv(const float *x, const float *weights, const float *bias,
                            const float *z, float *y, Window2d g, int cg, int mg,
                            float act_alpha, float act_beta) {
  const int pixels = g.oh * g.ow;
  ONNXC_CUDA_FOR_PLANES(plane, int64_t(g.n) * g.m, pix, pixels) {
    const int oh = pix / g.ow, ow = pix % g.ow;
    const int oc = int(plane % g.m);
    const int64_t img = plane / g.m;
    const int grp = oc / mg;
    float acc = 0.0f;
    for (int ic = 0; ic < cg; ++ic) {
      const float *xp = x + (img * g.c + int64_t(grp) * cg + ic) * g.h * g.w;
      const float *wp = weights + (int64_t(oc) * cg + ic) * g.kh * g.kw;
      for_window(g, oh, ow, [&](int at_x, int tap) { acc = fmaf(xp[at_x], wp[tap], acc); });
    }
    const int64_t at = plane * pixels + pix;
    float v = acc + (bias ? bias[oc] : 0.0f);
    if (z)
      v += z[at];
    y[at] = Act::apply(v, act_alpha, act_beta);
  }
}

/// A plane is an (image, channel).
template <typename T>
__global__ void max_pool_kernel(const T *x, T *y, Window2d g) {
  const int pixels = g.oh * g.ow;
  ONNXC_CUDA_FOR_PLANES(plane, int64_t(g.n) * g.c, pix, pixels) {
    const int oh = pix / g.ow, ow = pix % g.ow;
    const int64_t at = plane * pixels + pix;
    const T *xp = x + plane * g.h * g.w;
    bool found = false;
    T best = T(0);
    for_window(g, oh, ow, [&](int at_x, int) {
      const T v = xp[at_x];
      best = !found || v > best ? v : best;
      found = true;
    });
    y[at] = best;
  }
}

/// count_include_pad counts the window positions inside [-pads_begin,
/// size + pads_end), as the reference does.
template <typename T>
__global__ void avg_pool_kernel(const T *x, T *y, Window2d g, int pad_h_end, int pad_w_end,
                                int count_include_pad) {
  const int pixels = g.oh * g.ow;
  ONNXC_CUDA_FOR_PLANES(plane, int64_t(g.n) * g.c, pix, pixels) {
    const int oh = pix / g.ow, ow = pix % g.ow;
    const int64_t at = plane * pixels + pix;
    const T *xp = x + plane * g.h * g.w;
    T sum = T(0);
    int count = 0, all = 0;
    for (int r = 0; r < g.kh; ++r) {
      const int ih = oh * g.sh - g.ph + r * g.dh;
      for (int s = 0; s < g.kw; ++s) {
        const int iw = ow * g.sw - g.pw + s * g.dw;
        const bool inside = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
        all += ih < g.h + pad_h_end && iw < g.w + pad_w_end;
        if (inside) {
          sum += xp[ih * g.w + iw];
          ++count;
        }
      }
    }
    const int div = count_include_pad ? all : count;
    y[at] = div > 0 ? T(sum / T(div)) : T(0);
  }
}

/// ConvTranspose, one output a thread. The reference scatters input (ih,
/// iw) through tap (r, s) to (ih * sh - ph + r * dh, iw * sw - pw + s *
/// dw); read backwards, output (oh, ow) takes tap r from ih = (oh + ph -
/// r * dh) / sh where that divides and lands in the input. Taps run from
/// the last, so each output sums its terms in the reference's order (input
/// channel, then input position ascending). Weights are (C, M / group, KH,
/// KW).
template <typename T>
__global__ void conv_transpose_kernel(const T *x, const T *w, const T *bias, T *y, Window2d g,
                                      int cg, int mg) {
  const int pixels = g.oh * g.ow, taps = g.kh * g.kw;
  ONNXC_CUDA_FOR_PLANES(plane, int64_t(g.n) * g.m, pix, pixels) {
    const int image = int(plane / g.m), oc = int(plane % g.m);
    const int first = oc / mg * cg, ocg = oc % mg;
    const int oh = pix / g.ow, ow = pix % g.ow;
    T acc = bias ? bias[oc] : T(0);
    for (int ic = first; ic < first + cg; ++ic) {
      const T *xp = x + (int64_t(image) * g.c + ic) * g.h * g.w;
      const T *wp = w + (int64_t(ic) * mg + ocg) * taps;
      for (int r = g.kh - 1; r >= 0; --r) {
        const int th = oh + g.ph - r * g.dh;
        if (th < 0 || th % g.sh != 0 || th / g.sh >= g.h)
          continue;
        for (int s = g.kw - 1; s >= 0; --s) {
          const int tw = ow + g.pw - s * g.dw;
          if (tw >= 0 && tw % g.sw == 0 && tw / g.sw < g.w)
            acc += xp[th / g.sh * g.w + tw / g.sw] * wp[r * g.kw + s];
        }
      }
    }
    y[plane * pixels + pix] = acc;
  }
}

/// A window op of any rank by value (the reference's WindowShape points
/// into it on the device).
struct WindowNd {
  int64_t rank;
  int64_t in[kMaxRank + 2], out[kMaxRank + 2];
  int64_t kernel[kMaxRank], strides[kMaxRank], pads_begin[kMaxRank], pads_end[kMaxRank],
      dilations[kMaxRank];
};

inline WindowNd window_nd(int64_t rank, const int64_t *in_shape, const int64_t *out_shape,
                          const int64_t *kernel, const int64_t *strides,
                          const int64_t *pads_begin, const int64_t *pads_end,
                          const int64_t *dilations) {
  WindowNd g{};
  g.rank = rank;
  for (int64_t d = 0; d < rank + 2; ++d) {
    g.in[d] = in_shape[d];
    g.out[d] = out_shape[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    g.kernel[d] = kernel[d];
    g.strides[d] = strides[d];
    g.pads_begin[d] = pads_begin[d];
    g.pads_end[d] = pads_end[d];
    g.dilations[d] = dilations[d];
  }
  return g;
}

/// Output i of an N-d pool: its plane's input and its window position.
struct PoolOutput {
  int64_t plane, in_sp, pos[kMaxRank];
};
__device__ inline PoolOutput pool_output(const WindowNd &g, int64_t i) {
  PoolOutput o{};
  for (int64_t d = g.rank - 1; d >= 0; --d) {
    o.pos[d] = i % g.out[2 + d];
    i /= g.out[2 + d];
  }
  o.plane = i;
  o.in_sp = product(g.in + 2, g.rank);
  return o;
}

template <typename T>
__global__ void max_pool_nd_kernel(const T *x, T *y, int64_t *indices, WindowNd g,
                                   int64_t storage_order, int64_t total) {
  const ref::WindowShape s{g.rank,    g.in,         g.out,       g.kernel,
                           g.strides, g.pads_begin, g.pads_end, g.dilations};
  ONNXC_CUDA_FOR(i, total) {
    const PoolOutput o = pool_output(g, i);
    T best; // in a register while the window is walked
    const int64_t spatial =
        ref::detail::max_pool_one(x + o.plane * o.in_sp, s, o.pos, storage_order, best);
    y[i] = best;
    if (indices)
      indices[i] = o.plane * o.in_sp + spatial;
  }
}

/// A convolution of 3 or more spatial dims (Conv3d), or in double of any
/// rank, one output a thread: the reference's window walk (for_window), the
/// epilogue of direct_conv; sums in T.
template <typename Act, typename T>
__global__ void direct_conv_nd(const T *x, const T *weights, const T *bias, const T *z, T *y,
                               WindowNd g, int64_t cg, int64_t mg, float act_alpha,
                               float act_beta, int64_t total) {
  const ref::WindowShape s{g.rank,    g.in,         g.out,       g.kernel,
                           g.strides, g.pads_begin, g.pads_end, g.dilations};
  const int64_t ksize = product(g.kernel, g.rank), m = g.out[1];
  ONNXC_CUDA_FOR(i, total) {
    const PoolOutput o = pool_output(g, i); // plane: (image, output channel)
    const int64_t oc = o.plane % m, img = o.plane / m, grp = oc / mg;
    T acc = 0;
    for (int64_t ic = 0; ic < cg; ++ic) {
      const T *xp = x + (img * g.in[1] + grp * cg + ic) * o.in_sp;
      const T *wp = weights + (oc * cg + ic) * ksize;
      ref::detail::for_window(s, o.pos, [&](int64_t at_x, int64_t tap) {
        acc = fma_of(xp[at_x], wp[tap], acc);
      }, nullptr);
    }
    T v = acc + (bias ? bias[oc] : T(0));
    if (z)
      v += z[i];
    y[i] = Act::apply(v, act_alpha, act_beta);
  }
}

template <typename T>
__global__ void avg_pool_nd_kernel(const T *x, T *y, WindowNd g, int64_t count_include_pad,
                                   int64_t total) {
  const ref::WindowShape s{g.rank,    g.in,         g.out,       g.kernel,
                           g.strides, g.pads_begin, g.pads_end, g.dilations};
  ONNXC_CUDA_FOR(i, total) {
    const PoolOutput o = pool_output(g, i);
    y[i] = ref::detail::avg_pool_one(x + o.plane * o.in_sp, s, o.pos, count_include_pad);
  }
}

/// ConvTranspose of 3 or more spatial dims, one output a thread: the 2-D
/// kernel's gather (above) over any rank, the taps from the last so the
/// terms sum in the reference's order. Weights are (C, M / group, k...).
template <typename T>
__global__ void conv_transpose_nd_kernel(const T *x, const T *w, const T *bias, T *y, WindowNd g,
                                         int64_t cg, int64_t mg, int64_t total) {
  const int64_t in_sp = product(g.in + 2, g.rank), taps = product(g.kernel, g.rank);
  ONNXC_CUDA_FOR(i, total) {
    const PoolOutput o = pool_output(g, i); // o.plane: image * M + output channel
    const int64_t image = o.plane / g.out[1], oc = o.plane % g.out[1];
    const int64_t first = oc / mg * cg, ocg = oc % mg;
    T acc = bias ? bias[oc] : T(0);
    for (int64_t ic = first; ic < first + cg; ++ic) {
      const T *xp = x + (image * g.in[1] + ic) * in_sp;
      const T *wp = w + (ic * mg + ocg) * taps;
      for (int64_t tap = taps - 1; tap >= 0; --tap) {
        int64_t rest = tap, at = 0, stride = 1;
        bool inside = true;
        for (int64_t d = g.rank - 1; d >= 0 && inside; --d) {
          const int64_t k = rest % g.kernel[d];
          rest /= g.kernel[d];
          const int64_t t = o.pos[d] + g.pads_begin[d] - k * g.dilations[d];
          inside = t >= 0 && t % g.strides[d] == 0 && t / g.strides[d] < g.in[2 + d];
          at += t / g.strides[d] * stride;
          stride *= g.in[2 + d];
        }
        if (inside)
          acc += xp[at] * wp[tap];
      }
    }
    y[i] = acc;
  }
}

/// MaxUnpool without a race: every input offers its position to its
/// target (the highest position wins, as the reference's later write
/// does), then every output takes its winner's value or 0.
template <typename I>
__global__ void max_unpool_claim(const I *indices, int *winner, int64_t rank, Dims pool_shape,
                                 Dims out_shape, int64_t n_in) {
  ONNXC_CUDA_FOR(i, n_in) {
    const int64_t off = ref::detail::max_unpool_target(int64_t(indices[i]), rank, pool_shape.v,
                                                       out_shape.v);
    if (off >= 0)
      atomicMax(winner + off, int(i));
  }
}

template <typename T>
__global__ void max_unpool_take(const T *x, const int *winner, T *y, int64_t n_out) {
  ONNXC_CUDA_FOR(i, n_out) {
    const int from = winner[i];
    y[i] = from >= 0 ? x[from] : T(0);
  }
}

/// One warp per (n, c) plane: mean (is_max 0) or maximum.
template <typename T>
__global__ void global_pool_kernel(const T *x, T *y, int64_t nc, int64_t spatial, int is_max) {
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  const int lane = threadIdx.x % 32;
  for (int64_t p = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; p < nc;
       p += warps) {
    const T *xp = x + p * spatial;
    T acc = is_max ? xp[0] : T(0);
    for (int64_t i = lane; i < spatial; i += 32)
      acc = is_max ? (xp[i] > acc ? xp[i] : acc) : acc + xp[i];
    for (int off = 16; off > 0; off /= 2) {
      const T other = __shfl_xor_sync(0xffffffffu, acc, off);
      acc = is_max ? (other > acc ? other : acc) : acc + other;
    }
    if (lane == 0)
      y[p] = is_max ? acc : T(acc / T(spatial));
  }
}

} // namespace detail

/// Conv / FusedConv: y = act(conv(x, w) + bias + z); bias and z may be
/// null. Weights are (M, C / group, KH, KW) as in ONNX.
template <typename Act, typename T, typename Math = Fp32>
void conv(Stream *stream, const T *x, const T *w, const T *bias, const T *z, T *y, int64_t rank,
          const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
          const int64_t *strides, const int64_t *pads_begin, const int64_t *pads_end,
          const int64_t *dilations, int64_t group, float act_alpha, float act_beta,
          int64_t splits = 1, float *partial = nullptr) {
  static_assert(sizeof(T) == sizeof(float) || sizeof(T) == sizeof(double),
                "the CUDA convolutions compute in float or double");
  if (rank > 2 || sizeof(T) == sizeof(double)) { // direct, one output a thread
    (void)splits; // (the tiles' split-K)
    (void)partial;
    const int64_t total = product(out_shape, rank + 2);
    launch_over(total, detail::direct_conv_nd<Act, T>, stream, x, w, bias, z, y,
                detail::window_nd(rank, in_shape, out_shape, kernel, strides, pads_begin,
                                  pads_end, dilations),
                in_shape[1] / group, out_shape[1] / group, act_alpha, act_beta, total);
    return;
  }
  if constexpr (sizeof(T) == sizeof(float)) {
    (void)pads_end; // the output size already accounts for them
    const detail::Window2d g =
        detail::window2d(rank, in_shape, out_shape, kernel, strides, pads_begin, dilations);
    const int cg = int(g.c / group), mg = int(g.m / group);
    const int64_t total = int64_t(g.n) * g.m * g.oh * g.ow;
    if (total == 0)
      return;
    if (mg < 16) {
      const PlaneLaunch pl = plane_launch(int64_t(g.n) * g.m, int64_t(g.oh) * g.ow);
      launch(detail::direct_conv<Act>, pl.grid, pl.threads, stream, x, w, bias, z, y, g, cg, mg,
             act_alpha, act_beta);
      return;
    }
    detail::ConvProblem<Act> p{x, w, bias, z, y, g, int(group), cg, mg,
                               mg, g.n * g.oh * g.ow, cg * g.kh * g.kw, act_alpha, act_beta};
    detail::launch_tiled_gemm<Math>(stream, p, group, splits, partial);
  }
}

/// ConvTranspose of any rank: the output shape already holds the
/// output padding and pads_end.
template <typename T>
void conv_transpose(Stream *stream, const T *x, const T *w, const T *bias, T *y, int64_t rank,
                    const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
                    const int64_t *strides, const int64_t *pads_begin, const int64_t *pads_end,
                    const int64_t *dilations, int64_t group) {
  if (rank > 2) {
    const int64_t total = product(out_shape, rank + 2);
    launch_over(total, detail::conv_transpose_nd_kernel<T>, stream, x, w, bias, y,
                detail::window_nd(rank, in_shape, out_shape, kernel, strides, pads_begin,
                                  pads_end, dilations),
                in_shape[1] / group, out_shape[1] / group, total);
    return;
  }
  (void)pads_end;
  const detail::Window2d g =
      detail::window2d(rank, in_shape, out_shape, kernel, strides, pads_begin, dilations);
  detail::launch_planes(detail::conv_transpose_kernel<T>, g, int64_t(g.n) * g.m, stream, x, w,
                        bias, y, g, int(g.c / group), int(g.m / group));
}

/// MaxUnpool: ref::max_unpool's arguments, and a scratch int per output
/// (the winning input's position; ints, as the kernels index with 32 bits).
template <typename T, typename I>
void max_unpool(Stream *stream, const T *x, const I *indices, T *y, int64_t rank,
                const int64_t *pool_shape, const int64_t *out_shape, int64_t n_in, int *winner) {
  const int64_t n_out = product(out_shape, rank);
  if (n_out == 0)
    return;
  fill(stream, winner, n_out, -1);
  launch_over(n_in, detail::max_unpool_claim<I>, stream, indices, winner, rank,
              dims_of(pool_shape, rank), dims_of(out_shape, rank), n_in);
  launch(detail::max_unpool_take<T>, blocks_for(n_out), kThreads, stream, x, winner, y, n_out);
}

template <typename T>
void max_pool(Stream *stream, const T *x, T *y, int64_t *indices, int64_t rank,
              const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
              const int64_t *strides, const int64_t *pads_begin, const int64_t *pads_end,
              const int64_t *dilations, int64_t storage_order) {
  if (rank > 2 || indices) {
    const int64_t total = product(out_shape, rank + 2);
    launch_over(total, detail::max_pool_nd_kernel<T>, stream, x, y, indices,
                detail::window_nd(rank, in_shape, out_shape, kernel, strides, pads_begin,
                                  pads_end, dilations),
                storage_order, total);
    return;
  }
  const detail::Window2d g =
      detail::window2d(rank, in_shape, out_shape, kernel, strides, pads_begin, dilations);
  const int64_t total = int64_t(g.n) * g.c * g.oh * g.ow;
  if (total > 0) {
    const PlaneLaunch pl = plane_launch(int64_t(g.n) * g.c, int64_t(g.oh) * g.ow);
    launch(detail::max_pool_kernel<T>, pl.grid, pl.threads, stream, x, y, g);
  }
}

template <typename T>
void avg_pool(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *in_shape,
              const int64_t *out_shape, const int64_t *kernel, const int64_t *strides,
              const int64_t *pads_begin, const int64_t *pads_end, const int64_t *dilations,
              int64_t count_include_pad) {
  if (rank > 2) {
    const int64_t total = product(out_shape, rank + 2);
    launch_over(total, detail::avg_pool_nd_kernel<T>, stream, x, y,
                detail::window_nd(rank, in_shape, out_shape, kernel, strides, pads_begin,
                                  pads_end, dilations),
                count_include_pad, total);
    return;
  }
  const detail::Window2d g =
      detail::window2d(rank, in_shape, out_shape, kernel, strides, pads_begin, dilations);
  const int pad_h_end = rank == 1 ? 0 : int(pads_end[0]);
  const int pad_w_end = int(pads_end[rank == 1 ? 0 : 1]);
  const int64_t total = int64_t(g.n) * g.c * g.oh * g.ow;
  if (total > 0) {
    const PlaneLaunch pl = plane_launch(int64_t(g.n) * g.c, int64_t(g.oh) * g.ow);
    launch(detail::avg_pool_kernel<T>, pl.grid, pl.threads, stream, x, y, g, pad_h_end,
           pad_w_end, int(count_include_pad));
  }
}

template <typename T>
void global_pool(Stream *stream, const T *x, T *y, int64_t nc, int64_t spatial, int64_t is_max) {
  if (nc > 0 && spatial > 0)
    launch(detail::global_pool_kernel<T>, blocks_for(nc * 32), kThreads, stream,
        x, y, nc, spatial, int(is_max));
}

} // namespace cuda
} // namespace onnxc_rt

#endif
