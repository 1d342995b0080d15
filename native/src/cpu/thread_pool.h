// A fixed-size intra-op thread pool. ParallelFor splits [0, n) into chunks that the caller and
// the workers claim from a shared counter; it returns as soon as every chunk is done, without
// waiting for workers that have not woken up yet (on a busy machine a sleeping worker must not
// stall the caller). Workers spin briefly before sleeping so back-to-back kernels of one run
// do not pay a wake-up each. One pool per session: a session is driven by one thread at a time,
// so a pool never sees two ParallelFor calls at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gebe::cpu {

class ThreadPool {
 public:
  // threads = total parallelism including the caller; 0 = one per core.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }

  // Calls fn(begin, end) over chunks of [0, n); chunks hold at least `grain` items.
  void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

 private:
  // One ParallelFor call. Shared with workers by shared_ptr: a worker that wakes after the call
  // returned still holds a valid job, finds no chunk left and never touches `fn`.
  struct Job {
    const std::function<void(int64_t, int64_t)>* fn = nullptr;
    int64_t n = 0, chunk = 0, chunks = 0;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
  };

  void WorkerLoop();
  static void RunChunks(Job& job);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;      // workers wait for a new job
  std::condition_variable finished_;  // the caller waits for the last chunk
  // Guarded by mu_ (and published through generation_ for the spinning fast path).
  std::shared_ptr<Job> job_;
  std::atomic<uint64_t> generation_{0};
  bool stop_ = false;
};

}  // namespace gebe::cpu
