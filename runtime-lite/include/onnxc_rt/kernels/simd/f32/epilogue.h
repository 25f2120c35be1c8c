// The fused-op epilogue of the SIMD GEMM and convolutions: bias, residual
// add and an activation functor from the reference kernels (vectorised
// where simd/vec.h has the function), applied while a finished tile is
// still in L1, so a Conv+Bias+Add+Relu writes its output once.
#ifndef ONNXC_RT_SIMD_F32_EPILOGUE_H
#define ONNXC_RT_SIMD_F32_EPILOGUE_H

#include <type_traits>

#include "onnxc_rt/kernels/reference/elementwise.h"
#include "onnxc_rt/kernels/simd/f32/gemm_operands.h"

namespace onnxc_rt {
namespace simd {

/// What becomes of each element of the product before it is stored:
/// y = Act(alpha * acc + beta * bias[i * bias_rs + j * bias_cs] + residual[i * residual_ld + j]).
struct Epilogue {
  float alpha = 1;
  const float *bias = nullptr;
  int64_t bias_rs = 0, bias_cs = 0;
  float beta = 1;
  const float *residual = nullptr;
  int64_t residual_ld = 0;
  float act_alpha = 0, act_beta = 0;
};

/// The epilogue of one group's outputs of an NCHW convolution: its mg
/// channels' bias from bias + g * mg (null: none), the residual z's plane
/// at yoff (null: none), rows of npix pixels.
inline Epilogue conv_epilogue(const float *bias, const float *z, int64_t g, int64_t mg,
                              int64_t yoff, int64_t npix, float act_alpha, float act_beta) {
  Epilogue ep;
  ep.bias = bias ? bias + g * mg : nullptr;
  ep.bias_rs = 1;
  ep.residual = z ? z + yoff : nullptr;
  ep.residual_ld = npix;
  ep.act_alpha = act_alpha;
  ep.act_beta = act_beta;
  return ep;
}

/// Whether vector_activation<Act> exists: the activations applied to a
/// tile in registers (the others are applied to the stored tile).
template <typename Act>
constexpr bool kVectorActivation =
    std::is_same_v<Act, ref::Identity> || std::is_same_v<Act, ref::Relu> ||
    std::is_same_v<Act, ref::Clamp> || std::is_same_v<Act, ref::Sigmoid> ||
    std::is_same_v<Act, ref::Silu>;

/// Act on a vector, as the reference functor computes each lane (the same
/// comparisons, so NaN passes Relu and Clamp the same way); Sigmoid and
/// SiLU through the vector exp.
template <typename Act>
inline VecF vector_activation(VecF x, float alpha, float beta) {
  static_assert(kVectorActivation<Act>, "no vector form of this activation");
  if constexpr (std::is_same_v<Act, ref::Identity>) {
    return x;
  } else if constexpr (std::is_same_v<Act, ref::Relu>) { // x > 0 ? x : 0
    return VecF::max(x, VecF::zero());
  } else if constexpr (std::is_same_v<Act, ref::Clamp>) { // x < a ? a : x > b ? b : x
    return VecF::select_lt(x, VecF::broadcast(alpha), VecF::broadcast(alpha),
                           VecF::select_lt(VecF::broadcast(beta), x, VecF::broadcast(beta), x));
  } else {
    const VecF one = VecF::broadcast(1.0f);
    // Sigmoid 1 / (1 + e^-x), SiLU x / (1 + e^-x) (one division, no
    // multiply); e^-x is clamped, so this never divides inf by inf.
    const VecF d = VecF::add(one, exp(VecF::sub(VecF::zero(), x)));
    return VecF::div(std::is_same_v<Act, ref::Silu> ? x : one, d);
  }
}

/// y[i] = Act(y[i]) for n floats: a vector at a time where the activation
/// has a vector form, else the reference functor (which the compiler may
/// vectorise). Out of line, as apply_epilogue.
template <typename Act>
__attribute__((noinline)) void apply_activation(float *y, int64_t n, float alpha, float beta) {
  if constexpr (std::is_same_v<Act, ref::Identity>) {
    return;
  } else if constexpr (kVectorActivation<Act>) {
    const int64_t nv = n / kLanes * kLanes;
    for (int64_t i = 0; i < nv; i += kLanes)
      vector_activation<Act>(VecF::load(y + i), alpha, beta).store(y + i);
    for (int64_t i = nv; i < n; ++i)
      y[i] = Act::apply(y[i], alpha, beta);
  } else {
    for (int64_t i = 0; i < n; ++i)
      y[i] = Act::apply(y[i], alpha, beta);
  }
}

/// Applies the epilogue to an mr x nr block of C whose top-left element is
/// (i0, j0) of the whole product. Out of line: it runs on stored tiles
/// (edge tiles, activations without a vector form), and inlined into
/// every tile shape its loops, each vectorised with its remainders, made
/// most of the build of the kernels that use it (the convolution sweep at
/// x86-64-v4: 160 -> 120 s; HardSigmoid's share 67 -> 21 s).
template <typename Act>
__attribute__((noinline)) void apply_epilogue(float *c, int64_t ldc, int64_t mr, int64_t nr,
                                              const Epilogue &ep, int64_t i0, int64_t j0) {
  for (int64_t r = 0; r < mr; ++r) {
    float *row = c + r * ldc;
    const int64_t i = i0 + r;
    if (ep.alpha != 1.0f)
      for (int64_t j = 0; j < nr; ++j)
        row[j] *= ep.alpha;
    if (ep.bias) {
      const float *b = ep.bias + i * ep.bias_rs + j0 * ep.bias_cs;
      if (ep.bias_cs == 0) {
        const float bv = ep.beta * b[0];
        for (int64_t j = 0; j < nr; ++j)
          row[j] += bv;
      } else {
        for (int64_t j = 0; j < nr; ++j)
          row[j] += ep.beta * b[j * ep.bias_cs];
      }
    }
    if (ep.residual) {
      const float *z = ep.residual + i * ep.residual_ld + j0;
      for (int64_t j = 0; j < nr; ++j)
        row[j] += z[j];
    }
    apply_activation<Act>(row, nr, ep.act_alpha, ep.act_beta);
  }
}

/// Whether the epilogue can run on whole vectors in registers: the
/// activation has a vector form and the bias is constant along rows or
/// contiguous (conv and Gemm biases).
template <typename Act>
inline bool epilogue_in_registers(const Epilogue &ep) {
  return kVectorActivation<Act> && (!ep.bias || ep.bias_cs == 0 || ep.bias_cs == 1);
}

/// Whether a tile is stored as the product computed it: no epilogue (not the
/// last K block), or one that changes nothing.
template <typename Act>
inline bool stores_as_computed(const Epilogue *ep) {
  return !ep || (std::is_same_v<Act, ref::Identity> && ep->alpha == 1.0f && !ep->bias &&
                 !ep->residual);
}

/// The epilogue on one vector of row i from column j, the same operations
/// as apply_epilogue: `b` points at the bias of (i, j) (null: none), `z` at
/// the residual (null: none); only their first `lanes` are read.
template <typename Act>
inline VecF epilogue_vector(VecF v, const Epilogue &ep, const float *b, const float *z,
                            int64_t lanes = kLanes) {
  auto load = [lanes](const float *p) {
    return lanes == kLanes ? VecF::load(p) : VecF::load_first(p, lanes);
  };
  if (ep.alpha != 1.0f)
    v = VecF::mul(v, VecF::broadcast(ep.alpha));
  if (b)
    v = VecF::add(v, ep.bias_cs == 0 ? VecF::broadcast(ep.beta * b[0])
                                     : VecF::mul(VecF::broadcast(ep.beta), load(b)));
  if (z)
    v = VecF::add(v, load(z));
  return vector_activation<Act>(v, ep.act_alpha, ep.act_beta);
}

/// dst[j] = the epilogue applied to src[j], j < n, for the n elements of
/// row i from column j0 (a row of a product computed elsewhere).
template <typename Act>
inline void store_with_epilogue(const float *src, float *dst, int64_t n, const Epilogue &ep,
                                int64_t i, int64_t j0) {
  if constexpr (kVectorActivation<Act>) {
    if (epilogue_in_registers<Act>(ep)) {
      const float *b = ep.bias ? ep.bias + i * ep.bias_rs + j0 * ep.bias_cs : nullptr;
      const float *z = ep.residual ? ep.residual + i * ep.residual_ld + j0 : nullptr;
      for (int64_t j = 0; j < n; j += kLanes) {
        const int64_t lanes = min64(kLanes, n - j); // the last vector may be partial
        const VecF v = lanes == kLanes ? VecF::load(src + j) : VecF::load_first(src + j, lanes);
        const VecF y = epilogue_vector<Act>(v, ep, b ? b + j * ep.bias_cs : nullptr,
                                            z ? z + j : nullptr, lanes);
        if (lanes == kLanes)
          y.store(dst + j);
        else
          y.store_first(dst + j, lanes);
      }
      return;
    }
  }
  for (int64_t j = 0; j < n; ++j)
    dst[j] = src[j];
  apply_epilogue<Act>(dst, 0, 1, n, ep, i, j0);
}

} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_F32_EPILOGUE_H
