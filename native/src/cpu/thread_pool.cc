#include "cpu/thread_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>
#endif

#include "thread_name.h"

namespace gebe::cpu {

namespace {

using Clock = std::chrono::steady_clock;

// How long an idle worker keeps polling before it parks: first briefly with the CPU's pause hint,
// then with sched_yield, then asleep on a condition variable. The pause phase is kept short: on
// an oversubscribed machine a pause-spinning worker that shares a core with the caller holds that
// core while the caller (the only thread that can publish work) waits; yield hands it back at
// once, and still notices a new job within a microsecond when the machine is idle.
constexpr auto kPauseSpin = std::chrono::microseconds(5);
constexpr auto kYieldSpin = std::chrono::microseconds(2000);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Polls `ready` with pause for up to `pause_for`, then with yield up to `yield_for`; true once ready.
template <typename Ready>
bool SpinUntil(Ready ready, Clock::duration pause_for, Clock::duration yield_for) {
  if (ready()) return true;
  const auto start = Clock::now();
  for (int i = 1;; ++i) {
    if (ready()) return true;
    // Reading the clock every few dozen polls keeps it off the fast path.
    if ((i & 31) == 0) {
      auto spent = Clock::now() - start;
      if (spent >= yield_for) return false;
      if (spent >= pause_for) {
        std::this_thread::yield();
        continue;
      }
    }
    CpuRelax();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::Wake() {
  // Pairs with the worker's sleepers_ increment + re-check under mu_: either the worker sees the
  // new state before it waits, or it is waiting and gets this notification.
  if (sleepers_.load() > 0) {
    { std::lock_guard<std::mutex> lock(mu_); }
    wake_.notify_all();
  }
}

void ThreadPool::Prewarm() {
  if (!workers_.empty()) Wake();
}

void ThreadPool::Work(uint64_t epoch) {
  for (;;) {
    uint64_t s = state_.load(std::memory_order_acquire);
    if ((s >> kEpochShift) != epoch) return;
    int64_t chunks = int64_t((s >> kChunksShift) & kMaxChunks), index = int64_t(s & kMaxChunks);
    if (index >= chunks) return;
    // Read before the claim. A successful claim means the job was still running, so the caller
    // cannot have replaced these with the next job's yet: they are this epoch's.
    int64_t n = n_.load(std::memory_order_relaxed), chunk = chunk_.load(std::memory_order_relaxed);
    void* fn = fn_.load(std::memory_order_relaxed);
    auto call = call_.load(std::memory_order_relaxed);
    if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_relaxed)) continue;
    int64_t begin = index * chunk;
    RunChunk(fn, call, begin, std::min(n, begin + chunk));
  }
}

void ThreadPool::RunChunk(void* fn, void (*call)(void*, int64_t, int64_t), int64_t begin, int64_t end) {
  try {
    call(fn, begin, end);
  } catch (...) {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (!error_) error_ = std::current_exception();
  }
  done_.fetch_add(1, std::memory_order_acq_rel);
}

void ThreadPool::WorkerLoop() {
  NameThisThread("gebe-intra-op");
  uint64_t seen = state_.load() >> kEpochShift;
  auto fresh = [&] { return (state_.load() >> kEpochShift) != seen || stop_.load(); };
  for (;;) {
    if (!SpinUntil(fresh, kPauseSpin, kYieldSpin)) {
      std::unique_lock<std::mutex> lock(mu_);
      sleepers_.fetch_add(1);
      // seq_cst increment, then the state check: pairs with Run's store, then sleepers_ read.
      if (!fresh()) wake_.wait(lock);
      sleepers_.fetch_sub(1);
      continue;  // a new job, a Prewarm or a spurious wake-up: spin (and work) again
    }
    if (stop_.load()) return;
    seen = state_.load(std::memory_order_acquire) >> kEpochShift;
    Work(seen);
  }
}

void ThreadPool::Run(int64_t n, int64_t grain, Body body) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  int64_t max_chunks = (n + grain - 1) / grain;
  if (workers_.empty() || max_chunks <= 1 || busy_.exchange(true, std::memory_order_acquire)) {
    body.call(body.fn, 0, n);
    return;
  }
  // A few chunks per participant balance uneven work and late workers without much claiming.
  int64_t chunks = std::min<int64_t>({max_chunks, int64_t(size()) * 4, int64_t(kMaxChunks)});
  int64_t chunk = (n + chunks - 1) / chunks;
  chunks = (n + chunk - 1) / chunk;
  fn_.store(body.fn, std::memory_order_relaxed);
  call_.store(body.call, std::memory_order_relaxed);
  n_.store(n, std::memory_order_relaxed);
  chunk_.store(chunk, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  uint64_t epoch = ++epoch_;
  // seq_cst: publishes the job, and is ordered before Wake's read of sleepers_. Chunk 0 is the
  // caller's before anyone can claim (index 1 is the next claimable), so the first range is always
  // this thread's: a spinning worker would otherwise win it about as often as not, and phases that
  // split the same data contiguously (ParallelForContiguous) would swap halves between cores.
  state_.store(epoch << kEpochShift | uint64_t(chunks) << kChunksShift | 1);
  Wake();
  RunChunk(body.fn, body.call, 0, std::min(n, chunk));
  Work(epoch);
  // Every chunk is claimed; wait for the ones still running on workers (each is at most one chunk).
  SpinUntil([&] { return done_.load(std::memory_order_acquire) == chunks; }, kPauseSpin, Clock::duration::max());
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(error_mu_);
    std::swap(error, error_);
  }
  busy_.store(false, std::memory_order_release);
  if (error) std::rethrow_exception(error);
}

}  // namespace gebe::cpu
