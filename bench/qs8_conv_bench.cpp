// int8 convolution micro-benchmark: runtime-lite's qs8 conv2d on
// MobileNetV2's pointwise shapes and depthwise_conv2d on its and
// EfficientNet-B0's depthwise ones, weights packed and zero point folded as
// the compiler does (qs8/pack.h), per-channel multipliers; one thread (or
// `--threads N`: N tasks on a ThreadPool of N, as --threads N compiles),
// best of 300 calls, in microseconds, and the sum per kind. Numbers only:
// the kernels' exactness is test/kernels/simd_qs8_test.cpp's. An argument
// keeps the shapes whose name contains it. Build with the target's flags
// (`onnxc --print-target-flags --target T`), e.g. for x86-64-vnni
//   c++ -O3 -march=x86-64-v4 -mavx512vnni -std=c++17 -pthread
//       -Iruntime-lite/include bench/qs8_conv_bench.cpp -o qs8_conv_bench
#include "onnxc_rt/kernels/reference/qs8.h"
#include "onnxc_rt/kernels/simd/qs8/conv2d.h"
#include "onnxc_rt/kernels/simd/qs8/depthwise.h"
#include "onnxc_rt/threads.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

using namespace onnxc_rt;
namespace pk = simd::qs8;

namespace {

struct Shape {
  const char *what;
  int64_t c, hw, m, k, stride;
  bool depthwise = false;
};

/// A 64-byte aligned buffer, as a model's arena places its tensors
/// (passes/MemoryPlanning.cpp). A vector's is 16-byte aligned (a large
/// one's 16 bytes past a page), so at two threads the cache line where two
/// tasks' shares of each output plane meet was written by both cores: the
/// ResNet-18 stem ran about 10% slower than a model's (Zen 5).
template <typename T> class Aligned {
public:
  explicit Aligned(size_t n)
      : p_(static_cast<T *>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64))) {}
  ~Aligned() { std::free(p_); }
  Aligned(const Aligned &) = delete;
  Aligned &operator=(const Aligned &) = delete;
  T *data() { return p_; }

private:
  T *p_;
};

