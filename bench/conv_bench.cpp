// Convolution micro-benchmark: runtime-lite's x86 conv2d on ResNet-18's
// 3x3/7x7 layer shapes (the direct convolution) and MobileNetV2's pointwise
// shapes (the GEMM), and depthwise_conv2d on MobileNetV2's and
// EfficientNet-B0's depthwise layers, each in the NCHW layout and in the
// channel-blocked one (blocked.h: conv2d_blocked, from a blocked input, or
// from the NCHW one where the input has at most 4 channels as a model's
// first layer; depthwise_conv2d_blocked), and every 3x3 stride-1 dense
// layer by Winograd F(4x4, 3x3) and F(2x2, 3x3) (winograd.h; GFLOP/s: the
// direct convolution's FLOPs over its time: winograd_plan.h's winograd_tile reads
// its thresholds from these rows); one thread, best of many calls, in
// GFLOP/s. An argument keeps the shapes whose name contains it. With
// --cold first, each dense layer's blocked direct convolution instead, as
// the median of many calls with its packed weights cached (one copy) and
// not (calls rotating over copies that fill 160 MB, as a model's layers
// of megabytes of weights find them). Build with the target's flags, e.g.
//   g++ -O3 -march=x86-64-v3 -std=c++17 -Iruntime-lite/include bench/conv_bench.cpp
#include "onnxc_rt/kernels/simd/f32/winograd.h"
#include "onnxc_rt/kernels/simd/f32/depthwise.h"
#include "onnxc_rt/kernels/simd/f32/conv.h"
#include "onnxc_rt/kernels/simd/f32/blocked_window.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace onnxc_rt;

struct Shape {
  const char *what;
  int64_t c, hw, m, k, stride, pad;
  bool depthwise = false;
};

// A shape's arrays as the kernels take them, and whether its input is
// blocked (more than 4 channels: a first layer's NCHW input otherwise).
struct Layer {
  explicit Layer(const Shape &q)
      : oh((q.hw + 2 * q.pad - q.k) / q.stride + 1), in{1, q.c, q.hw, q.hw},
        out{1, q.m, oh, oh}, kernel{q.k, q.k}, strides{q.stride, q.stride},
        pads{q.pad, q.pad}, in_blocked(q.c > 4) {}
  int64_t oh, in[4], out[4], kernel[2], strides[2], pads[2], dil[2] = {1, 1};
  bool in_blocked;
};

