//===- HostModel.h - a host build, loaded in process -------------------------===//
#ifndef ONNXC_DRIVER_HOSTMODEL_H
#define ONNXC_DRIVER_HOSTMODEL_H

#include "Generate.h"

#include <string>

namespace onnxc_rt {
class TaskRunner;
} // namespace onnxc_rt

namespace onnxc {

/// A compiled model loaded into this process (host targets): the shared
/// library built from its files in `dir` (written there by the caller with
/// writeModelFiles, as "model"), closed when this goes away.
class HostModel {
public:
  HostModel() = default;
  HostModel(const HostModel &) = delete;
  HostModel &operator=(const HostModel &) = delete;
  ~HostModel();
  /// With `useCache`, the library comes from onnxc's build cache where an
  /// identical build is there (fromCache() then says so).
  bool load(const Target &target, const GeneratedModel &g, const std::string &dir,
            std::string &error, bool useCache = true);
  bool fromCache() const { return fromCache_; }
  /// model_run_v_on: the model's status (0: success). A model with bounded
  /// dims takes their sizes (`dims`, in their order; ignored otherwise).
  int run(const void *const *inputs, void *const *outputs, void *arena,
          onnxc_rt::TaskRunner *threads, const int64_t *dims = nullptr) const;

private:
  using RunOnFn = int (*)(const void *const *, void *const *, void *, void *);
  using RunOnDimsFn = int (*)(const int64_t *, const void *const *, void *const *, void *,
                              void *);
  void *handle_ = nullptr;
  RunOnFn runOn_ = nullptr;
  RunOnDimsFn runOnDims_ = nullptr;
  bool fromCache_ = false;
};

} // namespace onnxc

#endif
