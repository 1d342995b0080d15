// A tiny engine compiled only into the scheduler tests: y = 2x over FP32 input "x" of dims
// [-1, -1] (batch plus one free dim). It records every run's batch rows, can hold a run at a
// gate until the test opens it (so tests order events without timing), and fails a run whose
// first element is -1.
#pragma once

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "engine/engine.h"

namespace testing {

// Runs whose first input element equals `value` wait until Open(value).
class Gate {
 public:
  void Hold(float value) {
    std::lock_guard<std::mutex> lock(mu_);
    held_.push_back(value);
  }
  void Open(float value) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = held_.begin(); it != held_.end(); ++it) {
      if (*it == value) {
        held_.erase(it);
        break;
      }
    }
    cv_.notify_all();
  }
  // Returns once a run with first element `value` waits at (or has passed) the gate.
  void WaitArrived(float value) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
      for (float v : arrived_) if (v == value) return true;
      return false;
    });
  }
  void Pass(float value) {
    std::unique_lock<std::mutex> lock(mu_);
    arrived_.push_back(value);
    cv_.notify_all();
    cv_.wait(lock, [&] {
      for (float v : held_) if (v == value) return false;
      return true;
    });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<float> held_;
  std::vector<float> arrived_;
};

struct RunLog {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int64_t> rows;  // batch rows of every finished run, in finishing order
  void Add(int64_t r) {
    std::lock_guard<std::mutex> lock(mu);
    rows.push_back(r);
    cv.notify_all();
  }
  std::vector<int64_t> Snapshot() {
    std::lock_guard<std::mutex> lock(mu);
    return rows;
  }
  void WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return rows.size() >= n; });
  }
};

class DoublingSession : public gebe::Session {
 public:
  DoublingSession(std::vector<int64_t> gears, Gate* gate, RunLog* log) : gears_(std::move(gears)), gate_(gate), log_(log) {
    inputs_.push_back({"x", gebe::DataType::kFloat32, {-1, -1}, {"batch", ""}});
    outputs_.push_back({"y", gebe::DataType::kFloat32, {-1, -1}, {"batch", ""}});
  }
  const std::vector<gebe::TensorDesc>& inputs() const override { return inputs_; }
  const std::vector<gebe::TensorDesc>& outputs() const override { return outputs_; }
  std::vector<int64_t> gears() const override { return gears_; }
  gebe::CompileReport compile(const std::vector<gebe::NamedShape>&) override { return {}; }
  const char* engine_name() const override { return "test"; }

  // Asks `stop` once, after its gate (as the CPU engine asks between steps).
  void run(const std::vector<gebe::TensorView>& inputs, std::vector<gebe::Tensor>& outputs,
           const gebe::RunStop* stop = nullptr) override {
    const gebe::TensorView& x = inputs.at(0);
    const auto* in = static_cast<const float*>(x.data);
    const int64_t n = gebe::ElementCount(x.shape);
    if (n > 0 && gate_) gate_->Pass(in[0]);
    if (stop != nullptr && stop->Requested()) throw gebe::RunCancelled("stopped");
    if (!gears_.empty()) {
      bool is_gear = false;
      for (int64_t g : gears_) is_gear |= g == x.shape[0];
      if (!is_gear) throw gebe::EngineError("batch " + std::to_string(x.shape[0]) + " is not a gear");
    }
    if (n > 0 && in[0] == -1.0f) throw gebe::EngineError("poisoned input");
    gebe::Tensor y;
    y.name = "y";
    y.dtype = gebe::DataType::kFloat32;
    y.shape = x.shape;
    y.buffer = gebe::AlignedBuffer(static_cast<size_t>(n) * sizeof(float));
    auto* out = static_cast<float*>(y.buffer.data());
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] * 2.0f;
    outputs.clear();
    outputs.push_back(std::move(y));
    if (log_) log_->Add(x.shape[0]);
  }

 private:
  std::vector<int64_t> gears_;
  Gate* gate_;
  RunLog* log_;
  std::vector<gebe::TensorDesc> inputs_, outputs_;
};

}  // namespace testing
