#include "cpu/thread_pool.h"

#include <algorithm>

namespace gebe::cpu {

namespace {
// Polls before a worker sleeps (about a millisecond at most): long enough to catch the next kernel of
// the same run, short enough not to burn a core between requests.
constexpr int kSpinPolls = 1000;
}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::RunChunks(Job& job) {
  for (;;) {
    int64_t c = job.next.fetch_add(1);
    if (c >= job.chunks) return;
    int64_t begin = c * job.chunk;
    (*job.fn)(begin, std::min(job.n, begin + job.chunk));
    job.done.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  for (;;) {
    for (int i = 0; i < kSpinPolls && generation_.load(std::memory_order_acquire) == seen; ++i) std::this_thread::yield();
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_.load() != seen; });
      if (stop_) return;
      seen = generation_.load();
      job = job_;
    }
    if (!job) continue;
    RunChunks(*job);
    if (job->done.load(std::memory_order_acquire) == job->chunks) {
      std::lock_guard<std::mutex> lock(mu_);
      finished_.notify_all();
    }
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  int64_t max_chunks = (n + grain - 1) / grain;
  if (workers_.empty() || max_chunks <= 1) {
    fn(0, n);
    return;
  }
  // A few chunks per participant balances uneven work without much claiming overhead.
  auto job = std::make_shared<Job>();
  int64_t chunks = std::min<int64_t>(max_chunks, int64_t(size()) * 4);
  job->fn = &fn;
  job->n = n;
  job->chunk = (n + chunks - 1) / chunks;
  job->chunks = (n + job->chunk - 1) / job->chunk;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = job;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  RunChunks(*job);
  for (int i = 0; i < kSpinPolls && job->done.load(std::memory_order_acquire) < job->chunks; ++i) std::this_thread::yield();
  std::unique_lock<std::mutex> lock(mu_);
  finished_.wait(lock, [&] { return job->done.load(std::memory_order_acquire) == job->chunks; });
  job_.reset();
}

}  // namespace gebe::cpu
