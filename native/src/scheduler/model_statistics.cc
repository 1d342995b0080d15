#include "scheduler/model_statistics.h"

#include "scheduler/clock.h"

namespace gebe {

void ModelStatistics::RecordExecution(int64_t rows, const ExecutionTimes& times, uint64_t end_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.execution_count += 1;
  stats_.inference_count += static_cast<uint64_t>(rows);
  if (end_ms > stats_.last_inference_ms) stats_.last_inference_ms = end_ms;
  BatchStat& batch = stats_.batch_stats[rows];
  batch.compute_input.Add(times.input_ns);
  batch.compute_infer.Add(times.infer_ns);
  batch.compute_output.Add(times.output_ns);
}

void ModelStatistics::RecordSuccess(uint64_t queue_ns, uint64_t total_ns, const ExecutionTimes& batch_times) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.success.Add(total_ns);
  stats_.queue.Add(queue_ns);
  stats_.compute_input.Add(batch_times.input_ns);
  stats_.compute_infer.Add(batch_times.infer_ns);
  stats_.compute_output.Add(batch_times.output_ns);
  if (summaries_) {
    const int64_t now = SteadyNowNs();
    summaries_->request.Observe(total_ns, now);
    summaries_->queue.Observe(queue_ns, now);
    summaries_->compute_input.Observe(batch_times.input_ns, now);
    summaries_->compute_infer.Observe(batch_times.infer_ns, now);
    summaries_->compute_output.Observe(batch_times.output_ns, now);
  }
}

void ModelStatistics::RecordFailure(uint64_t total_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.fail.Add(total_ns);
}

StatisticsSnapshot ModelStatistics::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void ModelStatistics::EnableSummaries() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!summaries_) summaries_ = std::make_unique<LatencySummaries>();
}

std::optional<LatencySummaryReadings> ModelStatistics::ReadSummaries(const std::vector<double>& quantiles) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!summaries_) return std::nullopt;
  const int64_t now = SteadyNowNs();
  return LatencySummaryReadings{summaries_->request.Read(quantiles, now), summaries_->queue.Read(quantiles, now),
                                summaries_->compute_input.Read(quantiles, now),
                                summaries_->compute_infer.Read(quantiles, now),
                                summaries_->compute_output.Read(quantiles, now)};
}

}  // namespace gebe
