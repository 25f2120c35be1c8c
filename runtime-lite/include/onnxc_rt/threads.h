// A fixed pool of worker threads for models compiled with --threads N, on
// hosts with POSIX threads (not for microcontrollers: nothing else in
// runtime-lite includes this). The caller creates it once and passes it to
// each NAME_run_on call; the calling thread works too, so a pool of N
// threads starts N - 1 workers. No heap: the workers live in a fixed array.
// Idle workers spin briefly before they block (as ORT's do), so a model's
// back-to-back kernels do not pay a wake-up each.
//
//   onnxc_rt::ThreadPool pool(2);
//   model_run_on(input, output, arena, &pool);
#ifndef ONNXC_RT_THREADS_H
#define ONNXC_RT_THREADS_H

#include <pthread.h>

#include "onnxc_rt/parallel.h"

namespace onnxc_rt {

class ThreadPool final : public TaskRunner {
public:
  static constexpr int kMaxThreads = 64;

  /// `threads` in [1, kMaxThreads], the calling thread included; fewer if
  /// the system refuses to start more (threads() says how many run).
  explicit ThreadPool(int threads) {
    // The lock is held for a few instructions at a time; a thread that
    // finds it taken spins (glibc's adaptive kind) rather than sleeping in
    // the kernel, whose wake-up (microseconds, more under a hypervisor)
    // would stall every kernel's join.
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
#if defined(PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP)
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(&mu_, &attr);
    pthread_mutexattr_destroy(&attr);
    pthread_cond_init(&wake_, nullptr);
    pthread_cond_init(&done_, nullptr);
    const int want = threads < 1 ? 1 : threads > kMaxThreads ? kMaxThreads : threads;
    for (int i = 0; i + 1 < want; ++i) {
      worker_args_[i] = {this, i + 1};
      if (pthread_create(&workers_[i], nullptr, &ThreadPool::worker, &worker_args_[i]) != 0)
        break;
      ++workers_started_;
    }
  }

  ~ThreadPool() {
    pthread_mutex_lock(&mu_);
    __atomic_store_n(&stop_, true, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&wake_);
    pthread_mutex_unlock(&mu_);
    for (int i = 0; i < workers_started_; ++i)
      pthread_join(workers_[i], nullptr);
    pthread_cond_destroy(&done_);
    pthread_cond_destroy(&wake_);
    pthread_mutex_destroy(&mu_);
  }

  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int threads() const { return workers_started_ + 1; }

  /// One job at a time. Thread k (the caller 0, worker i i + 1) takes task k
  /// first, so that kernels which split a tensor the same way (rows among
  /// tasks) find their part in the cache of the core that wrote it; the
  /// tasks no thread has taken (those past the thread count, or a thread
  /// still waking) go in order to whichever thread asks next. Not to be
  /// called from two threads at once (one pool per concurrent caller, like
  /// the arena).
  void run(int64_t tasks, void (*fn)(void *, int64_t), void *ctx) override {
    pthread_mutex_lock(&mu_);
    fn_ = fn;
    ctx_ = ctx;
    tasks_ = tasks;
    next_ = 0;
    claimed_ = 0;
    __atomic_store_n(&unfinished_, tasks, __ATOMIC_RELEASE);
    __atomic_add_fetch(&generation_, 1, __ATOMIC_RELEASE);
    if (sleepers_ > 0)
      pthread_cond_broadcast(&wake_);
    pthread_mutex_unlock(&mu_);
    work(0);
    // The other threads' last tasks: spin a while (kernels are short), then sleep.
    for (int spin = 0; spin < kSpins && __atomic_load_n(&unfinished_, __ATOMIC_ACQUIRE) > 0;
         ++spin)
      pause();
    pthread_mutex_lock(&mu_);
    while (__atomic_load_n(&unfinished_, __ATOMIC_ACQUIRE) > 0)
      pthread_cond_wait(&done_, &mu_);
    pthread_mutex_unlock(&mu_);
  }

private:
  // Busy-wait rounds before a thread blocks: a model's kernels follow each
  // other within microseconds, and waking a blocked thread costs more.
  static constexpr int kSpins = 1 << 16;

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
  }

  // Takes tasks of the current job until none are left: task `self` first
  // where it is still free. Tasks below kMaxThreads are marked in claimed_.
  void work(int self) {
    pthread_mutex_lock(&mu_);
    for (;;) {
      int64_t t = -1;
      if (self < tasks_ && !(claimed_ >> self & 1)) {
        t = self;
      } else {
        while (next_ < tasks_ && next_ < kMaxThreads && (claimed_ >> next_ & 1))
          ++next_;
        if (next_ >= tasks_)
          break;
        t = next_++;
      }
      if (t < kMaxThreads)
        claimed_ |= 1ull << t;
      void (*fn)(void *, int64_t) = fn_;
      void *ctx = ctx_;
      pthread_mutex_unlock(&mu_);
      fn(ctx, t);
      pthread_mutex_lock(&mu_);
      if (__atomic_sub_fetch(&unfinished_, 1, __ATOMIC_RELEASE) == 0)
        pthread_cond_signal(&done_);
    }
    pthread_mutex_unlock(&mu_);
  }

  struct WorkerArg {
    ThreadPool *pool;
    int index;
  };

  static void *worker(void *arg) {
    ThreadPool &p = *static_cast<WorkerArg *>(arg)->pool;
    const int self = static_cast<WorkerArg *>(arg)->index;
    unsigned long seen = 0;
    for (;;) {
      for (int spin = 0; spin < kSpins && !__atomic_load_n(&p.stop_, __ATOMIC_ACQUIRE) &&
                         __atomic_load_n(&p.generation_, __ATOMIC_ACQUIRE) == seen;
           ++spin)
        pause();
      pthread_mutex_lock(&p.mu_);
      while (!p.stop_ && p.generation_ == seen) {
        ++p.sleepers_;
        pthread_cond_wait(&p.wake_, &p.mu_);
        --p.sleepers_;
      }
      if (p.stop_) {
        pthread_mutex_unlock(&p.mu_);
        return nullptr;
      }
      seen = p.generation_;
      pthread_mutex_unlock(&p.mu_);
      p.work(self);
    }
  }

  pthread_mutex_t mu_;
  pthread_cond_t wake_, done_;
  pthread_t workers_[kMaxThreads];
  WorkerArg worker_args_[kMaxThreads];
  int workers_started_ = 0, sleepers_ = 0;
  bool stop_ = false;
  unsigned long generation_ = 0;
  void (*fn_)(void *, int64_t) = nullptr;
  void *ctx_ = nullptr;
  int64_t tasks_ = 0, next_ = 0, unfinished_ = 0;
  unsigned long long claimed_ = 0; // tasks [0, kMaxThreads) taken
};

} // namespace onnxc_rt

#endif
