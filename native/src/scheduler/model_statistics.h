// Triton's statistics extension for one model: per-request success/fail/queue/compute_* as
// {count, ns}, inference_count (rows) vs execution_count (engine runs), last_inference (ms
// since the epoch) and batch_stats per executed batch size.
//
// Semantics as in Triton: every successful request adds its own queue time and the whole
// duration of the batch's compute phases (so compute_* counts equal success.count); batch_stats
// count executions. Thread-safe: instance threads record, the JS thread snapshots.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "scheduler/latency_summary.h"

namespace gebe {

struct StatDuration {
  uint64_t count = 0;
  uint64_t ns = 0;
  void Add(uint64_t duration_ns, uint64_t n = 1) {
    count += n;
    ns += duration_ns;
  }
};

struct BatchStat {
  StatDuration compute_input;
  StatDuration compute_infer;
  StatDuration compute_output;
};

struct StatisticsSnapshot {
  uint64_t last_inference_ms = 0;
  uint64_t inference_count = 0;
  uint64_t execution_count = 0;
  StatDuration success, fail, queue, compute_input, compute_infer, compute_output;
  std::map<int64_t, BatchStat> batch_stats;
};

// Triton's per-request latency summaries (--metrics-config summary_latencies=true), by family.
struct LatencySummaries {
  LatencySummary request, queue, compute_input, compute_infer, compute_output;
};

struct LatencySummaryReadings {
  LatencySummary::Reading request, queue, compute_input, compute_infer, compute_output;
};

// The durations of one executed batch.
struct ExecutionTimes {
  uint64_t input_ns = 0;
  uint64_t infer_ns = 0;
  uint64_t output_ns = 0;
};

class ModelStatistics {
 public:
  // One engine execution of `rows` rows served `requests` requests.
  void RecordExecution(int64_t rows, const ExecutionTimes& times, uint64_t end_ms);
  // A request that succeeded: its queue time and total time (enqueue to completion).
  void RecordSuccess(uint64_t queue_ns, uint64_t total_ns, const ExecutionTimes& batch_times);
  void RecordFailure(uint64_t total_ns);
  StatisticsSnapshot Snapshot() const;
  // From now on each success is observed by the latency summaries too (idempotent).
  void EnableSummaries();
  // The summaries' readings at `quantiles`; none until EnableSummaries.
  std::optional<LatencySummaryReadings> ReadSummaries(const std::vector<double>& quantiles) const;

 private:
  mutable std::mutex mu_;
  StatisticsSnapshot stats_;                      // guarded by mu_
  std::unique_ptr<LatencySummaries> summaries_;  // guarded by mu_
};

}  // namespace gebe
