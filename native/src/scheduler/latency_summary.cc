#include "scheduler/latency_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gebe {

LatencySummary::LatencySummary(uint64_t max_age_ns, int slices)
    : slice_ns_(std::max<int64_t>(1, int64_t(max_age_ns / uint64_t(std::max(slices, 1))))),
      slices_(size_t(std::max(slices, 1))) {
  for (Slice& s : slices_) s.counts.assign(kBins, 0);
}

int LatencySummary::BinOf(uint64_t ns) {
  constexpr uint64_t kSub = 1ULL << kSubBits;
  if (ns < kSub) return int(ns);
  ns = std::min<uint64_t>(ns, (1ULL << (kMaxExponent + 1)) - 1);
  const int exponent = 63 - __builtin_clzll(ns);  // kSubBits..kMaxExponent
  const int mantissa = int((ns >> (exponent - kSubBits)) & (kSub - 1));
  return int(kSub) + ((exponent - kSubBits) << kSubBits) + mantissa;
}

double LatencySummary::BinMiddleNs(int bin) {
  constexpr int kSub = 1 << kSubBits;
  if (bin < kSub) return double(bin);
  const int shift = (bin - kSub) >> kSubBits;  // exponent - kSubBits
  const int mantissa = bin & (kSub - 1);
  const double low = std::ldexp(double(kSub + mantissa), shift);
  const double width = std::ldexp(1.0, shift);
  return low + (width - 1) / 2;  // the middle of the integers [low, low + width)
}

void LatencySummary::Observe(uint64_t ns, int64_t now_ns, uint64_t n) {
  if (n == 0) return;
  count_ += n;
  sum_ns_ += ns * n;
  const int64_t epoch = EpochOf(now_ns);
  Slice& slice = slices_[size_t(epoch % int64_t(slices_.size()))];
  if (slice.epoch != epoch) {
    // The slice held a period that has left the window: it starts over.
    std::fill(slice.counts.begin(), slice.counts.end(), 0);
    slice.epoch = epoch;
  }
  uint32_t& c = slice.counts[size_t(BinOf(ns))];
  c = uint32_t(std::min<uint64_t>(uint64_t(c) + n, std::numeric_limits<uint32_t>::max()));
}

LatencySummary::Reading LatencySummary::Read(const std::vector<double>& quantiles, int64_t now_ns) const {
  Reading r;
  r.count = count_;
  r.sum_us = double(sum_ns_) / 1000;
  const int64_t epoch = EpochOf(now_ns);
  const int64_t oldest = epoch - int64_t(slices_.size()) + 1;
  std::vector<uint64_t> merged(kBins, 0);
  uint64_t total = 0;
  for (const Slice& s : slices_) {
    if (s.epoch < oldest || s.epoch > epoch) continue;
    for (int b = 0; b < kBins; ++b) merged[size_t(b)] += s.counts[size_t(b)];
  }
  for (uint64_t c : merged) total += c;
  for (double q : quantiles) {
    if (total == 0) {
      r.quantiles_us.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    // The observation of rank ceil(q * total), counting from 1.
    const uint64_t rank = std::clamp<uint64_t>(uint64_t(std::ceil(q * double(total))), 1, total);
    uint64_t seen = 0;
    int bin = 0;
    for (; bin < kBins - 1; ++bin) {
      seen += merged[size_t(bin)];
      if (seen >= rank) break;
    }
    r.quantiles_us.push_back(BinMiddleNs(bin) / 1000);
  }
  return r;
}

}  // namespace gebe
