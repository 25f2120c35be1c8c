#!/usr/bin/python3
"""Runs a model's generated CUDA code whole on the CPU and compares its
outputs with PyTorch's (the e2e bar, 1e-4 relative).

    check_cuda_emulated.py --onnxc ONNXC --model-dir DIR [--cxx c++]

`onnxc --target cuda` writes NAME.cu; the host compiler builds it against
test/kernels/cuda_emulation.h (CUDA's threads, barriers, warp shuffles and
the runtime calls of the session, on the CPU) with a small program that
creates a session, runs the model through NAME_run_v (the CUDA Graph path:
the schedule is captured at create and replayed) and writes the outputs.
This checks the schedule, its arguments, arena offsets and weights and the
kernels together without a GPU; what needs one (timing, the GPU's memory
model, the real runtime) is cuda.run.*.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from onnx_tensors import load_tensor  # noqa: E402

MAIN = r"""
#include "model.h"
#include <cstdio>
#include <cstdlib>
#include <vector>
// argv: n_in, then path and bytes of each input, then of each output.
static bool io(const char *path, std::vector<unsigned char> &data, bool write) {
  std::FILE *f = std::fopen(path, write ? "wb" : "rb");
  if (!f) return false;
  size_t done = write ? std::fwrite(data.data(), 1, data.size(), f)
                      : std::fread(data.data(), 1, data.size(), f);
  return std::fclose(f) == 0 && done == data.size();
}
int main(int argc, char **argv) {
  int n_in = std::atoi(argv[1]), n_all = (argc - 2) / 2;
  std::vector<std::vector<unsigned char>> bufs(n_all);
  std::vector<const void *> in;
  std::vector<void *> out;
  for (int i = 0; i < n_all; ++i) {
    bufs[i].resize(std::strtoull(argv[3 + 2 * i], nullptr, 10));
    if (i < n_in && !io(argv[2 + 2 * i], bufs[i], false)) return 2;
    if (i < n_in) in.push_back(bufs[i].data()); else out.push_back(bufs[i].data());
  }
  static model_session session;
  if (int rc = model_create(&session, 0)) {
    std::printf("create: %d %s\n", rc, model_error(&session));
    return 3;
  }
  // Twice: the replayed graph must give the same outputs again.
  for (int run = 0; run < 2; ++run)
    if (int rc = model_run_v(&session, in.data(), out.data())) {
      std::printf("run: %d %s\n", rc, model_error(&session));
      return 3;
    }
  model_destroy(&session);
  for (int i = n_in; i < n_all; ++i)
    if (!io(argv[2 + 2 * i], bufs[i], true)) return 2;
  return 0;
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--max-rel-err", type=float, default=1e-4)
    a = ap.parse_args()
    data = os.path.join(a.model_dir, "test_data_set_0")
    inputs, expected = [], []
    while os.path.exists(os.path.join(data, f"input_{len(inputs)}.pb")):
        inputs.append(load_tensor(os.path.join(data, f"input_{len(inputs)}.pb")))
    while os.path.exists(os.path.join(data, f"output_{len(expected)}.pb")):
        expected.append(load_tensor(os.path.join(data, f"output_{len(expected)}.pb")))
    with tempfile.TemporaryDirectory() as work:
        gen = os.path.join(work, "gen")
        subprocess.run([a.onnxc, os.path.join(a.model_dir, "model.onnx"), "--target", "cuda",
                        "--name", "model", "--quiet", "-o", gen], check=True)
        with open(os.path.join(work, "main.cpp"), "w") as f:
            f.write(MAIN)
        program = os.path.join(work, "model")
        flags = [a.cxx, "-std=c++17", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror",
                 "-I" + os.path.join(ROOT, "runtime-lite", "include"), "-I" + gen]
        emulation = os.path.join(ROOT, "test", "kernels", "cuda_emulation.h")
        subprocess.run(flags + ["-Wno-unknown-pragmas", "-include", emulation, "-x", "c++",
                                "-c", os.path.join(gen, "model.cu"), "-o", program + ".o"],
                       check=True)
        subprocess.run(flags + ["-c", os.path.join(gen, "model_weights.S"), "-Wa,-I" + gen,
                                "-o", program + "_weights.o"], check=True)
        subprocess.run(flags + [os.path.join(work, "main.cpp"), program + ".o",
                                program + "_weights.o", "-o", program], check=True)
        args = [program, str(len(inputs))]
        for k, x in enumerate(inputs):
            path = os.path.join(work, f"in{k}.bin")
            np.ascontiguousarray(x).tofile(path)
            args += [path, str(x.nbytes)]
        for k, y in enumerate(expected):
            args += [os.path.join(work, f"out{k}.bin"), str(y.nbytes)]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"the emulated program failed ({r.returncode}): {r.stdout}{r.stderr}")
        ok = True
        for k, y in enumerate(expected):
            got = np.fromfile(os.path.join(work, f"out{k}.bin"), dtype=y.dtype).reshape(y.shape)
            scale = float(np.max(np.abs(y))) if y.size else 0.0
            err = float(np.max(np.abs(got.astype(np.float64) - y))) if y.size else 0.0
            rel = err / scale if scale > 0 else err
            good = rel <= a.max_rel_err
            ok = ok and good
            print(f"output_{k}: max relative error {rel:.3g} {'ok' if good else 'TOO LARGE'}")
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
