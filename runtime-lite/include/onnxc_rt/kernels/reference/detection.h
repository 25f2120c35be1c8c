// Reference NonMaxSuppression.
#ifndef ONNXC_RT_REF_DETECTION_H
#define ONNXC_RT_REF_DETECTION_H

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

/// A box as its sorted corners, from [y1, x1, y2, x2] (any diagonal pair)
/// or, with center_point_box, [x_center, y_center, width, height].
struct Corners {
  float y0, x0, y1, x1;
};

ONNXC_RT_HD inline Corners box_corners(const float *b, int64_t center_point_box) {
  if (center_point_box) {
    const float hw = b[2] / 2, hh = b[3] / 2;
    return {b[1] - hh, b[0] - hw, b[1] + hh, b[0] + hw};
  }
  return {b[0] < b[2] ? b[0] : b[2], b[1] < b[3] ? b[1] : b[3], b[0] < b[2] ? b[2] : b[0],
          b[1] < b[3] ? b[3] : b[1]};
}

/// Whether two boxes overlap by more than iou_threshold (intersection over
/// union); boxes without area overlap nothing.
ONNXC_RT_HD inline bool overlaps(const Corners &a, const Corners &b, float iou_threshold) {
  const float y0 = a.y0 > b.y0 ? a.y0 : b.y0, y1 = a.y1 < b.y1 ? a.y1 : b.y1;
  const float x0 = a.x0 > b.x0 ? a.x0 : b.x0, x1 = a.x1 < b.x1 ? a.x1 : b.x1;
  if (y1 <= y0 || x1 <= x0)
    return false;
  const float area_a = (a.y1 - a.y0) * (a.x1 - a.x0), area_b = (b.y1 - b.y0) * (b.x1 - b.x0);
  if (area_a <= 0 || area_b <= 0)
    return false;
  const float inter = (y1 - y0) * (x1 - x0), uni = area_a + area_b - inter;
  return uni > 0 && inter / uni > iou_threshold;
}

/// Whether box i comes before box j among a class's candidates: the higher
/// score first, a NaN score after every number, ties to the lower index (a
/// total order, so the host's merge sort and the GPU's ranks agree). Host
/// and CUDA.
ONNXC_RT_HD inline bool nms_before(const float *scores, int64_t i, int64_t j) {
  const float a = scores[i], b = scores[j];
  const bool a_nan = a != a, b_nan = b != b;
  if (a_nan != b_nan)
    return b_nan;
  if (!a_nan && a != b)
    return a > b;
  return i < j;
}

/// Whether box i of a class scores above the threshold (null: all do).
ONNXC_RT_HD inline bool nms_candidate(const float *scores, int64_t i,
                                      const float *score_threshold) {
  return !score_threshold || scores[i] > *score_threshold;
}

/// int64 scratch entries non_max_suppression needs per box.
constexpr int64_t kNmsScratchPerBox = 3;

/// int64 scratch entries the CUDA non_max_suppression needs per (batch,
/// class): its candidates in order and its kept boxes (nboxes each, at least
/// one) and their count.
ONNXC_RT_HD constexpr int64_t nms_class_scratch(int64_t nboxes) {
  return 2 * (nboxes > 1 ? nboxes : 1) + 1;
}

/// NonMaxSuppression: for each batch and class, the boxes whose score is
/// above score_threshold, best score first (nms_before), each
/// kept unless it overlaps a kept one, up to max_output_boxes_per_class
/// (null or 0: none). Rows (batch, class, box) are packed at the start of
/// `selected` (bound rows; the rest zeroed); *extent = rows written. The
/// optional inputs may be null. scratch: kNmsScratchPerBox * boxes int64.
/// When the data decides how many boxes there are, `n_run` holds it: only
/// the first *n_run of the nboxes (a bound) are candidates.
inline void non_max_suppression(const float *boxes, const float *scores,
                                const int64_t *max_output_boxes_per_class,
                                const float *iou_threshold, const float *score_threshold,
                                int64_t *selected, int64_t *extent, int64_t batches,
                                int64_t classes, int64_t nboxes, int64_t center_point_box,
                                int64_t bound, int64_t *scratch, const int64_t *n_run) {
  const int64_t real = run_count(nboxes, n_run);
  int64_t *order = scratch, *tmp = scratch + nboxes, *kept = scratch + 2 * nboxes;
  const int64_t limit = max_output_boxes_per_class ? *max_output_boxes_per_class : 0;
  const float iou = iou_threshold ? *iou_threshold : 0.0f;
  int64_t rows = 0;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const float *s = scores + (b * classes + c) * nboxes;
      const float *bx = boxes + b * nboxes * 4;
      int64_t candidates = 0;
      for (int64_t i = 0; i < real; ++i)
        if (nms_candidate(s, i, score_threshold))
          order[candidates++] = i;
      stable_sort(order, tmp, candidates,
                  [&](int64_t i, int64_t j) { return nms_before(s, i, j); });
      int64_t nkept = 0;
      for (int64_t k = 0; k < candidates && nkept < limit && rows < bound; ++k) {
        const Corners box = box_corners(bx + order[k] * 4, center_point_box);
        bool suppressed = false;
        for (int64_t q = 0; q < nkept && !suppressed; ++q)
          suppressed = overlaps(box_corners(bx + kept[q] * 4, center_point_box), box, iou);
        if (suppressed)
          continue;
        kept[nkept++] = order[k];
        selected[rows * 3] = b;
        selected[rows * 3 + 1] = c;
        selected[rows * 3 + 2] = order[k];
        ++rows;
      }
    }
  for (int64_t i = rows * 3; i < bound * 3; ++i)
    selected[i] = 0;
  *extent = rows;
}

} // namespace ref
} // namespace onnxc_rt

#endif
