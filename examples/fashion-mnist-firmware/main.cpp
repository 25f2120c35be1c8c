// Firmware main: classifies the 16 bundled test images with the int8 model
// and prints predicted vs true labels (semihosting stdout under QEMU; a
// UART on a board). The model object holds its arena statically: no heap
// use inside fashion_run.
#include "fashion.h"

#include <cstdint>
#include <cstdio>

extern "C" const uint8_t fashion_images[16 * 28 * 28];
extern "C" const uint8_t fashion_labels[16];

static const char *const kClasses[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress",
                                         "Coat",        "Sandal",  "Shirt",    "Sneaker",
                                         "Bag",         "Ankle boot"};

int main() {
  static fashion::Model model;
  constexpr int kPixels = int(fashion::Input0::size);
  static float input[kPixels];
  static float logits[fashion::Output0::size];
  std::printf("fashion-mnist int8 on %s: arena %u bytes\n", FASHION_CORE,
              unsigned(fashion::kArenaSize));
  int correct = 0;
  for (int i = 0; i < 16; ++i) {
    for (int p = 0; p < kPixels; ++p) // the normalisation used in training
      input[p] = (fashion_images[i * kPixels + p] / 255.0f - 0.2860f) / 0.3530f;
    if (model.run(input, logits) != 0)
      return 1;
    int best = 0;
    for (int k = 1; k < 10; ++k)
      best = logits[k] > logits[best] ? k : best;
    correct += best == fashion_labels[i];
    std::printf("image %2d: %-11s (label %s)\n", i, kClasses[best],
                kClasses[fashion_labels[i]]);
  }
  std::printf("%d of 16 correct\n", correct);
  return 0;
}
