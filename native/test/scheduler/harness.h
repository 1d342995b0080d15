// Drives a ModelScheduler like the N-API binding does: owns request input bytes until the
// hand-back, collects every delivered request exactly once, checks outputs against y = 2x.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "check.h"
#include "scheduler/model_scheduler.h"
#include "test_engine.h"

namespace testing {

struct Result {
  bool ok = false;
  int status = 0;
  std::string error;
  std::vector<float> y;
  std::vector<int64_t> shape;
  int deliveries = 0;
};

class Collector : public gebe::CompletionSink {
 public:
  void Deliver(std::unique_ptr<gebe::CompletedBatch> batch) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (batch->closed) {
      closed_ = true;
      cv_.notify_all();
      return;
    }
    if (closed_) ++after_close_;
    ++batches_;
    for (auto& r : batch->requests) {
      Result& res = results_[r->token];
      ++res.deliveries;
      res.ok = r->ok();
      res.status = TraitsOf(r->failure).http_status;
      res.error = r->error;
      if (r->ok() && batch->outputs && keep_values_) {
        const gebe::OutputSlice& s = r->outputs.at(0);
        const auto* base = static_cast<const uint8_t*>(batch->outputs->tensors.at(0).buffer.data());
        res.y.resize(s.byte_size / sizeof(float));
        std::memcpy(res.y.data(), base + s.offset, s.byte_size);
        res.shape = s.shape;
      } else if (r->ok() && batch->outputs) {
        // Stress mode: check in place instead of copying.
        const gebe::OutputSlice& s = r->outputs.at(0);
        const auto* y = reinterpret_cast<const float*>(
            static_cast<const uint8_t*>(batch->outputs->tensors.at(0).buffer.data()) + s.offset);
        const auto* x = static_cast<const float*>(r->inputs.at(0).data);
        for (size_t i = 0; i < s.byte_size / sizeof(float); ++i) {
          if (y[i] != 2 * x[i]) ++wrong_values_;
        }
      }
      order_.push_back(r->token);
      ++delivered_;
    }
    cv_.notify_all();
  }

  // A request the scheduler never sends back is a failure, not a hang: a minute is far beyond
  // any wait these tests set up.
  void WaitDelivered(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, std::chrono::seconds(60), [&] { return delivered_ >= n; })) {
      std::fprintf(stderr, "FAIL: %zu of %zu requests delivered after 60 s\n", delivered_, n);
      std::abort();
    }
  }
  void WaitClosed() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return closed_; });
  }
  Result Get(uint64_t token) {
    std::lock_guard<std::mutex> lock(mu_);
    return results_[token];
  }
  std::vector<uint64_t> Order() {
    std::lock_guard<std::mutex> lock(mu_);
    return order_;
  }
  size_t Delivered() {
    std::lock_guard<std::mutex> lock(mu_);
    return delivered_;
  }
  std::map<uint64_t, Result> Results() {
    std::lock_guard<std::mutex> lock(mu_);
    return results_;
  }
  size_t Batches() {
    std::lock_guard<std::mutex> lock(mu_);
    return batches_;
  }
  int AfterClose() {
    std::lock_guard<std::mutex> lock(mu_);
    return after_close_;
  }
  size_t WrongValues() {
    std::lock_guard<std::mutex> lock(mu_);
    return wrong_values_;
  }
  bool keep_values_ = true;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, Result> results_;
  std::vector<uint64_t> order_;
  size_t delivered_ = 0;
  size_t batches_ = 0;
  size_t wrong_values_ = 0;
  int after_close_ = 0;
  bool closed_ = false;
};

// Input memory for requests, alive for the whole test.
class Inputs {
 public:
  // A request of `rows` x `cols` FP32 values, all equal to `value` (except as given).
  std::unique_ptr<gebe::ScheduledRequest> Make(uint64_t token, int64_t rows, int64_t cols, float value,
                                               uint64_t shape_key = 0) {
    std::lock_guard<std::mutex> lock(mu_);
    auto data = std::make_unique<std::vector<float>>(static_cast<size_t>(rows * cols), value);
    auto r = std::make_unique<gebe::ScheduledRequest>();
    r->token = token;
    r->info.rows = rows;
    r->info.shape_key = shape_key ? shape_key : static_cast<uint64_t>(cols);
    r->inputs.push_back({"x", gebe::DataType::kFloat32, {rows, cols}, data->data(), data->size() * sizeof(float)});
    buffers_.push_back(std::move(data));
    return r;
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<std::vector<float>>> buffers_;
};

inline std::vector<std::unique_ptr<gebe::Session>> Sessions(int n, std::vector<int64_t> gears = {}, Gate* gate = nullptr,
                                                            RunLog* log = nullptr) {
  std::vector<std::unique_ptr<gebe::Session>> sessions;
  for (int i = 0; i < n; ++i) sessions.push_back(std::make_unique<DoublingSession>(gears, gate, log));
  return sessions;
}

}  // namespace testing
