// LatencySummary: bins within 1/64 of every value, quantiles by rank, the sliding window (slices
// that leave it stop counting, count and sum stay cumulative), and ModelStatistics' summaries.
#include <cmath>
#include <cstdint>
#include <vector>

#include "check.h"
#include "scheduler/latency_summary.h"
#include "scheduler/model_statistics.h"

using gebe::LatencySummary;

namespace {

constexpr int64_t kSecond = 1'000'000'000;

}  // namespace

TEST(LatencySummaryBinsStayWithinTheirError) {
  // Every bin's middle is within 1/64 of each value in the bin, and bins grow with the value.
  int last = -1;
  for (uint64_t v = 0; v < (1ULL << 42); v = v < 4096 ? v + 1 : v + v / 97 + 1) {
    const int bin = LatencySummary::BinOf(v);
    CHECK(bin >= last);
    CHECK(bin >= 0 && bin < LatencySummary::kBins);
    last = bin;
    if (v < (1ULL << 41)) {
      const double middle = LatencySummary::BinMiddleNs(bin);
      if (!(std::fabs(middle - double(v)) <= double(v) / 64)) {
        CHECK_EQ_CTX(middle, double(v), "bin " + std::to_string(bin));
        return;
      }
    }
  }
  CHECK_EQ(LatencySummary::BinOf(~0ULL), LatencySummary::kBins - 1);
  CHECK_EQ(LatencySummary::BinOf(7), 7);
  CHECK_EQ(LatencySummary::BinMiddleNs(7), 7.0);
}

TEST(LatencySummaryQuantilesFollowRank) {
  LatencySummary s;
  // 1..1000 µs, once each.
  for (int i = 1; i <= 1000; ++i) s.Observe(uint64_t(i) * 1000, 5 * kSecond);
  const auto r = s.Read({0, 0.5, 0.9, 0.99, 1}, 5 * kSecond);
  CHECK_EQ(r.count, uint64_t(1000));
  CHECK_EQ(r.sum_us, 500500.0);
  const double want[] = {1, 500, 900, 990, 1000};
  for (int i = 0; i < 5; ++i) {
    if (!(std::fabs(r.quantiles_us[size_t(i)] - want[i]) <= want[i] / 64)) CHECK_EQ_CTX(r.quantiles_us[size_t(i)], want[i], "quantile " + std::to_string(i));
  }
}

TEST(LatencySummaryEmptyWindowReadsNaN) {
  LatencySummary s;
  const auto r = s.Read({0.5}, kSecond);
  CHECK_EQ(r.count, uint64_t(0));
  CHECK(std::isnan(r.quantiles_us[0]));
}

TEST(LatencySummaryWindowSlides) {
  // 60 s in 5 slices of 12 s. Slow requests at t=1 s, fast ones from t=30 s on.
  LatencySummary s;
  for (int i = 0; i < 100; ++i) s.Observe(900'000, 1 * kSecond);  // 900 µs
  for (int i = 0; i < 100; ++i) s.Observe(10'000, 30 * kSecond);  // 10 µs
  auto r = s.Read({0.25, 0.75}, 40 * kSecond);
  CHECK(std::fabs(r.quantiles_us[0] - 10) <= 10.0 / 64);
  CHECK(std::fabs(r.quantiles_us[1] - 900) <= 900.0 / 64);
  // At 61 s the first slice (0-12 s) has left the window: only the fast ones remain.
  r = s.Read({0.75}, 61 * kSecond);
  CHECK(std::fabs(r.quantiles_us[0] - 10) <= 10.0 / 64);
  CHECK_EQ(r.count, uint64_t(200));  // count and sum stay cumulative
  CHECK_EQ(r.sum_us, 100 * 900.0 + 100 * 10.0);
  // 72-84 s reuses the slice of 12-24 s (index 6 % 5 == 1), empty till now; 24-36 s is still in.
  s.Observe(50'000, 73 * kSecond);
  r = s.Read({0, 1}, 73 * kSecond);
  CHECK(std::fabs(r.quantiles_us[0] - 10) <= 10.0 / 64);
  CHECK(std::fabs(r.quantiles_us[1] - 50) <= 50.0 / 64);
  // 144-156 s reuses the slice of 24-36 s (index 2): its fast requests are gone, and at 145 s the
  // window (96-156 s) holds only this one.
  s.Observe(400'000, 145 * kSecond);
  r = s.Read({0, 1}, 145 * kSecond);
  CHECK_EQ(r.quantiles_us[0], r.quantiles_us[1]);
  CHECK(std::fabs(r.quantiles_us[0] - 400) <= 400.0 / 64);
  // After two idle minutes nothing is left in the window.
  r = s.Read({0.5}, 250 * kSecond);
  CHECK(std::isnan(r.quantiles_us[0]));
}

TEST(LatencySummaryCountsManyAtOnce) {
  LatencySummary s;
  s.Observe(2'000, kSecond, 3);
  s.Observe(8'000, kSecond, 1);
  const auto r = s.Read({0.75, 1}, kSecond);
  CHECK_EQ(r.count, uint64_t(4));
  CHECK_EQ(r.sum_us, 14.0);
  CHECK(std::fabs(r.quantiles_us[0] - 2) <= 2.0 / 64);
  CHECK(std::fabs(r.quantiles_us[1] - 8) <= 8.0 / 64);
}

TEST(ModelStatisticsSummariesOnlyOnceEnabled) {
  gebe::ModelStatistics stats;
  gebe::ExecutionTimes times{1'000, 100'000, 2'000};
  stats.RecordSuccess(5'000, 110'000, times);
  CHECK(!stats.ReadSummaries({0.5}).has_value());
  stats.EnableSummaries();
  stats.EnableSummaries();
  stats.RecordSuccess(7'000, 120'000, times);
  const auto r = stats.ReadSummaries({0.5});
  CHECK(r.has_value());
  CHECK_EQ(r->request.count, uint64_t(1));
  CHECK(std::fabs(r->request.quantiles_us[0] - 120) <= 120.0 / 64);
  CHECK(std::fabs(r->queue.quantiles_us[0] - 7) <= 7.0 / 64);
  CHECK(std::fabs(r->compute_infer.quantiles_us[0] - 100) <= 100.0 / 64);
  CHECK_EQ(r->compute_output.sum_us, 2.0);
}
