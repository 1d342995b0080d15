// A model's scheduling rules as plain data: Triton's ModelDynamicBatching + ModelQueuePolicy,
// plus the gears of engines that only run fixed batch sizes. Built once at load (from the
// config the TS facade has already validated) and read-only afterwards, so no locking.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace gebe {

enum class TimeoutAction { kReject, kDelay };

struct QueuePolicy {
  TimeoutAction timeout_action = TimeoutAction::kReject;
  uint64_t default_timeout_us = 0;  // 0 = requests never time out in the queue
  bool allow_timeout_override = false;
  uint32_t max_queue_size = 0;      // 0 = unbounded
};

struct BatchPolicy {
  // Without dynamic batching every request runs alone, in arrival order.
  bool dynamic_batching = false;
  // 0 = the model has no batch dimension (each request is its own execution).
  int64_t max_batch_size = 0;
  std::vector<int64_t> preferred_batch_sizes;  // ascending, each in [1, max_batch_size]
  uint64_t max_queue_delay_us = 0;
  bool preserve_ordering = false;
  uint32_t priority_levels = 0;        // 0 = one level
  uint32_t default_priority_level = 0;  // 1-based when priority_levels > 0
  QueuePolicy default_queue_policy;
  std::map<uint32_t, QueuePolicy> priority_queue_policy;  // key: 1-based level
  // Batch sizes the engine can run (ascending); empty = any size.
  std::vector<int64_t> gears;

  // Derived by Finalize(); read by DecideBatch on every decision.
  int64_t effective_max_batch = 1;
  std::vector<int64_t> target_sizes;

  // Call once after filling the fields above.
  void Finalize() {
    std::sort(gears.begin(), gears.end());
    gears.erase(std::unique(gears.begin(), gears.end()), gears.end());
    effective_max_batch = EffectiveMaxBatch();
    target_sizes = TargetSizes();
  }

  size_t LevelCount() const { return priority_levels == 0 ? 1 : priority_levels; }

  // Triton: priority 0 or above the number of levels means "the default level".
  size_t LevelIndex(uint32_t priority) const {
    if (priority_levels == 0) return 0;
    if (priority == 0 || priority > priority_levels) {
      uint32_t d = default_priority_level == 0 ? priority_levels : default_priority_level;
      return std::min<uint32_t>(d, priority_levels) - 1;
    }
    return priority - 1;
  }

  const QueuePolicy& PolicyForLevel(size_t index) const {
    auto it = priority_queue_policy.find(static_cast<uint32_t>(index + 1));
    return it == priority_queue_policy.end() ? default_queue_policy : it->second;
  }

  // The most rows one execution may hold: max_batch_size, capped by the largest gear.
  int64_t EffectiveMaxBatch() const {
    int64_t max = max_batch_size <= 0 ? 1 : max_batch_size;
    if (!gears.empty()) max = std::min(max, gears.back());
    return max;
  }

  // The sizes worth waiting for: the configured preferred sizes, or else the gears above 1 (a
  // batch of a gear size runs without padding; gear 1 would send every lone request at once
  // and make the queue delay pointless).
  std::vector<int64_t> TargetSizes() const {
    std::vector<int64_t> sizes;
    const bool from_gears = preferred_batch_sizes.empty();
    for (int64_t s : from_gears ? gears : preferred_batch_sizes) {
      if (s >= (from_gears ? 2 : 1) && s <= EffectiveMaxBatch()) sizes.push_back(s);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
  }

  // Rows the engine will actually run for `rows` requested rows: the smallest gear that fits,
  // or `rows` when the engine runs any size; -1 when no gear is large enough.
  int64_t PaddedRows(int64_t rows) const {
    if (gears.empty()) return rows;
    for (int64_t g : gears) {
      if (g >= rows) return g;
    }
    return -1;
  }
};

}  // namespace gebe
