// How kernels split their work over threads without knowing what a thread
// is: a model compiled with --threads N hands its kernels a TaskRunner (the
// caller's ThreadPool from threads.h, or null for the calling thread alone)
// and splits each parallel kernel into N tasks with their own scratch. The
// split depends only on N, never on the runner, so results are the same
// whichever thread runs which task, and with no runner at all.
#ifndef ONNXC_RT_PARALLEL_H
#define ONNXC_RT_PARALLEL_H

#include <stdint.h>

namespace onnxc_rt {

/// Runs fn(ctx, 0) ... fn(ctx, tasks - 1), possibly at once on several
/// threads, and returns when all have finished.
class TaskRunner {
public:
  virtual void run(int64_t tasks, void (*fn)(void *ctx, int64_t task), void *ctx) = 0;

protected:
  ~TaskRunner() = default;
};

/// f(task) for every task < tasks: on `runner` when there is one and more
/// than one task, else in order on the calling thread.
template <typename F>
inline void parallel_for(TaskRunner *runner, int64_t tasks, const F &f) {
  if (!runner || tasks <= 1) {
    for (int64_t t = 0; t < tasks; ++t)
      f(t);
    return;
  }
  runner->run(tasks, [](void *ctx, int64_t t) { (*static_cast<const F *>(ctx))(t); },
              const_cast<F *>(&f));
}

/// How many of `tasks` a kernel starts for about `cycles` of work: each
/// task at least kMinTaskCycles (handing a task to another thread costs
/// microseconds: EfficientNet-B0's squeeze-and-excitation convolutions,
/// a few thousand multiply-adds, ran slower split). Integer kernels, whose
/// results do not depend on the split, use it; the split of the others
/// depends only on `tasks`. The kernel tests build with
/// ONNXC_RT_MIN_TASK_CYCLES=0, so that their small cases split too.
#ifndef ONNXC_RT_MIN_TASK_CYCLES
#define ONNXC_RT_MIN_TASK_CYCLES 20000
#endif
constexpr int64_t kMinTaskCycles = ONNXC_RT_MIN_TASK_CYCLES;
inline int64_t tasks_for(int64_t cycles, int64_t tasks) {
  const int64_t most = kMinTaskCycles > 0 ? cycles / kMinTaskCycles : tasks;
  return most < 1 ? 1 : most < tasks ? most : tasks;
}

/// Task t's share [begin, end) of [0, n) split into `tasks` runs, each a
/// multiple of `quantum` long (the last takes the remainder).
struct Range {
  int64_t begin, end;
};
inline Range split_range(int64_t n, int64_t quantum, int64_t tasks, int64_t t) {
  const int64_t units = (n + quantum - 1) / quantum;
  const int64_t per = units / tasks, extra = units % tasks;
  const int64_t u0 = t * per + (t < extra ? t : extra);
  const int64_t u1 = u0 + per + (t < extra ? 1 : 0);
  const int64_t b = u0 * quantum, e = u1 * quantum;
  return {b < n ? b : n, e < n ? e : n};
}

/// f(begin, end) over [0, n) in runs of whole `quantum`s, one a task, as
/// many tasks as tasks_for allows for about `cycles` of work in all: the
/// split of kernels whose results do not depend on it (rows of a softmax,
/// runs of an element-wise integer kernel, planes of a pooling).
template <typename F>
inline void for_each_split(TaskRunner *runner, int64_t tasks, int64_t n, int64_t quantum,
                           int64_t cycles, const F &f) {
  const int64_t used = tasks_for(cycles, tasks);
  if (used <= 1) {
    if (n > 0)
      f(int64_t(0), n);
    return;
  }
  parallel_for(runner, used, [&](int64_t t) {
    const Range r = split_range(n, quantum, used, t);
    if (r.begin < r.end)
      f(r.begin, r.end);
  });
}

} // namespace onnxc_rt

#endif
