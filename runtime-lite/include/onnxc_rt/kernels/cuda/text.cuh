// CUDA TfIdfVectorizer over integer tokens: one row a thread by the
// reference's tfidf_row (the counts in its order, so equal outputs). The
// pool, its counts and indexes and the weights are compile-time data in
// the weights blob, on the device with the model's other constants.
#ifndef ONNXC_RT_CUDA_TEXT_CUH
#define ONNXC_RT_CUDA_TEXT_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/text.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

template <typename I>
__global__ void tfidf_kernel(const I *x, float *y, int64_t rows, int64_t cols, int64_t min_gram,
                             int64_t max_gram, int64_t max_skip, const int64_t *pool,
                             int64_t pool_size, const int64_t *ngram_counts, int64_t n_counts,
                             const int64_t *ngram_indexes, int64_t n_grams,
                             const double *weights, int64_t out_dim, int64_t mode) {
  ONNXC_CUDA_FOR(r, rows) {
    ref::detail::tfidf_row(x + r * cols, y + r * out_dim, cols, min_gram, max_gram, max_skip,
                           pool, pool_size, ngram_counts, n_counts, ngram_indexes, n_grams,
                           weights, out_dim, mode);
  }
}

} // namespace detail

/// TfIdfVectorizer: ref::tfidf's arguments, its arrays in device memory.
template <typename I>
void tfidf(Stream *stream, const I *x, float *y, int64_t rows, int64_t cols, int64_t min_gram,
           int64_t max_gram, int64_t max_skip, const int64_t *pool, int64_t pool_size,
           const int64_t *ngram_counts, int64_t n_counts, const int64_t *ngram_indexes,
           int64_t n_grams, const double *weights, int64_t out_dim, int64_t mode) {
  launch_over(rows, detail::tfidf_kernel<I>, stream, x, y, rows, cols, min_gram, max_gram, max_skip,
              pool, pool_size, ngram_counts, n_counts, ngram_indexes, n_grams, weights, out_dim,
              mode);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
