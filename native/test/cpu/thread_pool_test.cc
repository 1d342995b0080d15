// Tests of the cpu engine's intra-op ThreadPool, built and run under AddressSanitizer +
// UndefinedBehaviorSanitizer (run-asan.sh) and ThreadSanitizer (run-tsan.sh): every index is
// covered exactly once for many sizes, grains and pool sizes (including more threads than
// cores), workers that park and are woken again, nested and concurrent calls (which run
// inline), exceptions from a chunk, and pools created and destroyed in quick succession.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cpu/thread_pool.h"

#include "check.h"

using gebe::cpu::ThreadPool;

namespace {

// Runs one ParallelFor and checks each index in [0, n) was visited exactly once.
void CheckCoverage(ThreadPool& pool, int64_t n, int64_t grain, const std::string& what) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  for (auto& h : hits) h.store(0);
  pool.ParallelFor(n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[size_t(i)].fetch_add(1, std::memory_order_relaxed);
  });
  for (int64_t i = 0; i < n; ++i) {
    if (hits[size_t(i)].load() != 1) {
      Check(false, what + ": index " + std::to_string(i) + " visited " + std::to_string(hits[size_t(i)].load()) + " times");
      return;
    }
  }
}

void Coverage() {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    Check(pool.size() == threads, "pool size " + std::to_string(threads));
    for (int64_t n : {0, 1, 2, 7, 64, 1000, 100003}) {
      for (int64_t grain : {1, 3, 64, 1 << 20}) {
        CheckCoverage(pool, n, grain, std::to_string(threads) + " threads, n=" + std::to_string(n) + ", grain=" + std::to_string(grain));
      }
    }
    // Many small jobs back to back: the epoch handoff between consecutive calls.
    std::atomic<int64_t> total{0};
    for (int r = 0; r < 2000; ++r) {
      pool.ParallelFor(16, 1, [&](int64_t b, int64_t e) { total.fetch_add(e - b, std::memory_order_relaxed); });
    }
    Check(total.load() == 2000 * 16, "back-to-back jobs cover every index");
    // Back-to-back jobs whose chunk counts differ: a worker still looking at the previous job
    // must not claim a chunk of the next one with the previous job's bookkeeping.
    int64_t expected = 0;
    total.store(0);
    for (int r = 0; r < 5000; ++r) {
      int64_t n = 2 + r % 61;
      expected += n;
      pool.ParallelFor(n, 1, [&](int64_t b, int64_t e) { total.fetch_add(e - b, std::memory_order_relaxed); });
    }
    Check(total.load() == expected, "back-to-back jobs of varying size cover every index");
  }
}

// ParallelForContiguous: every index once, in at most one contiguous range per thread, none but
// the last shorter than min_grain.
void Contiguous() {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 2, 7, 58, 197, 100003}) {
      for (int64_t min_grain : {1, 8, 1 << 20}) {
        const std::string what = "contiguous, " + std::to_string(threads) + " threads, n=" + std::to_string(n) +
                                 ", min_grain=" + std::to_string(min_grain);
        std::mutex mu;
        std::vector<std::pair<int64_t, int64_t>> ranges;
        gebe::cpu::ParallelForContiguous(&pool, n, min_grain, [&](int64_t b, int64_t e) {
          std::lock_guard<std::mutex> lock(mu);
          ranges.emplace_back(b, e);
        });
        std::sort(ranges.begin(), ranges.end());
        int64_t next = 0;
        for (const auto& [b, e] : ranges) {
          Check(b == next && e > b, what + ": ranges tile [0, n)");
          Check(e - b >= min_grain || e == n, what + ": a range shorter than min_grain");
          next = e;
        }
        Check(next == n, what + ": covers [0, n)");
        Check(int64_t(ranges.size()) <= threads, what + ": at most one range per thread");
      }
    }
  }
}

void ParkAndWake() {
  ThreadPool pool(3);
  for (int round = 0; round < 3; ++round) {
    // Long enough for the workers to give up spinning and park.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (round == 1) pool.Prewarm();
    CheckCoverage(pool, 5000, 10, "after parking, round " + std::to_string(round));
  }
  pool.Prewarm();  // with the workers spinning: nothing to do
  CheckCoverage(pool, 5000, 10, "after a prewarm");
}

void NestedAndConcurrent() {
  ThreadPool pool(2);
  std::atomic<int64_t> inner{0};
  pool.ParallelFor(8, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      pool.ParallelFor(100, 1, [&](int64_t ib, int64_t ie) { inner.fetch_add(ie - ib, std::memory_order_relaxed); });
    }
  });
  Check(inner.load() == 800, "nested ParallelFor runs every inner index");

  std::atomic<int64_t> sum{0};
  auto caller = [&] {
    for (int r = 0; r < 300; ++r) {
      pool.ParallelFor(64, 1, [&](int64_t b, int64_t e) { sum.fetch_add(e - b, std::memory_order_relaxed); });
    }
  };
  std::thread a(caller), b(caller);
  a.join();
  b.join();
  Check(sum.load() == 2 * 300 * 64, "concurrent callers each get every index");
}

void Exceptions() {
  ThreadPool pool(2);
  for (int round = 0; round < 20; ++round) {
    bool threw = false;
    try {
      pool.ParallelFor(64, 1, [&](int64_t b, int64_t) {
        if (b == (round * 7) % 64 / 8 * 8) throw std::runtime_error("chunk failed");  // chunks are 8 wide
      });
    } catch (const std::runtime_error&) {
      threw = true;
    }
    Check(threw, "an exception in a chunk reaches the caller");
    CheckCoverage(pool, 1000, 1, "after an exception");
  }
}

void CreateDestroy() {
  for (int i = 0; i < 50; ++i) {
    ThreadPool pool(1 + i % 4);
    if (i % 2) CheckCoverage(pool, 100, 1, "short-lived pool");
  }
}

}  // namespace

int main() {
  Coverage();
  Contiguous();
  ParkAndWake();
  NestedAndConcurrent();
  Exceptions();
  CreateDestroy();
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("thread pool: all checks passed\n");
  return 0;
}
