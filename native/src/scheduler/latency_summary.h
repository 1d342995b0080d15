// A Prometheus summary of durations, for Triton's latency summaries (nv_inference_*_summary_us,
// `--metrics-config summary_latencies=true`): the count and sum of every observation since load,
// and quantiles over a sliding window of the last max_age (60 s in 5 slices by default, the
// defaults of prometheus-cpp's Summary, which Triton uses).
//
// Triton's quantiles come from CKMS sketches, with a rank error per quantile. Here each slice is a
// log-linear histogram instead (32 bins per power of two of nanoseconds): recording is one
// increment, memory is fixed whatever the traffic (kBins counters a slice), and a quantile is the
// middle of the bin that holds its rank, within 1/64 (1.6%) of the observation there. Durations of
// 2^41 ns (about 37 minutes) and more share the last bin.
//
// Not thread-safe: ModelStatistics calls it under its lock; a JS model's summary lives on the JS
// thread.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace gebe {

class LatencySummary {
 public:
  static constexpr int kSubBits = 5;                             // 32 bins per power of two
  static constexpr int kMaxExponent = 40;                        // the last power of two with bins of its own
  static constexpr int kBins = (kMaxExponent - kSubBits + 2) << kSubBits;
  static constexpr uint64_t kDefaultMaxAgeNs = 60'000'000'000ULL;
  static constexpr int kDefaultSlices = 5;

  explicit LatencySummary(uint64_t max_age_ns = kDefaultMaxAgeNs, int slices = kDefaultSlices);

  // `n` observations of `ns` nanoseconds each, made at `now_ns` (a monotonic clock).
  void Observe(uint64_t ns, int64_t now_ns, uint64_t n = 1);

  struct Reading {
    uint64_t count = 0;   // observations since load
    double sum_us = 0;    // their total, µs
    // One value per requested quantile, µs, over the window; NaN when the window is empty (as
    // prometheus-cpp answers).
    std::vector<double> quantiles_us;
  };
  // `quantiles` in [0, 1].
  Reading Read(const std::vector<double>& quantiles, int64_t now_ns) const;

  // The bin of a duration, and the value a bin stands for (exposed for the unit tests).
  static int BinOf(uint64_t ns);
  static double BinMiddleNs(int bin);

 private:
  struct Slice {
    int64_t epoch = -1;  // which slice_ns-long period of the clock its counts are from
    std::vector<uint32_t> counts;
  };
  int64_t EpochOf(int64_t now_ns) const { return now_ns / slice_ns_; }

  int64_t slice_ns_;
  std::vector<Slice> slices_;
  uint64_t count_ = 0;
  uint64_t sum_ns_ = 0;
};

}  // namespace gebe
