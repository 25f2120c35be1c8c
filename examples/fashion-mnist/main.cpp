// Classifies the bundled Fashion-MNIST test images with the compiled model
// and prints predicted vs true labels.
#include "fashion.h"

#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

static const char *const kClasses[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress",
                                         "Coat",        "Sandal",  "Shirt",    "Sneaker",
                                         "Bag",         "Ankle boot"};

static std::vector<uint8_t> readFile(const char *path) {
  std::vector<uint8_t> data;
  if (FILE *f = std::fopen(path, "rb")) {
    uint8_t buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      data.insert(data.end(), buf, buf + n);
    std::fclose(f);
  }
  return data;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : FASHION_DATA_DIR;
  std::string base(dir);
  std::vector<uint8_t> images = readFile((base + "/test_images.bin").c_str());
  std::vector<uint8_t> labels = readFile((base + "/test_labels.bin").c_str());
  constexpr size_t kPixels = fashion::Input0::size; // 1x1x28x28
  if (labels.empty() || images.size() != labels.size() * kPixels) {
    std::fprintf(stderr, "cannot read the test images in %s\n", dir);
    return 1;
  }
#if defined(FASHION_ON_GPU)
  // A session on GPU 0 (examples/fashion-mnist-cuda): the arena in device
  // memory, the weights uploaded once, the model's kernels a CUDA Graph.
  static fashion::Model model(0);
  if (model.status() != 0) {
    std::fprintf(stderr, "no GPU session: %s\n", model.error());
    return model.status() == fashion_STATUS_NO_DEVICE ? 77 : 1;
  }
#else
  // The model object owns the arena (fashion::kArenaSize bytes); no heap use
  // inside fashion_run.
  static fashion::Model model;
#endif
  float input[kPixels];
  float logits[fashion::Output0::size];
  int correct = 0;
  std::printf("arena %zu bytes; input '%s' [1x1x28x28], output '%s' [1x10]\n",
              fashion::kArenaSize, fashion::Input0::name, fashion::Output0::name);
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t p = 0; p < kPixels; ++p) // the normalisation used in training
      input[p] = (images[i * kPixels + p] / 255.0f - 0.2860f) / 0.3530f;
    if (model.run(input, logits) != 0)
      return 1;
    int best = 0;
    for (int k = 1; k < 10; ++k)
      if (logits[k] > logits[best])
        best = k;
    correct += best == labels[i];
    std::printf("image %2zu: predicted %-11s  true %-11s %s\n", i, kClasses[best],
                kClasses[labels[i]], best == labels[i] ? "" : "  <- wrong");
  }
  std::printf("%d of %zu correct\n", correct, labels.size());
  return 0;
}
