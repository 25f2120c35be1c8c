// CUDA NonMaxSuppression: a block per (batch, class) ranks its candidates
// by the reference's order (ref::nms_before: each candidate's place is the
// number that come before it) and keeps them greedily, its threads testing
// a candidate against the kept boxes together (ref::overlaps); then one
// block packs the kept lists in (batch, class) order. The reference stops
// once the output's rows are full, which is the same rows as the whole list
// cut there.
#ifndef ONNXC_RT_CUDA_DETECTION_CUH
#define ONNXC_RT_CUDA_DETECTION_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/detection.h"

namespace onnxc_rt {
namespace cuda {

namespace detail {

__global__ void nms_select_kernel(const float *boxes, const float *scores,
                                  const int64_t *max_output_boxes_per_class,
                                  const float *iou_threshold, const float *score_threshold,
                                  int64_t batches, int64_t classes, int64_t nboxes,
                                  int64_t center_point_box, int64_t *scratch,
                                  const int64_t *n_run) {
  __shared__ int64_t part[kThreads];
  __shared__ int hit;
  const int64_t t = threadIdx.x, real = run_count(nboxes, n_run);
  // A class's scratch: its candidates in order, its kept boxes, their count.
  const int64_t per = ref::nms_class_scratch(nboxes), room = (per - 1) / 2;
  const int64_t limit = max_output_boxes_per_class ? *max_output_boxes_per_class : 0;
  const float iou = iou_threshold ? *iou_threshold : 0.0f;
  for (int64_t pair = blockIdx.x; pair < batches * classes; pair += gridDim.x) {
    const float *s = scores + pair * nboxes, *bx = boxes + pair / classes * nboxes * 4;
    int64_t *order = scratch + pair * per, *kept = order + room;
    int64_t mine = 0, candidates = 0;
    for (int64_t i = t; i < real; i += blockDim.x) {
      if (!ref::nms_candidate(s, i, score_threshold))
        continue;
      int64_t place = 0;
      for (int64_t j = 0; j < real; ++j)
        place += ref::nms_candidate(s, j, score_threshold) && ref::nms_before(s, j, i);
      order[place] = i;
      ++mine;
    }
    block_exclusive_scan(mine, part, candidates); // (its barriers publish `order`)
    int64_t nkept = 0;
    for (int64_t k = 0; k < candidates && nkept < limit; ++k) {
      const ref::Corners box = ref::box_corners(bx + order[k] * 4, center_point_box);
      if (t == 0)
        hit = 0;
      __syncthreads();
      for (int64_t q = t; q < nkept; q += blockDim.x)
        if (ref::overlaps(ref::box_corners(bx + kept[q] * 4, center_point_box), box, iou))
          hit = 1;
      __syncthreads();
      if (!hit) {
        if (t == 0)
          kept[nkept] = order[k];
        ++nkept;
      }
      __syncthreads(); // `hit` read by all, kept[nkept - 1] written
    }
    if (t == 0)
      order[per - 1] = nkept;
  }
}

__global__ void nms_pack_kernel(int64_t *selected, int64_t *extent, int64_t batches,
                                int64_t classes, int64_t nboxes, int64_t bound,
                                const int64_t *scratch) {
  const int64_t per = ref::nms_class_scratch(nboxes), room = (per - 1) / 2;
  int64_t rows = 0;
  for (int64_t pair = 0; pair < batches * classes && rows < bound; ++pair) {
    const int64_t *kept = scratch + pair * per + room, count = scratch[pair * per + per - 1];
    const int64_t take = count < bound - rows ? count : bound - rows;
    for (int64_t q = threadIdx.x; q < take; q += blockDim.x) {
      int64_t *row = selected + (rows + q) * 3;
      row[0] = pair / classes;
      row[1] = pair % classes;
      row[2] = kept[q];
    }
    rows += take;
  }
  for (int64_t i = rows * 3 + threadIdx.x; i < bound * 3; i += blockDim.x)
    selected[i] = 0;
  if (threadIdx.x == 0)
    *extent = rows;
}

} // namespace detail

/// NonMaxSuppression with the reference's arguments; scratch holds
/// ref::nms_class_scratch(nboxes) int64 per (batch, class).
inline void non_max_suppression(Stream *stream, const float *boxes, const float *scores,
                                const int64_t *max_output_boxes_per_class,
                                const float *iou_threshold, const float *score_threshold,
                                int64_t *selected, int64_t *extent, int64_t batches,
                                int64_t classes, int64_t nboxes, int64_t center_point_box,
                                int64_t bound, int64_t *scratch, const int64_t *n_run) {
  const int64_t pairs = batches * classes;
  if (pairs > 0)
    launch(detail::nms_select_kernel, unsigned(pairs < 65535 ? pairs : 65535), kThreads, stream,
           boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold, batches,
           classes, nboxes, center_point_box, scratch, n_run);
  launch(detail::nms_pack_kernel, 1, kThreads, stream, selected, extent, batches, classes,
         nboxes, bound, static_cast<const int64_t *>(scratch));
}

} // namespace cuda
} // namespace onnxc_rt

#endif // ONNXC_RT_CUDA_DETECTION_CUH
