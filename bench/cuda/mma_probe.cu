// One warp's mma.sync on the GPU through kernels/cuda/mma.cuh, with the
// operands loaded in the 32-bit word layout gemm.cuh's tiled_gemm_mma
// assumes (mma.cuh's header), against the product on the host: where a
// model's tensor-core build disagrees with the host, this says whether the
// fragment layout or the rounding is to blame. run_on_gpu.sh builds and
// runs it first; prints one line per arithmetic, exit 1 on a mismatch.
//   nvcc -std=c++17 -arch=sm_90 -I../../runtime-lite/include mma_probe.cu -o mma_probe
#include "onnxc_rt/kernels/cuda/mma.cuh"
#include "onnxc_rt/types.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace onnxc_rt::cuda;

/// A (16 x 8 words) row-major and B (8 words x 8) by columns, in words;
/// D (16 x 8) row-major.
template <typename Math>
__global__ void probe(const uint32_t *a, const uint32_t *b, float *d) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  const uint32_t fa[4] = {a[g * 8 + t], a[(g + 8) * 8 + t], a[g * 8 + t + 4],
                          a[(g + 8) * 8 + t + 4]};
  const uint32_t fb[2] = {b[g * 8 + t], b[g * 8 + t + 4]};
  float acc[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  detail::Mma<Math>::mma(acc, fa, fb);
  for (int v = 0; v < 4; ++v)
    d[(g + v / 2 * 8) * 8 + 2 * t + v % 2] = acc[v];
}

/// Element k of a row of 8 words: a TF32 word, or one half of a word.
float value(bool tf32, bool bf16, const uint32_t *row, int k) {
  if (tf32) {
    float f;
    std::memcpy(&f, &row[k], 4);
    return f;
  }
  const uint16_t h = uint16_t(k % 2 ? row[k / 2] >> 16 : row[k / 2] & 0xffffu);
  return bf16 ? onnxc_rt::detail::float_from_bits(uint32_t(h) << 16)
              : onnxc_rt::detail::half_to_float(h);
}

/// Operand word i: small integers (exact in every format) from two
/// (multiplier, modulus) patterns, one per 16-bit half (TF32: the first).
uint32_t operand(bool tf32, bool bf16, int i, const int (&lo)[2], const int (&hi)[2]) {
  const int x = (i * lo[0]) % lo[1] - lo[1] / 2, y = (i * hi[0]) % hi[1] - hi[1] / 2;
  if (tf32)
    return onnxc_rt::detail::float_bits(float(x));
  auto bits = [&](int v) {
    return uint32_t(bf16 ? onnxc_rt::bfloat16(v).bits : onnxc_rt::float16(v).bits);
  };
  return bits(x) | bits(y) << 16;
}

template <typename Math> bool run(const char *name, bool tf32, bool bf16) {
  uint32_t a[16 * 8], b[8 * 8];
  for (int i = 0; i < 16 * 8; ++i)
    a[i] = operand(tf32, bf16, i, {7, 11}, {5, 13});
  for (int i = 0; i < 8 * 8; ++i)
    b[i] = operand(tf32, bf16, i, {3, 7}, {11, 5});
  const int depth = tf32 ? 8 : 16;
  float want[16 * 8], got[16 * 8];
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      float s = 0.5f;
      for (int k = 0; k < depth; ++k)
        s += value(tf32, bf16, a + m * 8, k) * value(tf32, bf16, b + n * 8, k);
      want[m * 8 + n] = s;
    }
  uint32_t *da, *db;
  float *dd;
  cudaMalloc(&da, sizeof a);
  cudaMalloc(&db, sizeof b);
  cudaMalloc(&dd, sizeof got);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  probe<Math><<<1, 32>>>(da, db, dd);
  const cudaError_t e = cudaMemcpy(got, dd, sizeof got, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < 16 * 8; ++i)
    wrong += got[i] != want[i];
  std::printf("mma %s: %s, %d of 128 sums differ (D[0][0..3] %g %g %g %g, want %g %g %g %g)\n",
              name, cudaGetErrorString(e), wrong, got[0], got[1], got[2], got[3], want[0],
              want[1], want[2], want[3]);
  return e == cudaSuccess && wrong == 0;
}

int main() {
  const bool ok = run<Tf32>("tf32", true, false) & run<Fp16>("fp16", false, false) &
                  run<Bf16>("bf16", false, true);
  return ok ? 0 : 1;
}
