// A fixed-size intra-op thread pool. ParallelFor splits [0, n) into chunks: the caller runs the
// first, then it and the workers claim the rest from one shared counter. It returns as soon as
// every chunk is done, never waiting for a worker that has not woken up yet (on a busy machine a
// sleeping worker must not stall the caller). Workers spin briefly before parking so the
// back-to-back kernels of one run do not pay a wake-up each.
//
// Per call there is no allocation and no lock: the job (a non-owning reference to the caller's
// callable plus the chunking) sits in the pool, published by bumping an epoch that shares one
// atomic word with the chunk count and the next chunk index, so a worker that wakes late can only
// ever claim a chunk of the job that is current (its compare-and-swap fails once the epoch moved
// on), and a claim that succeeds proves the job's other fields it read belong to that epoch.
//
// One pool per session and a session is driven by one thread at a time; a second, concurrent or
// nested ParallelFor (a kernel body that itself calls ParallelFor) simply runs inline.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace gebe::cpu {

class ThreadPool;

// pool->ParallelFor(n, grain, fn), or fn(0, n) on the calling thread where there is no pool (a
// batch's images already spread over the threads run their own work single-threaded).
template <typename F>
void ParallelForOrInline(ThreadPool* pool, int64_t n, int64_t grain, F&& fn);

// fn over [0, n) in one contiguous range per thread (fewer where ranges would hold less than
// min_grain items; the last may hold less). The calling thread always runs the first range (Run
// keeps chunk 0 for it) and, with two threads, the worker the second unless it is late, the same
// on every call: consecutive phases that split the same rows or positions this way find each
// thread's part of the data in that thread's own cache, where chunks claimed in any order would
// pull half of it from the other core's.
template <typename F>
void ParallelForContiguous(ThreadPool* pool, int64_t n, int64_t min_grain, F&& fn);

class ThreadPool {
 public:
  // threads = total parallelism including the caller; 0 = one per core.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }

  // Calls fn(begin, end) over chunks of [0, n); chunks hold at least `grain` items. Work of a
  // single chunk runs inline on the caller without touching the workers. An exception thrown by
  // fn is rethrown here once every started chunk has finished.
  template <typename F>
  void ParallelFor(int64_t n, int64_t grain, F&& fn) {
    using Fn = std::remove_reference_t<F>;
    Run(n, grain, Body{const_cast<void*>(static_cast<const void*>(std::addressof(fn))),
                       [](void* f, int64_t begin, int64_t end) { (*static_cast<Fn*>(f))(begin, end); }});
  }

  // Wakes parked workers so they are spinning by the time the first ParallelFor of a run comes
  // (a wake-up costs tens of microseconds on a loaded machine). Cheap when nobody is parked.
  void Prewarm();

 private:
  struct Body {
    void* fn;
    void (*call)(void* fn, int64_t begin, int64_t end);
  };

  void Run(int64_t n, int64_t grain, Body body);
  void WorkerLoop();
  // Claims and runs chunks of the job published under `epoch` until none is left.
  void Work(uint64_t epoch);
  // Runs one chunk, keeps its first exception, and counts it done.
  void RunChunk(void* fn, void (*call)(void*, int64_t, int64_t), int64_t begin, int64_t end);
  void Wake();

  // state_ = epoch << 32 | chunks << 16 | next chunk index: one word, so a claim succeeds only
  // for the job it was meant for and only while that job has chunks left.
  static constexpr int kEpochShift = 32;
  static constexpr int kChunksShift = 16;
  static constexpr uint64_t kMaxChunks = 0xffff;

  std::vector<std::thread> workers_;
  alignas(64) std::atomic<uint64_t> state_{0};
  // The current job; written by the caller before it publishes a new epoch, read by claimers
  // (relaxed atomics: a claimer only uses what it read if its claim on that epoch succeeds).
  alignas(64) std::atomic<void*> fn_{nullptr};
  std::atomic<void (*)(void*, int64_t, int64_t)> call_{nullptr};
  std::atomic<int64_t> n_{0}, chunk_{0};
  alignas(64) std::atomic<int64_t> done_{0};  // chunks of the current job finished
  alignas(64) std::atomic<int> sleepers_{0};  // workers parked (or about to park) on wake_
  std::atomic<bool> busy_{false};             // a ParallelFor is in flight
  std::atomic<bool> stop_{false};
  uint32_t epoch_ = 0;  // the caller's side of the epoch (only touched while busy_ is held)
  std::mutex mu_;
  std::condition_variable wake_;
  std::mutex error_mu_;
  std::exception_ptr error_;  // first exception thrown by a chunk of the current job
};

template <typename F>
void ParallelForOrInline(ThreadPool* pool, int64_t n, int64_t grain, F&& fn) {
  if (pool) pool->ParallelFor(n, grain, fn);
  else fn(int64_t(0), n);
}

template <typename F>
void ParallelForContiguous(ThreadPool* pool, int64_t n, int64_t min_grain, F&& fn) {
  const int64_t threads = pool ? pool->size() : 1;
  ParallelForOrInline(pool, n, std::max<int64_t>(min_grain, (n + threads - 1) / threads), fn);
}

}  // namespace gebe::cpu
