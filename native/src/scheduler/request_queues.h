// The per-priority request queues of one model, with Triton's ModelQueuePolicy: admission
// against max_queue_size, per-request queue deadlines (default_timeout_microseconds, or the
// request's own timeout when allow_timeout_override), and what happens at the deadline: REJECT
// (the request leaves with an error) or DELAY (it moves behind every on-time request of its
// level and never times out again).
//
// Service order, the order DecideBatch sees: level 1 first; within a level, on-time requests
// in arrival order, then delayed ones in the order they were delayed.
//
// Not thread-safe: the scheduler calls it under its own mutex. Time is passed in, never read,
// so the rules are tested with an injected clock (native/test/scheduler/request_queues_test.cc).
// Item: any type with a public `PendingInfo info` member; the queues own queued items.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "scheduler/batch_policy.h"
#include "scheduler/decide_batch.h"

namespace gebe {

enum class AdmitResult { kQueued, kQueueFull };

template <class Item>
class RequestQueues {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  explicit RequestQueues(const BatchPolicy& policy) : policy_(policy), levels_(policy.LevelCount()) {}
  ~RequestQueues() { Clear(); }
  RequestQueues(const RequestQueues&) = delete;
  RequestQueues& operator=(const RequestQueues&) = delete;

  // Queues `item` (taking it on kQueued; on kQueueFull the caller keeps it and rejects it).
  // timeout_us: the request's own queue timeout (0 = none); used only when the level's policy
  // allows overrides.
  AdmitResult Push(std::unique_ptr<Item>& item, uint32_t priority, uint64_t timeout_us, int64_t now_us) {
    const size_t level_index = policy_.LevelIndex(priority);
    const QueuePolicy& qp = policy_.PolicyForLevel(level_index);
    Level& level = levels_[level_index];
    if (qp.max_queue_size > 0 && level.pending.size() + level.delayed.size() >= qp.max_queue_size) {
      return AdmitResult::kQueueFull;
    }
    uint64_t timeout = qp.default_timeout_us;
    if (qp.allow_timeout_override && timeout_us > 0) timeout = timeout_us;
    // No deadline beyond ~35 years: keeps now + timeout far from overflowing.
    timeout = std::min<uint64_t>(timeout, uint64_t(1) << 50);
    auto* entry = new Entry{std::move(item), level_index, qp.timeout_action, {}, false};
    entry->item->info.enqueue_us = now_us;
    if (timeout > 0) {
      entry->deadline = deadlines_.emplace(now_us + static_cast<int64_t>(timeout), entry);
      entry->has_deadline = true;
    }
    level.pending.push_back(entry);
    ++size_;
    return AdmitResult::kQueued;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t LevelSize(size_t level_index) const {
    return levels_[level_index].pending.size() + levels_[level_index].delayed.size();
  }

  // The i-th request in service order (the view DecideBatch reads).
  const PendingInfo& at(size_t i) const { return EntryAt(i)->item->info; }
  Item& ItemAt(size_t i) const { return *EntryAt(i)->item; }

  // Applies the deadlines that passed by `now_us`; REJECT requests are returned to the caller
  // (who fails them), DELAY requests move behind their level.
  std::vector<std::unique_ptr<Item>> ExpireDue(int64_t now_us) {
    std::vector<std::unique_ptr<Item>> rejected;
    while (!deadlines_.empty() && deadlines_.begin()->first <= now_us) {
      Entry* entry = deadlines_.begin()->second;
      deadlines_.erase(deadlines_.begin());
      entry->has_deadline = false;
      Level& level = levels_[entry->level];
      for (auto it = level.pending.begin(); it != level.pending.end(); ++it) {
        if (*it == entry) {
          level.pending.erase(it);
          break;
        }
      }
      if (entry->action == TimeoutAction::kReject) {
        rejected.push_back(std::move(entry->item));
        delete entry;
        --size_;
      } else {
        level.delayed.push_back(entry);
      }
    }
    return rejected;
  }

  // The earliest pending deadline, or kNever.
  int64_t NextDeadline() const { return deadlines_.empty() ? kNever : deadlines_.begin()->first; }

  // Removes the first n requests in service order.
  std::vector<std::unique_ptr<Item>> PopFront(size_t n) {
    std::vector<std::unique_ptr<Item>> out;
    out.reserve(n);
    for (auto& level : levels_) {
      for (auto* queue : {&level.pending, &level.delayed}) {
        while (out.size() < n && !queue->empty()) {
          Entry* entry = queue->front();
          queue->pop_front();
          out.push_back(Release(entry));
        }
      }
      if (out.size() == n) break;
    }
    return out;
  }

  // Removes the queued requests for which pred(item) is true (a linear scan: cancellations only).
  template <class Pred>
  std::vector<std::unique_ptr<Item>> RemoveIf(Pred pred) {
    std::vector<std::unique_ptr<Item>> out;
    for (auto& level : levels_) {
      for (auto* queue : {&level.pending, &level.delayed}) {
        for (auto it = queue->begin(); it != queue->end();) {
          if (!pred(*(*it)->item)) {
            ++it;
            continue;
          }
          Entry* entry = *it;
          it = queue->erase(it);
          out.push_back(Release(entry));
        }
      }
    }
    return out;
  }

  // Removes everything (unload).
  std::vector<std::unique_ptr<Item>> DrainAll() { return PopFront(size_); }

 private:
  struct Entry {
    std::unique_ptr<Item> item;
    size_t level;
    TimeoutAction action;
    typename std::multimap<int64_t, Entry*>::iterator deadline;
    bool has_deadline;
  };
  struct Level {
    std::deque<Entry*> pending;
    std::deque<Entry*> delayed;
  };

  const Entry* EntryAt(size_t i) const {
    for (const auto& level : levels_) {
      if (i < level.pending.size()) return level.pending[i];
      i -= level.pending.size();
      if (i < level.delayed.size()) return level.delayed[i];
      i -= level.delayed.size();
    }
    return nullptr;  // callers stay below size()
  }

  std::unique_ptr<Item> Release(Entry* entry) {
    if (entry->has_deadline) deadlines_.erase(entry->deadline);
    std::unique_ptr<Item> item = std::move(entry->item);
    delete entry;
    --size_;
    return item;
  }

  void Clear() { DrainAll(); }

  const BatchPolicy& policy_;
  std::vector<Level> levels_;
  std::multimap<int64_t, Entry*> deadlines_;
  size_t size_ = 0;
};

}  // namespace gebe
