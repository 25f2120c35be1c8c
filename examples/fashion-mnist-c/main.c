/* Classifies the bundled Fashion-MNIST test images with the compiled model
   from C: the header's C API, an arena the program owns (static, aligned as
   the header asks), no heap inside the model. */
#include "fashion.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>

#define PIXELS (28 * 28)
#define IMAGES 16

static const char *const kClasses[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress",
                                         "Coat",        "Sandal",  "Shirt",    "Sneaker",
                                         "Bag",         "Ankle boot"};

static alignas(fashion_ARENA_ALIGNMENT) unsigned char arena[fashion_ARENA_SIZE];

static size_t readFile(const char *dir, const char *name, uint8_t *data, size_t size) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  size_t n = fread(data, 1, size, f);
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : FASHION_DATA_DIR;
  static uint8_t images[IMAGES * PIXELS];
  static uint8_t labels[IMAGES];
  if (readFile(dir, "test_images.bin", images, sizeof images) != sizeof images ||
      readFile(dir, "test_labels.bin", labels, sizeof labels) != sizeof labels) {
    fprintf(stderr, "cannot read the test images in %s\n", dir);
    return 1;
  }
  float input[PIXELS];
  float logits[10];
  int correct = 0;
  printf("fashion from C: arena %d bytes\n", (int)fashion_ARENA_SIZE);
  for (int i = 0; i < IMAGES; ++i) {
    for (int p = 0; p < PIXELS; ++p) /* the normalisation used in training */
      input[p] = (images[i * PIXELS + p] / 255.0f - 0.2860f) / 0.3530f;
    if (fashion_run(input, logits, arena) != 0)
      return 1;
    int best = 0;
    for (int k = 1; k < 10; ++k)
      if (logits[k] > logits[best])
        best = k;
    correct += best == labels[i];
    printf("image %2d: predicted %-11s  true %s\n", i, kClasses[best], kClasses[labels[i]]);
  }
  printf("%d of %d correct\n", correct, IMAGES);
  return 0;
}
