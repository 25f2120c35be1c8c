// Times one model compiled by `onnxc --target cuda` on the GPU (built by
// run_on_gpu.sh with the model's NAME.cu): NAME_run with device buffers, so
// a run is two device-to-device copies, the schedule's CUDA Graph replayed
// and a wait. Prints {"median_us", "p99_us", "runs"} as one JSON line and
// writes the output (raw float32) for the parity check. The input is the
// formula of gpu_models.py, so PyTorch sees the same values.
//   bench RUNS OUTPUT_FILE
#include "model.h"

#if !defined(ONNXC_CUDA_EMULATED) // (a check on the CPU: test/kernels/cuda_emulation.h)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
  const size_t n_in = model::Input0::size, n_out = model::Output0::size;
  std::vector<float> x(n_in), y(n_out);
  for (size_t i = 0; i < n_in; ++i) {
    const uint64_t v = (uint64_t(i) * 2654435761ull + 7ull * 40503ull) % 4294967296ull;
    x[i] = float((double(v) / 4294967296.0 - 0.5) * 2.0);
  }
  static model_session session;
  if (int rc = model_create(&session, 0)) {
    std::fprintf(stderr, "model_create: %d %s\n", rc, model_error(&session));
    return 1;
  }
  float *dx = nullptr, *dy = nullptr;
  if (cudaMalloc(&dx, n_in * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&dy, n_out * sizeof(float)) != cudaSuccess ||
      cudaMemcpy(dx, x.data(), n_in * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
    std::fprintf(stderr, "cannot set up the device buffers\n");
    return 1;
  }
  for (int i = 0; i < 20; ++i)
    if (int rc = model_run(&session, dx, dy)) {
      std::fprintf(stderr, "model_run: %d %s\n", rc, model_error(&session));
      return 1;
    }
  std::vector<double> us;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    model_run(&session, dx, dy);
    auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  cudaMemcpy(y.data(), dy, n_out * sizeof(float), cudaMemcpyDeviceToHost);
  if (argc > 2) {
    std::FILE *f = std::fopen(argv[2], "wb");
    if (!f || std::fwrite(y.data(), sizeof(float), n_out, f) != n_out) {
      std::fprintf(stderr, "cannot write %s\n", argv[2]);
      return 1;
    }
    std::fclose(f);
  }
  std::printf("{\"median_us\": %.2f, \"p99_us\": %.2f, \"runs\": %d}\n", us[us.size() / 2],
              us[std::min(us.size() - 1, us.size() * 99 / 100)], runs);
  model_destroy(&session);
  return 0;
}
