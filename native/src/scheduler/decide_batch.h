// The dynamic batcher's decision as one pure function: given the queued requests in service
// order and the time, either dispatch the first n of them now, wait w µs for more, or idle.
// No clocks, locks or threads here, so it is tested table-driven with an injected "now"
// (native/test/scheduler/decide_batch_test.cc).
//
// Rules (Triton's dynamic batcher, see docs/ascend-engine.md and reference/triton.md):
//  * Without dynamic batching, the first request is dispatched alone at once.
//  * A batch is a prefix of the service order: it grows while the next request has the same
//    non-batch shapes as the first (shape_key) and the rows still fit in max_batch_size (capped
//    by the largest gear). The first request that does not fit ends the batch.
//  * Dispatch at once when the batch reached the largest target size (preferred sizes, or the
//    gears above 1 when none are configured) or the maximum batch, or when a queued request could not
//    join (waiting cannot grow the batch), or when max_queue_delay is 0.
//  * Once the oldest request in the batch has waited max_queue_delay, dispatch all of it.
//  * Otherwise, when some prefix of the batch is exactly a target size, dispatch that prefix;
//    else wait for the rest of the delay.
//  * Rows between gears are padded up to the next gear (padded_rows).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "scheduler/batch_policy.h"

namespace gebe {

// What the decision needs to know about one queued request.
struct PendingInfo {
  int64_t rows = 1;         // batch rows (1 for models without a batch dimension)
  uint64_t shape_key = 0;   // equal keys <=> identical non-batch shapes and datatypes
  int64_t enqueue_us = 0;   // when the request entered the queue
};

struct BatchDecision {
  enum class Kind { kIdle, kWait, kDispatch };
  Kind kind = Kind::kIdle;
  size_t count = 0;         // kDispatch: requests taken from the front of the service order
  int64_t rows = 0;         // kDispatch: their rows
  int64_t padded_rows = 0;  // kDispatch: rows the engine runs (next gear up)
  int64_t wait_us = 0;      // kWait: decide again after this long (>= 1)

  static BatchDecision Idle() { return {}; }
  static BatchDecision Wait(int64_t us) {
    BatchDecision d;
    d.kind = Kind::kWait;
    d.wait_us = std::max<int64_t>(us, 1);
    return d;
  }
  static BatchDecision Dispatch(size_t count, int64_t rows, int64_t padded) {
    BatchDecision d;
    d.kind = Kind::kDispatch;
    d.count = count;
    d.rows = rows;
    d.padded_rows = padded;
    return d;
  }
};

// Queue: anything with size() and at(i) -> const PendingInfo& in service order.
template <class Queue>
BatchDecision DecideBatch(const Queue& queue, const BatchPolicy& policy, int64_t now_us) {
  const size_t size = queue.size();
  if (size == 0) return BatchDecision::Idle();

  const PendingInfo& first = queue.at(0);
  if (!policy.dynamic_batching) {
    return BatchDecision::Dispatch(1, first.rows, policy.PaddedRows(first.rows));
  }

  const int64_t max_rows = policy.effective_max_batch;
  const auto& targets = policy.target_sizes;
  const int64_t largest_target = targets.empty() ? max_rows : targets.back();

  size_t count = 0;
  int64_t rows = 0;
  int64_t oldest_us = first.enqueue_us;
  size_t best_target_count = 0;
  int64_t best_target_rows = 0;
  bool blocked = false;  // a queued request could not join this batch
  while (count < size) {
    const PendingInfo& next = queue.at(count);
    if (count > 0 && (next.shape_key != first.shape_key || rows + next.rows > max_rows)) {
      blocked = true;
      break;
    }
    rows += next.rows;
    oldest_us = std::min(oldest_us, next.enqueue_us);
    ++count;
    if (std::binary_search(targets.begin(), targets.end(), rows)) {
      best_target_count = count;
      best_target_rows = rows;
    }
    if (rows >= max_rows || rows >= largest_target) break;
  }

  auto dispatch = [&](size_t n, int64_t r) { return BatchDecision::Dispatch(n, r, policy.PaddedRows(r)); };
  if (rows >= max_rows || rows >= largest_target || blocked || policy.max_queue_delay_us == 0) {
    return dispatch(count, rows);
  }
  const int64_t waited = now_us - oldest_us;
  const int64_t delay = static_cast<int64_t>(policy.max_queue_delay_us);
  if (waited >= delay) return dispatch(count, rows);
  if (best_target_count > 0) return dispatch(best_target_count, best_target_rows);
  return BatchDecision::Wait(delay - waited);
}

}  // namespace gebe