// One --cold row: conv2d_blocked's median GFLOP/s with one copy of the
// packed weights and with calls rotating over copies that fill 160 MB.
void cold_weights_row(const Shape &q) {
  const Layer g(q);
  const int64_t oh = g.oh;
  const int64_t *in = g.in, *out = g.out, *kernel = g.kernel, *strides = g.strides,
                *pads = g.pads, *dil = g.dil;
  const bool in_blocked = g.in_blocked;
  std::vector<float> w(q.m * q.c * q.k * q.k, 0.01f), bias(q.m, 0.1f), x(q.c * q.hw * q.hw, 0.5f),
      xb(simd::channel_blocks(q.c) * simd::kChannelBlock * q.hw * q.hw, 0.5f),
      yb(simd::channel_blocks(q.m) * simd::kChannelBlock * oh * oh),
      sb(simd::blocked_conv_scratch_floats(in, out, kernel, strides, pads, dil, in_blocked) + 1);
  const int64_t floats = simd::blocked_conv_weights_floats(q.m, q.c, q.k * q.k, in_blocked, false);
  const int64_t copies = std::max<int64_t>(2, 40000000 / floats);
  std::vector<std::vector<float>> wb(copies, std::vector<float>(floats));
  for (auto &b : wb)
    simd::pack_blocked_conv_weights(w.data(), q.m, q.c, q.k * q.k, in_blocked, false, b.data());
  const double flop = 2.0 * q.m * oh * oh * q.c * q.k * q.k;
  const int calls = std::max<int64_t>(31, std::min<int64_t>(401, 1000000000 / int64_t(flop)));
  auto median_gflops = [&](int64_t rotate) {
    std::vector<double> t;
    for (int r = 0; r < calls; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      simd::conv2d_blocked<ref::Relu>(in_blocked ? xb.data() : x.data(), wb[r % rotate].data(),
                                      bias.data(), nullptr, yb.data(), in, out, kernel, strides,
                                      pads, dil, in_blocked, 0, 0, sb.data());
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return flop / t[t.size() / 2] / 1e9;
  };
  const double cached = median_gflops(1), not_cached = median_gflops(copies);
  std::printf("| %s | %.1f | %.1f | %.1f |\n", q.what, floats * 4e-6, cached, not_cached);
}

int main(int argc, char **argv) {
  // An argument keeps only the shapes whose name contains it.
  const bool cold = argc > 1 && !std::strcmp(argv[1], "--cold");
  const char *only = argc > 1 + cold ? argv[1 + cold] : nullptr;
  const Shape shapes[] = {
      {"resnet18 layer1 3x3", 64, 56, 64, 3, 1, 1},
      {"resnet18 layer2 3x3", 128, 28, 128, 3, 1, 1},
      {"resnet18 layer3 3x3", 256, 14, 256, 3, 1, 1},
      {"resnet18 layer4 3x3", 512, 7, 512, 3, 1, 1},
      {"resnet18 3x3 stride 2", 64, 56, 128, 3, 2, 1},
      {"vgg 3x3 256->256 @28", 256, 28, 256, 3, 1, 1},
      {"vgg 3x3 512->512 @14", 512, 14, 512, 3, 1, 1},
      {"3x3 384->384 @14", 384, 14, 384, 3, 1, 1},
      {"3x3 256->256 @10", 256, 10, 256, 3, 1, 1},
      {"3x3 128->128 @14", 128, 14, 128, 3, 1, 1},
      {"resnet18 stem 7x7 stride 2", 3, 224, 64, 7, 2, 3},
      {"mobilenet_v2 1x1 32->16", 32, 112, 16, 1, 1, 0},
      {"mobilenet_v2 1x1 16->96", 16, 112, 96, 1, 1, 0},
      {"mobilenet_v2 1x1 24->144", 24, 56, 144, 1, 1, 0},
      {"mobilenet_v2 1x1 144->24", 144, 56, 24, 1, 1, 0},
      {"mobilenet_v2 1x1 96->576", 96, 14, 576, 1, 1, 0},
      {"mobilenet_v2 1x1 320->1280", 320, 7, 1280, 1, 1, 0},
      {"resnet18 1x1 stride 2 256->512", 256, 14, 512, 1, 2, 0},
      {"cifar_cnn 3x3 32->64 @16", 32, 16, 64, 3, 1, 1},
      {"cifar_cnn 3x3 64->128 @8", 64, 8, 128, 3, 1, 1},
      {"cifar_cnn 3x3 3->32 @32", 3, 32, 32, 3, 1, 1},
      {"mobilenet_v2 stem 3x3 stride 2", 3, 224, 32, 3, 2, 1},
      {"mobilenet_v2 1x1 32->192 @28", 32, 28, 192, 1, 1, 0},
      {"mobilenet_v2 1x1 192->32 @28", 192, 28, 32, 1, 1, 0},
      {"mobilenet_v2 1x1 64->384 @14", 64, 14, 384, 1, 1, 0},
      {"mobilenet_v2 1x1 384->64 @14", 384, 14, 64, 1, 1, 0},
      {"mobilenet_v2 1x1 576->96 @14", 576, 14, 96, 1, 1, 0},
      {"mobilenet_v2 1x1 160->960 @7", 160, 7, 960, 1, 1, 0},
      {"mobilenet_v2 1x1 960->160 @7", 960, 7, 160, 1, 1, 0},
      {"shufflenet_v2 conv5 1x1 464->1024 @7", 464, 7, 1024, 1, 1, 0},
      {"squeezenet 1x1 512->64 @13", 512, 13, 64, 1, 1, 0},
      {"squeezenet 1x1 64->256 @13", 64, 13, 256, 1, 1, 0},
      {"squeezenet 3x3 64->256 @13", 64, 13, 256, 3, 1, 1},
      {"squeezenet 3x3 32->128 @27", 32, 27, 128, 3, 1, 1},
      {"squeezenet 1x1 128->32 @55", 128, 55, 16, 1, 1, 0},
      {"squeezenet classifier 1x1 512->1000 @13", 512, 13, 1000, 1, 1, 0},
      {"squeezenet stem 3x3 stride 2 3->64", 3, 224, 64, 3, 2, 0},
      {"mobilenet_v2 dw 3x3 32 @112", 32, 112, 32, 3, 1, 1, true},
      {"mobilenet_v2 dw 3x3 144 @56", 144, 56, 144, 3, 1, 1, true},
      {"mobilenet_v2 dw 3x3 96 @112 stride 2", 96, 112, 96, 3, 2, 1, true},
      {"mobilenet_v2 dw 3x3 192 @28", 192, 28, 192, 3, 1, 1, true},
      {"mobilenet_v2 dw 3x3 384 @14", 384, 14, 384, 3, 1, 1, true},
      {"mobilenet_v2 dw 3x3 960 @7", 960, 7, 960, 3, 1, 1, true},
      {"mobilenet_v2 dw 3x3 576 @14 stride 2", 576, 14, 576, 3, 2, 1, true},
      {"efficientnet dw 5x5 240 @28", 240, 28, 240, 5, 1, 2, true},
      {"efficientnet dw 5x5 672 @14 stride 2", 672, 28, 672, 5, 2, 2, true},
      {"efficientnet dw 5x5 672 @14", 672, 14, 672, 5, 1, 2, true},
      {"efficientnet dw 3x3 480 @14", 480, 14, 480, 3, 1, 1, true},
      {"efficientnet dw 5x5 1152 @7", 1152, 7, 1152, 5, 1, 2, true},
      {"efficientnet dw 3x3 1152 @7", 1152, 7, 1152, 3, 1, 1, true},
      {"efficientnet dw 3x3 240 @28 stride 2", 240, 28, 240, 3, 2, 1, true},
      {"efficientnet dw 5x5 672 @14 -> 7 stride 2", 672, 14, 672, 5, 2, 2, true},
  };
  if (cold) {
    std::printf("| shape | weights MB | blocked GFLOP/s, weights cached | not cached |\n"
                "|---|---|---|---|\n");
    for (const Shape &q : shapes)
      if (!q.depthwise && (!only || std::strstr(q.what, only)))
        cold_weights_row(q);
    return 0;
  }
  std::printf("| shape | NCHW ms | GFLOP/s | blocked ms | GFLOP/s | Winograd F4 ms | GFLOP/s "
              "(direct-equivalent) | Winograd F2 ms | GFLOP/s (direct-equivalent) |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  for (const Shape &q : shapes) {
    if (only && !std::strstr(q.what, only))
      continue;
    const Layer g(q);
    const int64_t oh = g.oh;
    const int64_t *in = g.in, *out = g.out, *kernel = g.kernel, *strides = g.strides,
                  *pads = g.pads, *dil = g.dil;
    const int64_t kdim = (q.depthwise ? 1 : q.c) * q.k * q.k;
    std::vector<float> x(q.c * q.hw * q.hw, 0.5f), w(q.m * kdim, 0.01f), y(q.m * oh * oh),
        bias(q.m, 0.1f),
        packed(simd::conv_packed_weights_floats(in, out, kernel, strides, pads, dil, 1)),
        scratch(q.depthwise ? simd::depthwise_scratch_floats(q.c, q.m, oh, oh, q.k, q.k, q.stride, q.stride, 1, 1)
                            : simd::conv2d_scratch_floats(in, out, kernel, strides, pads, dil, 1));
    if (!q.depthwise) // as the compiler does
      simd::pack_conv_weights(w.data(), in, out, kernel, strides, pads, dil, 1, packed.data());
    const int calls = std::max<int64_t>(5, 2000000000 / (2 * q.m * oh * oh * kdim));
    auto best_of = [&](auto &&run) {
      double best = 1e30;
      for (int r = 0; r < calls; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        run();
        auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
      }
      return best;
    };
    const double nchw = best_of([&] {
      if (q.depthwise)
        simd::depthwise_conv2d<ref::Relu>(x.data(), w.data(), bias.data(), nullptr, y.data(), in,
                                         out, kernel, strides, pads, dil, 0, 0, scratch.data());
      else
        simd::conv2d<ref::Relu>(x.data(), w.data(), packed.data(), bias.data(), nullptr, y.data(),
                               in, out, kernel, strides, pads, dil, 1, 0, 0, scratch.data());
    });
    const bool in_blocked = g.in_blocked;
    std::vector<float> xb(simd::channel_blocks(q.c) * simd::kChannelBlock * q.hw * q.hw, 0.5f),
        yb(simd::channel_blocks(q.m) * simd::kChannelBlock * oh * oh),
        wb(simd::blocked_conv_weights_floats(q.m, q.c, q.k * q.k, in_blocked, q.depthwise)),
        sb(simd::blocked_conv_scratch_floats(in, out, kernel, strides, pads, dil, in_blocked) + 1);
    simd::pack_blocked_conv_weights(w.data(), q.m, q.c, q.k * q.k, in_blocked, q.depthwise,
                                   wb.data());
    const double blocked = best_of([&] {
      if (q.depthwise)
        simd::depthwise_conv2d_blocked<ref::Relu>(xb.data(), wb.data(), bias.data(), nullptr,
                                                 yb.data(), in, out, kernel, strides, pads, dil,
                                                 0, 0);
      else
        simd::conv2d_blocked<ref::Relu>(in_blocked ? xb.data() : x.data(), wb.data(), bias.data(),
                                       nullptr, yb.data(), in, out, kernel, strides, pads, dil,
                                       in_blocked, 0, 0, sb.data());
    });
    const double flop = 2.0 * q.m * oh * oh * kdim;
    std::printf("| %s | %.3f | %.1f | %.3f | %.1f |", q.what, nchw * 1e3, flop / nchw / 1e9,
                blocked * 1e3, flop / blocked / 1e9);
    // Winograd F(4x4, 3x3) and F(2x2, 3x3) on every 3x3 stride-1 dense
    // layer (whether the compiler picks one is winograd_applies' decision).
    const bool wino_shape = !q.depthwise && q.k == 3 && q.stride == 1 && in_blocked;
    for (int64_t tile : {int64_t{4}, int64_t{2}}) {
      if (!wino_shape) {
        std::printf(" | |");
        continue;
      }
      std::vector<float> wu(simd::winograd_weights_floats(q.m, q.c, tile)), work(q.m * q.c),
          sw(simd::winograd_scratch_floats(in, out, tile));
      simd::pack_winograd_weights(w.data(), q.m, q.c, work.data(), wu.data(), tile);
      const double wino = best_of([&] {
        simd::winograd_conv2d_blocked_tile<ref::Relu>(tile, xb.data(), wu.data(), bias.data(),
                                                      nullptr, yb.data(), in, out, pads, 0.f, 0.f,
                                                      sw.data());
      });
      std::printf(" %.3f | %.1f |", wino * 1e3, flop / wino / 1e9);
    }
    std::printf("\n");
  }
  return 0;
}
