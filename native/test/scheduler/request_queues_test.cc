// RequestQueues: priority service order, max_queue_size admission, queue timeouts with REJECT
// and DELAY, per-request timeout overrides — with an injected clock.
#include <memory>
#include <vector>

#include "check.h"
#include "scheduler/request_queues.h"

namespace {

struct Item {
  gebe::PendingInfo info;
  int id = 0;
};

using Queues = gebe::RequestQueues<Item>;

gebe::AdmitResult Push(Queues& q, int id, uint32_t priority, uint64_t timeout_us, int64_t now) {
  auto item = std::make_unique<Item>();
  item->id = id;
  return q.Push(item, priority, timeout_us, now);
}

std::vector<int> Order(const Queues& q) {
  std::vector<int> ids;
  for (size_t i = 0; i < q.size(); ++i) ids.push_back(q.ItemAt(i).id);
  return ids;
}

std::vector<int> Ids(const std::vector<std::unique_ptr<Item>>& items) {
  std::vector<int> ids;
  for (const auto& i : items) ids.push_back(i->id);
  return ids;
}

gebe::BatchPolicy Levels(uint32_t levels, uint32_t default_level) {
  gebe::BatchPolicy p;
  p.dynamic_batching = true;
  p.max_batch_size = 8;
  p.priority_levels = levels;
  p.default_priority_level = default_level;
  p.Finalize();
  return p;
}

}  // namespace

TEST(QueuesServeHigherPriorityFirstAndFifoWithinALevel) {
  gebe::BatchPolicy p = Levels(3, 2);
  Queues q(p);
  Push(q, 1, 3, 0, 0);
  Push(q, 2, 2, 0, 1);
  Push(q, 3, 1, 0, 2);
  Push(q, 4, 2, 0, 3);
  CHECK_EQ(Order(q), (std::vector<int>{3, 2, 4, 1}));
  CHECK_EQ(q.at(0).enqueue_us, 2);
}

TEST(QueuesMapPriorityZeroAndOutOfRangeToTheDefaultLevel) {
  gebe::BatchPolicy p = Levels(3, 2);
  Queues q(p);
  Push(q, 1, 3, 0, 0);
  Push(q, 2, 0, 0, 0);   // default level 2
  Push(q, 3, 99, 0, 0);  // beyond the levels: default level 2
  CHECK_EQ(q.LevelSize(1), size_t(2));
  CHECK_EQ(Order(q), (std::vector<int>{2, 3, 1}));
}

TEST(QueuesWithoutLevelsKeepArrivalOrder) {
  gebe::BatchPolicy p = Levels(0, 0);
  Queues q(p);
  Push(q, 1, 5, 0, 0);
  Push(q, 2, 1, 0, 0);
  CHECK_EQ(Order(q), (std::vector<int>{1, 2}));
}

TEST(QueuesRejectAboveMaxQueueSizePerLevel) {
  gebe::BatchPolicy p = Levels(2, 1);
  p.priority_queue_policy[2].max_queue_size = 1;
  p.default_queue_policy.max_queue_size = 2;
  Queues q(p);
  CHECK(Push(q, 1, 2, 0, 0) == gebe::AdmitResult::kQueued);
  CHECK(Push(q, 2, 2, 0, 0) == gebe::AdmitResult::kQueueFull);
  CHECK(Push(q, 3, 1, 0, 0) == gebe::AdmitResult::kQueued);
  CHECK(Push(q, 4, 1, 0, 0) == gebe::AdmitResult::kQueued);
  CHECK(Push(q, 5, 1, 0, 0) == gebe::AdmitResult::kQueueFull);
  CHECK_EQ(q.size(), size_t(3));
  q.PopFront(1);
  CHECK(Push(q, 6, 1, 0, 0) == gebe::AdmitResult::kQueued);
}