template <typename F> double best_us(F &&call) {
  double best = 1e30;
  for (int rep = 0; rep < 300; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  int64_t tasks = 1;
  if (argc > 2 && std::strcmp(argv[1], "--threads") == 0) {
    tasks = std::atoi(argv[2]);
    argc -= 2;
    argv += 2;
  }
  ThreadPool pool{static_cast<int>(tasks)};
  TaskRunner *runner = tasks > 1 ? &pool : nullptr;
  const char *only = argc > 1 ? argv[1] : nullptr;
  const Shape shapes[] = {
      {"mobilenet_v2 1x1 32->16 @112", 32, 112, 16, 1, 1},
      {"mobilenet_v2 1x1 16->96 @112", 16, 112, 96, 1, 1},
      {"mobilenet_v2 1x1 96->24 @56", 96, 56, 24, 1, 1},
      {"mobilenet_v2 1x1 24->144 @56", 24, 56, 144, 1, 1},
      {"mobilenet_v2 1x1 144->32 @28", 144, 28, 32, 1, 1},
      {"mobilenet_v2 1x1 32->192 @28", 32, 28, 192, 1, 1},
      {"mobilenet_v2 1x1 192->32 @28", 192, 28, 32, 1, 1},
      {"mobilenet_v2 1x1 64->384 @14", 64, 14, 384, 1, 1},
      {"mobilenet_v2 1x1 192->64 @14", 192, 14, 64, 1, 1},
      {"mobilenet_v2 1x1 384->96 @14", 384, 14, 96, 1, 1},
      {"mobilenet_v2 1x1 96->576 @14", 96, 14, 576, 1, 1},
      {"mobilenet_v2 1x1 576->96 @14", 576, 14, 96, 1, 1},
      {"mobilenet_v2 1x1 160->960 @7", 160, 7, 960, 1, 1},
      {"mobilenet_v2 1x1 960->320 @7", 960, 7, 320, 1, 1},
      {"mobilenet_v2 3x3 3->32 @224 stride 2", 3, 224, 32, 3, 2},
      {"shufflenet_v2 3x3 3->24 @224 stride 2", 3, 224, 24, 3, 2},
      {"resnet18 7x7 3->64 @224 stride 2", 3, 224, 64, 7, 2},
      {"resnet18 3x3 64->64 @56", 64, 56, 64, 3, 1},
      {"resnet18 3x3 128->128 @28", 128, 28, 128, 3, 1},
      {"resnet18 3x3 256->256 @14", 256, 14, 256, 3, 1},
      {"resnet18 3x3 512->512 @7", 512, 7, 512, 3, 1},
      {"resnet18 3x3 64->128 @56 stride 2", 64, 56, 128, 3, 2},
      {"resnet18 3x3 128->256 @28 stride 2", 128, 28, 256, 3, 2},
      {"resnet18 3x3 256->512 @14 stride 2", 256, 14, 512, 3, 2},
      {"resnet18 1x1 64->128 @56 stride 2", 64, 56, 128, 1, 2},
      {"resnet18 1x1 128->256 @28 stride 2", 128, 28, 256, 1, 2},
      {"resnet18 1x1 256->512 @14 stride 2", 256, 14, 512, 1, 2},
      {"squeezenet1_1 3x3 16->64 @55", 16, 55, 64, 3, 1},
      {"squeezenet1_1 3x3 32->128 @27", 32, 27, 128, 3, 1},
      {"squeezenet1_1 3x3 48->192 @13", 48, 13, 192, 3, 1},
      {"squeezenet1_1 3x3 64->256 @13", 64, 13, 256, 3, 1},
      {"squeezenet1_1 1x1 512->1000 @13", 512, 13, 1000, 1, 1},
      {"cifar_cnn 3x3 32->32 @32", 32, 32, 32, 3, 1},
      {"3x3 16->16 @28", 16, 28, 16, 3, 1},
      {"3x3 16->16 @14", 16, 14, 16, 3, 1},
      {"3x3 16->16 @13", 16, 13, 16, 3, 1},
      {"3x3 32->32 @13", 32, 13, 32, 3, 1},
      {"3x3 32->16 @7", 32, 7, 16, 3, 1},
      {"mobilenet_v2 dw 3x3 96 @112 stride 2", 96, 112, 96, 3, 2, true},
      {"mobilenet_v2 dw 3x3 144 @56", 144, 56, 144, 3, 1, true},
      {"mobilenet_v2 dw 3x3 192 @28", 192, 28, 192, 3, 1, true},
      {"mobilenet_v2 dw 3x3 384 @14", 384, 14, 384, 3, 1, true},
      {"mobilenet_v2 dw 3x3 576 @14", 576, 14, 576, 3, 1, true},
      {"mobilenet_v2 dw 3x3 960 @7", 960, 7, 960, 3, 1, true},
      {"efficientnet dw 5x5 240 @28", 240, 28, 240, 5, 1, true},
      {"efficientnet dw 5x5 1152 @7", 1152, 7, 1152, 5, 1, true},
      {"efficientnet dw 3x3 1152 @7", 1152, 7, 1152, 3, 1, true},
      {"efficientnet dw 5x5 672 @28 stride 2", 672, 28, 672, 5, 2, true},
  };
  std::mt19937 rng(1);
  const int32_t x_zp = 3, y_zp = -5;
  double total[2] = {0, 0};
  std::printf("| shape | us | GMAC/s |\n|---|---|---|\n");
  for (const Shape &q : shapes) {
    if (only && !std::strstr(q.what, only))
      continue;
    const int64_t pad = q.k / 2, oh = (q.hw + 2 * pad - q.k) / q.stride + 1;
    const int64_t depth = (q.depthwise ? 1 : q.c) * q.k * q.k;
    const int64_t in[4] = {1, q.c, q.hw, q.hw}, out[4] = {1, q.m, oh, oh}, kernel[2] = {q.k, q.k},
                  strides[2] = {q.stride, q.stride}, pads[2] = {pad, pad}, dil[2] = {1, 1};
    std::vector<int8_t> x(q.c * q.hw * q.hw), w(q.m * depth);
    Aligned<int8_t> y(size_t(q.m * oh * oh));
    for (int8_t &v : x)
      v = int8_t(rng());
    for (int8_t &v : w)
      v = int8_t(int(rng() % 255) - 127);
    std::vector<int32_t> bias(q.m), mult(q.m), shift(q.m), folded(q.m);
    for (int64_t i = 0; i < q.m; ++i) {
      const auto m = ref::qs8::quantize_multiplier(0.002 * (1 + double(rng() % 100) / 100));
      mult[i] = m.multiplier;
      shift[i] = m.shift;
      bias[i] = int32_t(rng() % 2000);
    }
    double us;
    if (q.depthwise) {
      constexpr bool Q = pk::kQuadDepthwise, W = simd::VecI::kByteWindows;
      const int32_t u_zp = Q ? pk::packed_zero_point(x_zp + pk::flip_of<int8_t>(), pk::kShiftedBytes)
                             : x_zp;
      pk::fold_zero_point(w.data(), bias.data(), q.m, depth, depth, 1, u_zp, folded.data());
      Aligned<uint8_t> scratch(
          pk::depthwise_scratch_bytes(in, out, kernel, strides, pads, dil, Q, W, tasks));
      us = best_us([&] {
        pk::depthwise_conv2d<int8_t, Q, W>(x.data(), w.data(), folded.data(), y.data(), in, out,
                                           kernel, strides, pads, dil, x_zp, mult.data(),
                                           shift.data(), q.m, y_zp, -128, 127, scratch.data(),
                                           runner, tasks);
      });
    } else {
      auto dense = [&](auto depth_group) {
      constexpr int G = decltype(depth_group)::value;
      constexpr bool S = pk::kShiftedBytes;
      const pk::ConvForm form = pk::conv2d_form(G, q.c, q.m, q.k, q.k, q.stride, q.stride, oh,
                                                oh, pad, pad, 1, 1);
      std::vector<int8_t> packed(pk::conv_packed_bytes(q.m, 1, depth, G, form));
      pk::pack_conv_weights(w.data(), q.m, 1, depth, G, packed.data(),
                            pk::conv_weight_taps(G, q.c, q.k, q.k, q.stride, q.stride, form),
                            form);
      pk::fold_zero_point(w.data(), bias.data(), q.m, depth, depth, 1,
                          pk::packed_zero_point(x_zp + pk::flip_of<int8_t>(), S), folded.data());
      const pk::PaddedPlane pp =
          pk::conv_plane(form, oh, oh, q.k, q.k, q.stride, q.stride, 1, 1);
      const bool reads_input = pk::conv_reads_input(q.k, q.k, q.stride, q.stride, pad, pad, q.hw,
                                                    q.hw, oh, oh);
      Aligned<uint8_t> scratch(
          pk::conv_scratch_bytes(depth, oh, oh, q.stride, q.c, pp, reads_input, G, tasks,
                                 form));
      const bool narrow = pk::weights_are_narrow(w.data(), int64_t(w.size()));
      us = best_us([&] {
        pk::conv2d<int8_t, G, S>(x.data(), packed.data(), folded.data(), y.data(), in, out, kernel,
                                 strides, pads, dil, 1, x_zp, mult.data(), shift.data(), q.m, y_zp,
                                 -128, 127, narrow, scratch.data(), runner, tasks);
      });
      };
      pk::with_conv_depth_group(depth, dense);
    }
    total[q.depthwise] += us;
    std::printf("| %s | %.1f | %.0f |\n", q.what, us, double(q.m * oh * oh * depth) / us / 1e3);
  }
  std::printf("| dense, sum | %.1f | |\n| depthwise, sum | %.1f | |\n", total[0], total[1]);
}
