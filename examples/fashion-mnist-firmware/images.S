/* The 16 bundled Fashion-MNIST test images (28 x 28 bytes each) and their
   labels, in flash. */
    .section .rodata.fashion_images, "a"
    .balign 4
    .global fashion_images
fashion_images:
    .incbin "test_images.bin"
    .global fashion_labels
fashion_labels:
    .incbin "test_labels.bin"