TEST(QueuesRejectAtTheDefaultTimeout) {
  gebe::BatchPolicy p = Levels(0, 0);
  p.default_queue_policy.default_timeout_us = 100;
  Queues q(p);
  Push(q, 1, 0, 0, 1000);
  Push(q, 2, 0, 0, 1050);
  CHECK_EQ(q.NextDeadline(), 1100);
  CHECK(q.ExpireDue(1099).empty());
  CHECK_EQ(Ids(q.ExpireDue(1100)), (std::vector<int>{1}));
  CHECK_EQ(Order(q), (std::vector<int>{2}));
  CHECK_EQ(Ids(q.ExpireDue(1150)), (std::vector<int>{2}));
  CHECK(q.empty());
  CHECK_EQ(q.NextDeadline(), Queues::kNever);
}

TEST(QueuesIgnoreRequestTimeoutsUnlessOverridesAreAllowed) {
  gebe::BatchPolicy p = Levels(2, 1);
  p.default_queue_policy.default_timeout_us = 0;
  p.priority_queue_policy[2].allow_timeout_override = true;
  Queues q(p);
  Push(q, 1, 1, 10, 0);  // level 1: override not allowed, no timeout at all
  Push(q, 2, 2, 10, 0);  // level 2: its own 10 µs
  CHECK_EQ(Ids(q.ExpireDue(10)), (std::vector<int>{2}));
  CHECK(q.ExpireDue(1000000).empty());
  CHECK_EQ(Order(q), (std::vector<int>{1}));
}

TEST(QueuesOverrideReplacesTheDefaultTimeout) {
  gebe::BatchPolicy p = Levels(0, 0);
  p.default_queue_policy.default_timeout_us = 1000;
  p.default_queue_policy.allow_timeout_override = true;
  Queues q(p);
  Push(q, 1, 0, 50, 0);
  Push(q, 2, 0, 0, 0);  // no override: the default
  CHECK_EQ(Ids(q.ExpireDue(50)), (std::vector<int>{1}));
  CHECK(q.ExpireDue(999).empty());
  CHECK_EQ(Ids(q.ExpireDue(1000)), (std::vector<int>{2}));
}

TEST(QueuesDelayMovesExpiredRequestsBehindTheirLevel) {
  gebe::BatchPolicy p = Levels(2, 1);
  p.priority_queue_policy[1].timeout_action = gebe::TimeoutAction::kDelay;
  p.priority_queue_policy[1].default_timeout_us = 100;
  Queues q(p);
  Push(q, 1, 1, 0, 0);
  Push(q, 2, 2, 0, 0);
  Push(q, 3, 1, 0, 50);
  CHECK(q.ExpireDue(100).empty());  // delayed, not rejected
  Push(q, 4, 1, 0, 120);
  CHECK_EQ(Order(q), (std::vector<int>{3, 4, 1, 2}));  // delayed 1 after on-time 3 and 4, before level 2
  CHECK(q.ExpireDue(150).empty());
  CHECK_EQ(Order(q), (std::vector<int>{4, 1, 3, 2}));
  // Delayed requests never time out again.
  CHECK_EQ(q.NextDeadline(), 220);
  CHECK_EQ(Ids(q.PopFront(2)), (std::vector<int>{4, 1}));
  CHECK_EQ(q.NextDeadline(), Queues::kNever);
  CHECK_EQ(q.size(), size_t(2));
}

TEST(QueuesPopAcrossLevelsAndDrain) {
  gebe::BatchPolicy p = Levels(2, 2);
  p.default_queue_policy.default_timeout_us = 10;
  Queues q(p);
  for (int i = 0; i < 5; ++i) Push(q, i, i % 2 + 1, 0, 0);
  CHECK_EQ(Ids(q.PopFront(3)), (std::vector<int>{0, 2, 4}));
  CHECK_EQ(Ids(q.DrainAll()), (std::vector<int>{1, 3}));
  CHECK(q.empty());
  CHECK(q.ExpireDue(100).empty());  // popped requests left no deadlines behind
}

TEST(QueuesClampAbsurdTimeoutsInsteadOfOverflowing) {
  gebe::BatchPolicy p = Levels(0, 0);
  p.default_queue_policy.allow_timeout_override = true;
  Queues q(p);
  Push(q, 1, 0, ~uint64_t(0), 1000);
  CHECK(q.NextDeadline() > 1000);  // far in the future, not wrapped into the past
  CHECK(q.ExpireDue(1000000).empty());
}
