// Table-driven tests of DecideBatch: every rule of the dynamic batcher with an injected clock.
#include <string>
#include <vector>

#include "check.h"
#include "scheduler/decide_batch.h"

namespace {

using gebe::BatchDecision;
using gebe::BatchPolicy;
using gebe::PendingInfo;

struct Queue {
  std::vector<PendingInfo> items;
  size_t size() const { return items.size(); }
  const PendingInfo& at(size_t i) const { return items[i]; }
};

struct Expect {
  BatchDecision::Kind kind;
  size_t count = 0;
  int64_t rows = 0;
  int64_t padded = 0;
  int64_t wait_us = 0;
};

struct Case {
  std::string name;
  BatchPolicy policy;
  std::vector<PendingInfo> queue;  // {rows, shape_key, enqueue_us}
  int64_t now_us;
  Expect expect;
};

BatchPolicy Dynamic(int64_t max, std::vector<int64_t> preferred, uint64_t delay_us, std::vector<int64_t> gears = {}) {
  BatchPolicy p;
  p.dynamic_batching = true;
  p.max_batch_size = max;
  p.preferred_batch_sizes = std::move(preferred);
  p.max_queue_delay_us = delay_us;
  p.gears = std::move(gears);
  return p;
}

BatchPolicy Plain(int64_t max, std::vector<int64_t> gears = {}) {
  BatchPolicy p;
  p.max_batch_size = max;
  p.gears = std::move(gears);
  return p;
}

std::vector<PendingInfo> Ones(int n, int64_t enqueue_us = 0, uint64_t key = 1) {
  return std::vector<PendingInfo>(n, PendingInfo{1, key, enqueue_us});
}

const auto kIdle = BatchDecision::Kind::kIdle;
const auto kWait = BatchDecision::Kind::kWait;
const auto kGo = BatchDecision::Kind::kDispatch;

std::vector<Case> Cases() {
  return {
      {"empty queue idles", Dynamic(8, {}, 100), {}, 0, {kIdle}},
      {"without dynamic batching the first request runs alone", Plain(8), Ones(3), 0, {kGo, 1, 1, 1}},
      {"without dynamic batching a request is padded up to a gear", Plain(8, {1, 2, 4, 8}),
       {{3, 1, 0}, {1, 1, 0}}, 0, {kGo, 1, 3, 4}},
      {"model without batch dimension runs one request per execution", Plain(0), Ones(2), 0, {kGo, 1, 1, 1}},
      {"waits for the rest of the queue delay", Dynamic(8, {}, 100), Ones(2, 0), 10, {kWait, 0, 0, 0, 90}},
      {"delay counted in microseconds from the oldest request", Dynamic(8, {}, 100), {{1, 1, 1000}, {1, 1, 1020}}, 1037,
       {kWait, 0, 0, 0, 63}},
      {"oldest request in the batch sets the delay, not the first in service order", Dynamic(8, {}, 100),
       {{1, 1, 50}, {1, 1, 10}}, 60, {kWait, 0, 0, 0, 50}},
      {"delay exceeded dispatches everything that fits", Dynamic(8, {}, 100), Ones(3, 0), 100, {kGo, 3, 3, 3}},
      {"zero delay dispatches at once", Dynamic(8, {}, 0), Ones(3, 0), 0, {kGo, 3, 3, 3}},
      {"max_batch_size reached dispatches at once", Dynamic(4, {}, 1000), Ones(6, 0), 0, {kGo, 4, 4, 4}},
      {"largest preferred size reached dispatches at once", Dynamic(16, {4, 8}, 1000), Ones(9, 0), 0, {kGo, 8, 8, 8}},
      {"a preferred prefix is dispatched without waiting", Dynamic(16, {4, 8}, 1000), Ones(5, 0), 0, {kGo, 4, 4, 4}},
      {"below every preferred size it waits", Dynamic(16, {4, 8}, 1000), Ones(3, 0), 0, {kWait, 0, 0, 0, 1000}},
      {"below every preferred size, after the delay it sends what it has", Dynamic(16, {4, 8}, 1000), Ones(3, 0), 1000,
       {kGo, 3, 3, 3}},
      {"a request with other non-batch shapes ends the batch and sends it now", Dynamic(8, {}, 1000),
       {{1, 1, 0}, {1, 1, 0}, {1, 2, 0}, {1, 1, 0}}, 0, {kGo, 2, 2, 2}},
      {"a request that would overflow max_batch_size ends the batch", Dynamic(8, {}, 1000),
       {{4, 1, 0}, {3, 1, 0}, {2, 1, 0}}, 0, {kGo, 2, 7, 7}},
      {"multi-row requests count rows, not requests", Dynamic(8, {4}, 1000), {{2, 1, 0}, {2, 1, 0}, {2, 1, 0}}, 0,
       {kGo, 2, 4, 4}},
      {"gears act as preferred sizes when none are configured", Dynamic(8, {}, 1000, {1, 2, 4, 8}), Ones(3, 0), 0,
       {kGo, 2, 2, 2}},
      {"gear 1 does not send a lone request before the delay", Dynamic(8, {}, 1000, {1, 2, 4, 8}), Ones(1, 0), 0,
       {kWait, 0, 0, 0, 1000}},
      {"after the delay a preferred prefix does not hold back the rest", Dynamic(16, {4, 8}, 1000), Ones(5, 0), 1000,
       {kGo, 5, 5, 5}},
      {"a batch between gears is padded to the next gear", Dynamic(8, {}, 100, {1, 4, 8}), Ones(3, 0), 100,
       {kGo, 3, 3, 4}},
      {"preferred sizes win over gears and are padded", Dynamic(8, {3}, 100, {1, 2, 4, 8}), Ones(3, 0), 0,
       {kGo, 3, 3, 4}},
      {"the largest gear caps max_batch_size", Dynamic(16, {}, 1000, {1, 2, 4, 8}), Ones(12, 0), 0, {kGo, 8, 8, 8}},
      {"preferred sizes above max_batch_size are ignored", Dynamic(4, {2, 32}, 1000), Ones(3, 0), 0, {kGo, 2, 2, 2}},
      {"a single request at max_batch_size goes at once", Dynamic(4, {}, 1000), {{4, 1, 0}}, 0, {kGo, 1, 4, 4}},
  };
}

}  // namespace

TEST(DecideBatchTable) {
  for (Case c : Cases()) {
    c.policy.Finalize();
    Queue q{c.queue};
    BatchDecision d = gebe::DecideBatch(q, c.policy, c.now_us);
    CHECK_EQ_CTX(static_cast<int>(d.kind), static_cast<int>(c.expect.kind), c.name);
    if (c.expect.kind == kGo) {
      CHECK_EQ_CTX(d.count, c.expect.count, c.name);
      CHECK_EQ_CTX(d.rows, c.expect.rows, c.name);
      CHECK_EQ_CTX(d.padded_rows, c.expect.padded, c.name);
    }
    if (c.expect.kind == kWait) CHECK_EQ_CTX(d.wait_us, c.expect.wait_us, c.name);
  }
}

TEST(DecideBatchWaitIsNeverZero) {
  BatchPolicy p = Dynamic(8, {}, 100);
  p.Finalize();
  Queue q{Ones(1, 0)};
  // 99 µs waited of 100: one more microsecond, never a busy "wait 0".
  BatchDecision d = gebe::DecideBatch(q, p, 99);
  CHECK(d.kind == kWait);
  CHECK_EQ(d.wait_us, 1);
}
