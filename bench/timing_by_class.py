#!/usr/bin/python3
"""Does the compiled Fashion-MNIST CNN take longer on some classes than on
others? (A timing side channel would leak what the model saw.)

Compiles examples/fashion-mnist/fashion_cnn.onnx to a static library for
--target (default native), links a small harness that times every run with
steady_clock, and runs IMAGES test images of each of the 10 classes
(Debian's dataset-fashion-mnist test set) in a shuffled order, ROUNDS times,
in one process. Reports each class's median latency and the spread between
class medians next to the noise: the same spread between two halves of
each class's own runs (odd and even rounds), and a permutation test: how
often random assignments of the images to classes spread the class means
as far apart as the real one. A benchmark, not a test: it prints
numbers and asserts nothing.

  /usr/bin/python3 bench/timing_by_class.py [--target T] [--images 20] [--rounds 400]
"""
import argparse
import gzip
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
           "Sneaker", "Bag", "Ankle boot"]

HARNESS = r"""
#include "fashion.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

int main(int argc, char **argv) {
  FILE *f = std::fopen(argv[1], "rb");
  long rounds = std::atol(argv[2]);
  std::vector<float> images;
  float buffer[fashion::Input0::size];
  while (std::fread(buffer, sizeof buffer, 1, f) == 1)
    images.insert(images.end(), buffer, buffer + fashion::Input0::size);
  std::fclose(f);
  const long n = (long)(images.size() / fashion::Input0::size);
  static fashion::Model model;
  float logits[fashion::Output0::size];
  std::vector<long> order(n);
  for (long i = 0; i < n; ++i) order[i] = i;
  uint64_t state = 2026;
  for (long r = -20; r < rounds; ++r) { // 20 rounds of warm-up, not reported
    for (long i = n - 1; i > 0; --i) {  // a fresh shuffle each round (LCG)
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      long j = (long)((state >> 33) % (uint64_t)(i + 1));
      long t = order[i]; order[i] = order[j]; order[j] = t;
    }
    for (long k = 0; k < n; ++k) {
      const float *x = images.data() + order[k] * fashion::Input0::size;
      auto t0 = std::chrono::steady_clock::now();
      if (model.run(x, logits) != 0) return 1;
      auto t1 = std::chrono::steady_clock::now();
      if (r >= 0)
        std::printf("%ld %ld %lld\n", r, order[k],
                    (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    }
  }
  return 0;
}
"""


def test_images(per_class):
    folder = "/usr/share/datasets/fashion-mnist"
    with gzip.open(os.path.join(folder, "t10k-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(os.path.join(folder, "t10k-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    picked = np.concatenate([np.flatnonzero(labels == c)[:per_class] for c in range(10)])
    x = (images[picked] / np.float32(255) - np.float32(0.2860)) / np.float32(0.3530)
    return x.astype(np.float32), labels[picked]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxc", default=os.path.join(ROOT, "build/compiler/tools/onnxc"))
    ap.add_argument("--target", default="native")
    ap.add_argument("--images", type=int, default=20, help="test images per class")
    ap.add_argument("--rounds", type=int, default=400)
    args = ap.parse_args()
    x, labels = test_images(args.images)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([args.onnxc, os.path.join(ROOT, "examples/fashion-mnist/fashion_cnn.onnx"),
                        "-o", tmp, "--name", "fashion", "--target", args.target, "--emit", "lib",
                        "--quiet"], check=True)
        flags = subprocess.run([args.onnxc, "--print-target-flags", "--target", args.target],
                               check=True, capture_output=True, text=True).stdout.split()
        with open(os.path.join(tmp, "harness.cpp"), "w") as f:
            f.write(HARNESS)
        exe = os.path.join(tmp, "harness")
        subprocess.run(["g++", "-std=c++17", "-O3", *flags, "-I", tmp,
                        "-I", os.path.join(ROOT, "runtime-lite/include"),
                        os.path.join(tmp, "harness.cpp"), os.path.join(tmp, "libfashion.a"),
                        "-o", exe], check=True)
        x.tofile(os.path.join(tmp, "images.bin"))
        out = subprocess.run([exe, os.path.join(tmp, "images.bin"), str(args.rounds)],
                             check=True, capture_output=True, text=True).stdout
    rows = np.array([line.split() for line in out.splitlines()], np.int64)
    rounds, image, ns = rows[:, 0], rows[:, 1], rows[:, 2]
    cls = labels[image]
    print(f"Fashion-MNIST CNN, --target {args.target}: {args.images} test images per class, "
          f"{args.rounds} shuffled rounds, {len(ns)} timed runs")
    print("| class | median us | p10 us | p90 us | median, odd rounds | median, even rounds |")
    print("|---|---|---|---|---|---|")
    medians, halves = [], []
    for c in range(10):
        t = ns[cls == c] / 1000
        odd = np.median(ns[(cls == c) & (rounds % 2 == 1)]) / 1000
        even = np.median(ns[(cls == c) & (rounds % 2 == 0)]) / 1000
        medians.append(np.median(t))
        halves.append(abs(odd - even))
        print(f"| {CLASSES[c]} | {np.median(t):.2f} | {np.percentile(t, 10):.2f} | "
              f"{np.percentile(t, 90):.2f} | {odd:.2f} | {even:.2f} |")
    medians = np.array(medians)
    spread = (medians.max() - medians.min()) / medians.mean()
    noise = max(halves) / medians.mean()
    print(f"\nspread of the class medians: {100 * spread:.3f}% of the mean; "
          f"largest odd/even-round difference within a class: {100 * noise:.3f}%")
    # Permutation test on the per-image medians: how often does assigning the
    # images to classes at random spread the class means as far apart?
    images = np.unique(image)
    per_image = np.array([np.median(ns[image == i]) for i in images])
    image_cls = labels[images]

    def class_spread(assignment):
        means = np.array([per_image[assignment == c].mean() for c in range(10)])
        return means.max() - means.min()

    observed = class_spread(image_cls)
    rng = np.random.default_rng(0)
    trials = 5000
    as_far = sum(class_spread(rng.permutation(image_cls)) >= observed for _ in range(trials))
    p = (as_far + 1) / (trials + 1)
    print(f"permutation test (per-image medians, {trials} random class assignments): "
          f"spread {observed:.1f} ns, p = {p:.3f} "
          f"({'no evidence' if p > 0.05 else 'evidence'} that latency depends on the class)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
