// Reference TfIdfVectorizer over integer tokens.
#ifndef ONNXC_RT_REF_TEXT_H
#define ONNXC_RT_REF_TEXT_H

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

namespace detail {
/// TfIdfVectorizer's rule for one row of x (cols tokens) into out (out_dim):
/// counts the pool's n-grams. Grams have min_gram..max_gram items taken
/// skip + 1 apart for skip in 0..max_skip (a 1-gram counts once per
/// position). The pool lists the grams of size n from ngram_counts[n - 1],
/// smaller sizes first; gram q (in pool order, n_grams in all) adds to
/// column ngram_indexes[q]. mode: 0 TF (counts), 1 IDF (weight where the
/// count is non-zero), 2 TFIDF (count times weight); weights (may be null:
/// 1) are per gram. Host and CUDA.
template <typename I>
ONNXC_RT_HD void tfidf_row(const I *row, float *out, int64_t cols, int64_t min_gram,
                           int64_t max_gram, int64_t max_skip, const int64_t *pool,
                           int64_t pool_size, const int64_t *ngram_counts, int64_t n_counts,
                           const int64_t *ngram_indexes, int64_t n_grams, const double *weights,
                           int64_t out_dim, int64_t mode) {
  for (int64_t i = 0; i < out_dim; ++i)
    out[i] = 0;
  int64_t first_gram = 0; // index of the first gram of the current size
  for (int64_t n = 1; n <= n_counts; ++n) {
    const int64_t begin = ngram_counts[n - 1];
    const int64_t end = n < n_counts ? ngram_counts[n] : pool_size;
    if (n >= min_gram && n <= max_gram)
      for (int64_t skip = 0; skip <= (n == 1 ? 0 : max_skip); ++skip)
        for (int64_t s = 0; s + (n - 1) * (skip + 1) < cols; ++s)
          for (int64_t g = begin; g + n <= end; g += n) {
            bool match = true;
            for (int64_t k = 0; k < n && match; ++k)
              match = int64_t(row[s + k * (skip + 1)]) == pool[g + k];
            if (match)
              out[ngram_indexes[first_gram + (g - begin) / n]] += 1;
          }
    first_gram += (end - begin) / n;
  }
  if (mode != 0)
    for (int64_t q = 0; q < n_grams; ++q) {
      float &v = out[ngram_indexes[q]];
      const float w = weights ? float(weights[q]) : 1.0f;
      v = mode == 1 ? (v > 0 ? w : 0.0f) : v * w;
    }
}
} // namespace detail

/// TfIdfVectorizer: detail::tfidf_row for each of the rows x (rows x cols)
/// into y (rows x out_dim).
template <typename I>
void tfidf(const I *x, float *y, int64_t rows, int64_t cols, int64_t min_gram,
           int64_t max_gram, int64_t max_skip, const int64_t *pool, int64_t pool_size,
           const int64_t *ngram_counts, int64_t n_counts, const int64_t *ngram_indexes,
           int64_t n_grams, const double *weights, int64_t out_dim, int64_t mode) {
  for (int64_t r = 0; r < rows; ++r)
    detail::tfidf_row(x + r * cols, y + r * out_dim, cols, min_gram, max_gram, max_skip, pool,
                      pool_size, ngram_counts, n_counts, ngram_indexes, n_grams, weights,
                      out_dim, mode);
}

} // namespace ref
} // namespace onnxc_rt

#endif
