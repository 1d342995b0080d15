// Reliability: many callers, random priorities, timeouts, cancellations, shapes and rows against a
// model with several instances and gears. Every request must come back exactly once (a result or an
// error), values must be right, and the statistics must add up. STRESS_REQUESTS sets the
// total (default 1,000,000; the sanitizer builds run fewer).
#include <atomic>
#include <cstdlib>
#include <random>
#include <thread>

#include "harness.h"

using namespace testing;

namespace {

class CountingSink : public gebe::CompletionSink {
 public:
  explicit CountingSink(size_t n) : deliveries_(n) {}
  void Deliver(std::unique_ptr<gebe::CompletedBatch> batch) override {
    if (batch->closed) {
      closed_.store(true);
      return;
    }
    if (closed_.load()) after_close_.fetch_add(1);
    for (auto& r : batch->requests) {
      deliveries_[r->token].fetch_add(1);
      if (r->ok()) {
        ok_.fetch_add(1);
        ok_rows_.fetch_add(static_cast<uint64_t>(r->info.rows));
        const gebe::OutputSlice& s = r->outputs.at(0);
        const auto* y = reinterpret_cast<const float*>(
            static_cast<const uint8_t*>(batch->outputs->tensors.at(0).buffer.data()) + s.offset);
        const auto* x = static_cast<const float*>(r->inputs.at(0).data);
        const size_t n = s.byte_size / sizeof(float);
        if (n != static_cast<size_t>(r->info.rows * r->inputs[0].shape[1]) || s.shape[0] != r->info.rows) wrong_.fetch_add(1);
        for (size_t i = 0; i < n; ++i) {
          if (y[i] != 2 * x[i]) {
            wrong_.fetch_add(1);
            break;
          }
        }
      } else {
        errors_.fetch_add(1);
      }
      in_flight_.fetch_sub(1);
    }
  }
  std::vector<std::atomic<int>> deliveries_;
  std::atomic<uint64_t> ok_{0}, ok_rows_{0}, errors_{0}, wrong_{0};
  std::atomic<int64_t> in_flight_{0};
  std::atomic<int> after_close_{0};
  std::atomic<bool> closed_{false};
};

struct StressResult {
  uint64_t issued = 0, admission_rejected = 0;
};

size_t StressTotal() {
  const char* env = std::getenv("STRESS_REQUESTS");
  return env ? static_cast<size_t>(std::strtoull(env, nullptr, 10)) : 1000000;
}

gebe::BatchPolicy StressPolicy() {
  gebe::BatchPolicy p;
  p.dynamic_batching = true;
  p.max_batch_size = 16;
  p.preferred_batch_sizes = {4, 8};
  p.max_queue_delay_us = 50;
  p.priority_levels = 3;
  p.default_priority_level = 2;
  p.default_queue_policy.allow_timeout_override = true;
  p.priority_queue_policy[1].allow_timeout_override = true;
  p.priority_queue_policy[2].max_queue_size = 200;
  p.priority_queue_policy[2].allow_timeout_override = true;
  p.priority_queue_policy[3].timeout_action = gebe::TimeoutAction::kDelay;
  p.priority_queue_policy[3].default_timeout_us = 100;
  p.gears = {1, 2, 4, 8};
  p.Finalize();
  return p;
}

// Runs `total` requests from `callers` threads, each keeping up to 64 outstanding; stops the
// scheduler after `stop_after` requests were issued (0 = after all of them).
void RunStress(size_t total, int callers, size_t stop_after) {
  CountingSink sink(total);
  // Input memory: one value per (token, element) would be big; requests share 32 rows of
  // distinct values per shape instead (the values still differ between requests of a batch).
  std::vector<std::vector<float>> pool(2);
  for (int c = 0; c < 2; ++c) {
    pool[c].resize(8 * 3 * 64);
    for (size_t i = 0; i < pool[c].size(); ++i) pool[c][i] = static_cast<float>(i % 977) + 0.5f;
  }
  // Instances poll 20 µs for their next batch before sleeping: both idle paths get exercised.
  gebe::ModelScheduler s("stress", StressPolicy(), true, Sessions(3, {1, 2, 4, 8}), &sink, 20);
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> rejected{0};
  std::atomic<bool> stopped{false};
  std::vector<std::thread> threads;
  for (int c = 0; c < callers; ++c) {
    threads.emplace_back([&, c] {
      std::mt19937_64 rng(1234 + c);
      for (;;) {
        const size_t token = next.fetch_add(1);
        if (token >= total) return;
        if (stop_after > 0 && token == stop_after) {
          s.Stop();
          stopped.store(true);
        }
        while (sink.in_flight_.load() > 64 * callers) std::this_thread::yield();
        const int64_t cols = 2 + static_cast<int64_t>(rng() % 2);
        const int64_t rows = 1 + static_cast<int64_t>(rng() % 3);
        const size_t offset = static_cast<size_t>(rng() % 64) * 8 * 3;
        auto r = std::make_unique<gebe::ScheduledRequest>();
        r->token = token;
        r->info.rows = rows;
        r->info.shape_key = static_cast<uint64_t>(cols);
        r->inputs.push_back({"x", gebe::DataType::kFloat32, {rows, cols}, pool[cols - 2].data() + offset,
                             static_cast<size_t>(rows * cols) * sizeof(float)});
        const uint32_t priority = static_cast<uint32_t>(rng() % 4);
        const uint64_t timeout = rng() % 4 == 0 ? 20 + rng() % 500 : 0;
        // One request in 8 is cancelled by its caller right after it is queued: it may still wait
        // (dropped from the queue), run in a batch with live ones (answered), or run alone or
        // with cancelled ones only (the run stops).
        std::shared_ptr<std::atomic<int>> cancel;
        if (rng() % 8 == 0) r->js_cancel = cancel = std::make_shared<std::atomic<int>>(0);
        sink.in_flight_.fetch_add(1);
        if (!s.Enqueue(r, priority, timeout)) {
          sink.in_flight_.fetch_sub(1);
          rejected.fetch_add(1);
          sink.deliveries_[token].fetch_add(1);  // answered synchronously
        } else if (cancel) {
          cancel->store(int(rng() % 2 ? gebe::FailureReason::kCancelled : gebe::FailureReason::kDeadlineExceeded));
          s.NoteCancellation();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  s.Stop();
  CHECK(sink.closed_.load());
  CHECK_EQ(sink.after_close_.load(), 0);
  size_t lost = 0, duplicated = 0;
  for (auto& d : sink.deliveries_) {
    if (d.load() == 0) ++lost;
    if (d.load() > 1) ++duplicated;
  }
  CHECK_EQ(lost, size_t(0));
  CHECK_EQ(duplicated, size_t(0));
  CHECK_EQ(sink.wrong_.load(), uint64_t(0));
  CHECK_EQ(sink.ok_.load() + sink.errors_.load() + rejected.load(), uint64_t(total));
  gebe::StatisticsSnapshot st = s.Stats();
  CHECK_EQ(st.success.count, sink.ok_.load());
  CHECK_EQ(st.fail.count, sink.errors_.load() + rejected.load());
  CHECK_EQ(st.inference_count, sink.ok_rows_.load());
  CHECK_EQ(st.compute_infer.count, st.success.count);
  // Each request's total time holds its queue time and its batch's compute phases.
  CHECK(st.queue.ns <= st.success.ns);
  CHECK(st.compute_input.ns + st.compute_infer.ns + st.compute_output.ns <= st.success.ns);
  uint64_t executions = 0;
  for (const auto& [size, b] : st.batch_stats) executions += b.compute_infer.count;
  CHECK_EQ(executions, st.execution_count);
  CHECK_EQ(s.PendingCount(), size_t(0));
  std::printf("  %zu requests, %d callers%s: %llu ok (%llu rows in %llu executions), %llu errors, %llu rejected at admission\n",
              total, callers, stop_after ? " (stopped midway)" : "", (unsigned long long)sink.ok_.load(),
              (unsigned long long)st.inference_count, (unsigned long long)st.execution_count,
              (unsigned long long)sink.errors_.load(), (unsigned long long)rejected.load());
}

}  // namespace

TEST(StressEveryRequestAnsweredExactlyOnce) { RunStress(StressTotal(), 8, 0); }

TEST(StressStopDuringLoadAnswersEveryRequest) { RunStress(std::max<size_t>(StressTotal() / 10, 1000), 8, StressTotal() / 20); }
