// A fixed-size intra-op thread pool. ParallelFor splits [0, n) into chunks and runs them on the
// workers and the calling thread; it returns when every chunk is done. One pool per session:
// sessions are driven by one thread at a time, so a pool never sees two ParallelFor calls at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
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
  void WorkerLoop();
  void RunChunks();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  // Guarded by mu_: the current job and how many workers are still inside it.
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  uint64_t generation_ = 0;
  int active_ = 0;
  bool stop_ = false;
  // The job's chunking; next_chunk_ is claimed atomically by every participant.
  int64_t n_ = 0, chunk_ = 0, chunks_ = 0;
  std::atomic<int64_t> next_chunk_{0};
};

}  // namespace gebe::cpu
