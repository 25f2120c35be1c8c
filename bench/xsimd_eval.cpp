// xsimd against runtime-lite's own vector layer (simd/vec.h) on the
// element-wise and epilogue code of the SIMD kernels: the same loops written
// once over onnxc_rt::simd::VecF and once over xsimd::batch<float> (xsimd 8,
// Debian's libxsimd-dev), compiled with the same flags. bench/xsimd_eval.py
// builds it for x86 (timed) and aarch64 (instructions counted under
// qemu-aarch64) and writes results/xsimd.md.
//
//   xsimd_eval KERNEL IMPL REPS   KERNEL: epilogue | exp | layernorm
//                                 IMPL: vec | xsimd; prints ns per call and a
//                                 checksum of the output
#include <xsimd/xsimd.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "onnxc_rt/kernels/simd/f32/norm.h"
#include "onnxc_rt/kernels/simd/vec.h"

namespace {

using onnxc_rt::simd::VecF;
using XB = xsimd::batch<float>;
constexpr int64_t kN = 4096; // one row / one tile's outputs: L1-resident

// The convolution epilogue of blocked.h: bias per channel block of 16,
// then a clamp (Relu6 / Clip), stored.
__attribute__((noinline)) void epilogue_vec(const float *acc, const float *bias, float *y,
                                            float lo, float hi) {
  const VecF vlo = VecF::broadcast(lo), vhi = VecF::broadcast(hi);
  for (int64_t i = 0; i < kN; i += VecF::kLanes) {
    const VecF v = VecF::add(VecF::load(acc + i), VecF::load(bias + i % 16));
    VecF::min(VecF::max(v, vlo), vhi).store(y + i);
  }
}
__attribute__((noinline)) void epilogue_xsimd(const float *acc, const float *bias, float *y,
                                              float lo, float hi) {
  const XB vlo(lo), vhi(hi);
  for (int64_t i = 0; i < kN; i += XB::size) {
    const XB v = XB::load_unaligned(acc + i) + XB::load_unaligned(bias + i % 16);
    xsimd::min(xsimd::max(v, vlo), vhi).store_unaligned(y + i);
  }
}

// Softmax's exponential pass: e = exp(x - max) stored, and their sum.
__attribute__((noinline)) float exp_vec(const float *x, float *y, float mx) {
  const VecF vmx = VecF::broadcast(mx);
  VecF acc = VecF::zero();
  for (int64_t i = 0; i < kN; i += VecF::kLanes) {
    const VecF e = onnxc_rt::simd::exp(VecF::sub(VecF::load(x + i), vmx));
    acc = VecF::add(acc, e);
    e.store(y + i);
  }
  return onnxc_rt::simd::reduce_add(acc);
}
__attribute__((noinline)) float exp_xsimd(const float *x, float *y, float mx) {
  const XB vmx(mx);
  XB acc(0.0f);
  for (int64_t i = 0; i < kN; i += XB::size) {
    const XB e = xsimd::exp(XB::load_unaligned(x + i) - vmx);
    acc += e;
    e.store_unaligned(y + i);
  }
  return xsimd::hadd(acc);
}

// Layer normalisation of one row: norm.h's kernel against the same two
// passes (mean, then squared deviations) written in xsimd.
__attribute__((noinline)) void layernorm_vec(const float *x, const float *s, const float *b,
                                             float *y) {
  onnxc_rt::simd::layer_norm(x, s, b, y, nullptr, nullptr, 1, kN, 1e-5f);
}
__attribute__((noinline)) void layernorm_xsimd(const float *x, const float *s, const float *b,
                                               float *y) {
  constexpr int64_t L = XB::size;
  XB s0(0.0f), s1(0.0f);
  for (int64_t i = 0; i < kN; i += 2 * L) {
    s0 += XB::load_unaligned(x + i);
    s1 += XB::load_unaligned(x + i + L);
  }
  const float mean = xsimd::hadd(s0 + s1) / float(kN);
  const XB vmean(mean);
  s0 = s1 = XB(0.0f);
  for (int64_t i = 0; i < kN; i += 2 * L) {
    const XB d0 = XB::load_unaligned(x + i) - vmean, d1 = XB::load_unaligned(x + i + L) - vmean;
    s0 = xsimd::fma(d0, d0, s0);
    s1 = xsimd::fma(d1, d1, s1);
  }
  const XB inv(1.0f / sqrtf(xsimd::hadd(s0 + s1) / float(kN) + 1e-5f));
  for (int64_t i = 0; i < kN; i += L)
    ((XB::load_unaligned(x + i) - vmean) * inv * XB::load_unaligned(s + i) +
     XB::load_unaligned(b + i))
        .store_unaligned(y + i);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: xsimd_eval epilogue|exp|layernorm vec|xsimd REPS\n");
    return 2;
  }
  const std::string kernel = argv[1];
  const bool useXsimd = std::strcmp(argv[2], "xsimd") == 0;
  const long reps = std::atol(argv[3]);
  std::vector<float> x(kN), s(kN), b(kN), y(kN);
  unsigned seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return float(seed >> 8) / float(1 << 24) * 8.0f - 4.0f;
  };
  for (int64_t i = 0; i < kN; ++i)
    x[i] = next(), s[i] = next(), b[i] = next();
  double check = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long r = 0; r < reps; ++r) {
    if (kernel == "epilogue")
      useXsimd ? epilogue_xsimd(x.data(), b.data(), y.data(), 0.0f, 6.0f)
               : epilogue_vec(x.data(), b.data(), y.data(), 0.0f, 6.0f);
    else if (kernel == "exp")
      check += useXsimd ? exp_xsimd(x.data(), y.data(), 4.0f) : exp_vec(x.data(), y.data(), 4.0f);
    else
      useXsimd ? layernorm_xsimd(x.data(), s.data(), b.data(), y.data())
               : layernorm_vec(x.data(), s.data(), b.data(), y.data());
    x[r % kN] += 1e-7f; // a new input each time: nothing is hoisted out
  }
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  for (float v : y)
    check += v;
  std::printf("%.1f ns/call checksum %.6g\n", reps ? ns / double(reps) : 0.0, check);
  return 0;
}
