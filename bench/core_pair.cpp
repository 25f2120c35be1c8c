// What sharing data between two cores costs on this host, for reading
// two-thread results (thread_scaling.py runs it before and after its
// rounds). On a shared cloud host the two vCPUs may sit on one core
// complex (a shared L3) or on two, and that can change from one minute to
// the next: a model's two-thread time moves with it (MobileNetV2 int8 on
// the Zen 5 host: 1.01 ms in one window, 1.55 ms in the next, same build).
// Prints one JSON line:
//   round_trip_ns  a cache line passed from CPU 0 to CPU 1 and back
//   remote_read_us CPU 0 reading 256 KB that CPU 1 has just written
//   local_read_us  the same 256 KB again, from CPU 0's own cache
//   join_us        what a ThreadPool parallel_for of two busy tasks adds
//                  to one task alone (the pool's hand-off and join)
//
//   c++ -std=c++17 -O3 -march=native -pthread -I../runtime-lite/include core_pair.cpp -o core_pair
#include "onnxc_rt/threads.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

alignas(64) std::atomic<int64_t> line{0};

double round_trip_ns() {
  constexpr int64_t kTrips = 100000;
  std::thread other([] {
    pin(1);
    for (int64_t i = 0; i < kTrips; ++i) {
      while (line.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      line.store(2 * i + 2, std::memory_order_release);
    }
  });
  const auto t0 = Clock::now();
  for (int64_t i = 0; i < kTrips; ++i) {
    line.store(2 * i + 1, std::memory_order_release);
    while (line.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  const double ns = us_since(t0) * 1e3 / kTrips;
  other.join();
  return ns;
}

constexpr int64_t kWords = 256 * 1024 / 8;
alignas(64) uint64_t shared_block[kWords];

// Eight sums, so that the loads and not the additions set the pace.
uint64_t read_block() {
  uint64_t s[8] = {};
  for (int64_t i = 0; i < kWords; i += 8)
    for (int j = 0; j < 8; ++j)
      s[j] += shared_block[i + j];
  return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

void write_block(uint64_t v) {
  for (int64_t i = 0; i < kWords; ++i)
    shared_block[i] = v + i;
}

struct Reads {
  double remote_us, local_us;
};

Reads read_costs() {
  constexpr int kRounds = 2000;
  std::atomic<int> turn{0};
  std::thread other([&] {
    pin(1);
    for (int r = 0; r < kRounds; ++r) {
      while (turn.load(std::memory_order_acquire) != 1) {
      }
      write_block(r);
      turn.store(2, std::memory_order_release);
    }
  });
  double remote = 0, local = 0;
  volatile uint64_t sink = 0;
  for (int r = 0; r < kRounds; ++r) {
    turn.store(1, std::memory_order_release);
    while (turn.load(std::memory_order_acquire) != 2) {
    }
    auto t0 = Clock::now();
    sink = sink + read_block();
    remote += us_since(t0);
    t0 = Clock::now();
    sink = sink + read_block();
    local += us_since(t0);
  }
  other.join();
  return {remote / kRounds, local / kRounds};
}

// About 3 us of arithmetic on private data.
void busy(int64_t task, double *out) {
  double a = 1.0 + task;
  for (int i = 0; i < 4000; ++i)
    a = a * 1.0000001 + 1e-9;
  out[task * 8] = a;
}

double join_us() {
  onnxc_rt::ThreadPool pool(2);
  alignas(64) static double out[16];
  constexpr int kJobs = 20000;
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = Clock::now();
    for (int i = 0; i < kJobs; ++i)
      onnxc_rt::parallel_for(&pool, 2, [&](int64_t t) { busy(t, out); });
    const double two = us_since(t0) / kJobs;
    t0 = Clock::now();
    for (int i = 0; i < kJobs; ++i)
      busy(0, out);
    const double one = us_since(t0) / kJobs;
    best = two - one < best ? two - one : best;
  }
  return best;
}

} // namespace

int main() {
  // The pool first: its worker takes the creating thread's CPUs, so the
  // calling thread is pinned only after.
  const double join = join_us();
  if (std::thread::hardware_concurrency() < 2 || !pin(0)) {
    std::fprintf(stderr, "core_pair: needs CPUs 0 and 1\n");
    return 1;
  }
  const double rt = round_trip_ns();
  const Reads reads = read_costs();
  std::printf("{\"round_trip_ns\": %.0f, \"remote_read_us\": %.1f, \"local_read_us\": %.1f, "
              "\"join_us\": %.2f}\n",
              rt, reads.remote_us, reads.local_us, join);
  return 0;
}
