// The scheduler of one loaded model: priority queues, one batcher thread, N instance threads
// (one engine session each), gather/slice, statistics, and grouped completions.
//
// Ownership: Enqueue takes the request on success (it comes back exactly once through the
// sink, with outputs or an error); on an admission failure it stays with the caller, with the
// error filled in. The caller keeps the request's input bytes alive until the hand-back.
//
// Threads: the decision runs wherever something changes (the enqueuing thread, an instance
// thread that just finished), so a request that can go at once never waits for a thread hop.
// The next decision time (a queue delay running out, a request's deadline) is kept by an idle
// instance that is polling for work anyway, when one is and the time is near (kMaxSpinWaitUs);
// otherwise by the batcher thread, which only sleeps until then. Waking a sleeping thread is
// what costs on small VMs (an inter-processor interrupt through the hypervisor, about as much
// CPU as a request's decode), and under load an instance is nearly always polling.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "scheduler/batch_io.h"
#include "scheduler/batch_policy.h"
#include "scheduler/batch_layout.h"
#include "scheduler/model_statistics.h"
#include "scheduler/rate_limiter.h"
#include "scheduler/request_queues.h"
#include "scheduler/scheduled_request.h"

namespace gebe {

class ModelScheduler {
 public:
  // batched: the model has a batch dimension (max_batch_size > 0).
  // idle_spin_us: after a batch, an instance polls for the next one this long (yielding the
  // CPU between polls) before it sleeps, so back-to-back requests skip a futex wake-up.
  // rate_limits: the instances as registered with the server's rate limiter (none: never held);
  // an instance takes its resources before each batch and gives them back after.
  // layout: ragged inputs, batch inputs and batch outputs (batch_layout.h); none: rows stack.
  ModelScheduler(std::string model_name, BatchPolicy policy, bool batched, std::vector<std::unique_ptr<Session>> sessions,
                 CompletionSink* sink, int64_t idle_spin_us = 0, std::shared_ptr<RateLimitedInstances> rate_limits = nullptr,
                 BatchLayout layout = {});
  ~ModelScheduler();
  ModelScheduler(const ModelScheduler&) = delete;
  ModelScheduler& operator=(const ModelScheduler&) = delete;

  // True when queued. False: rejected now (queue full, unloading, too many rows); the request
  // stays with the caller with its error set.
  bool Enqueue(std::unique_ptr<ScheduledRequest>& request, uint32_t priority, uint64_t timeout_us);

  // Refuses new requests, runs everything already queued (Triton drains a model before it
  // unloads: a request it accepted is answered, not failed), joins the threads, then hands the
  // sink a CompletedBatch with closed = true (the last thing it delivers). Idempotent.
  void Stop();

  // Any thread: some queued request's NativeCall now reports a CancelReason; the next decision
  // takes every such request out of the queue and fails it with that reason.
  void NoteCancellation();

  // Requests queued or running.
  size_t PendingCount() const { return pending_.load(std::memory_order_relaxed); }
  StatisticsSnapshot Stats() const { return stats_.Snapshot(); }
  void EnableSummaries() { stats_.EnableSummaries(); }
  std::optional<LatencySummaryReadings> ReadSummaries(const std::vector<double>& quantiles) const {
    return stats_.ReadSummaries(quantiles);
  }
  // Counts a request refused before it reached the queues (the sequence batcher's admission).
  void RecordRefused() { stats_.RecordFailure(0); }
  const BatchPolicy& policy() const { return policy_; }
  size_t InstanceCount() const { return instances_.size(); }

  // Runs fn(Session&) on instance i's session while no batch runs on it (compile, direct runs).
  template <class Fn>
  auto WithSession(size_t i, Fn&& fn) {
    std::lock_guard<std::mutex> lock(instances_[i]->session_mu);
    return fn(*instances_[i]->session);
  }

 private:
  struct Batch {
    std::vector<std::unique_ptr<ScheduledRequest>> requests;
    int64_t rows = 0;
    int64_t padded_rows = 0;
    uint64_t seq = 0;
  };
  struct Instance {
    size_t index = 0;
    std::unique_ptr<Session> session;
    std::mutex session_mu;                 // held while the session runs (one driver at a time)
    std::condition_variable cv;            // waits on mu_ for `next`
    std::unique_ptr<Batch> next;           // guarded by mu_
    std::atomic<bool> assigned{false};     // mirrors next != nullptr, for the lock-free idle spin
    bool polling = false;                  // guarded by mu_: in its idle spin (and so in idle_)
    GatherArena arena;                     // instance thread only
    std::thread thread;
  };
  using Rejected = std::vector<std::unique_ptr<ScheduledRequest>>;

  void BatcherLoop();
  void InstanceLoop(size_t index);
  // Threads to wake once mu_ is released (waking them under the lock would make them block
  // on it straight away: two context switches instead of one).
  struct Wakeups {
    std::vector<Instance*> instances;
    bool batcher = false;
    void Notify(std::condition_variable& batcher_cv) const;
  };
  // Expires deadlines and hands batches to idle instances. Returns when to decide again.
  int64_t DispatchLocked(int64_t now_us, Rejected& expired, Wakeups& wakeups);
  // After a decision: who decides next, at wake_us. A polling instance when one is idle and
  // wake_us is at most kMaxSpinWaitUs away (it then polls until then); else the batcher,
  // woken only when wake_us is earlier than its timer.
  void ArmNextDecisionLocked(int64_t now_us, int64_t wake_us, Wakeups& wakeups);
  bool AnyInstancePollingLocked() const;
  // An idle instance's poll for its next batch (mu_ held on entry and exit): up to idle_spin_us_,
  // longer while it keeps a decision time; decides at that time itself.
  void PollForBatch(Instance& instance, std::unique_lock<std::mutex>& lock);
  // Runs a decision now and hands over what it produced (mu_ held on entry and exit).
  void DecideNowLocked(std::unique_lock<std::mutex>& lock);
  void Execute(Instance& instance, Batch& batch);
  void RejectAll(Rejected& requests, FailureReason reason, const std::string& message);
  void Complete(uint64_t seq, std::unique_ptr<CompletedBatch> batch);
  void Hand(std::unique_ptr<CompletedBatch> batch);

  const std::string model_name_;
  const BatchPolicy policy_;
  const bool batched_;
  const BatchLayout layout_;
  CompletionSink* const sink_;
  const int64_t idle_spin_us_;
  std::shared_ptr<RateLimitedInstances> rate_limits_;  // instance threads only, until Stop() joins them
  std::vector<std::unique_ptr<Instance>> instances_;
  ModelStatistics stats_;
  std::atomic<size_t> pending_{0};
  std::atomic<bool> cancellations_{false};
  // Moves on every NoteCancellation: a running batch looks at its requests only after it moved.
  std::atomic<uint64_t> cancel_epoch_{0};

  mutable std::mutex mu_;
  RequestQueues<ScheduledRequest> queues_;  // guarded by mu_
  std::vector<size_t> idle_;                // guarded by mu_: instances without a batch
  bool stopping_ = false;                   // guarded by mu_
  bool draining_ = false;                   // guarded by mu_: Stop() waits for the queue to empty
  std::condition_variable drained_cv_;      // waits on mu_ for an empty queue and idle instances
  int64_t batcher_wake_us_ = 0;             // guarded by mu_: when the sleeping batcher wakes
  // When a polling instance must decide next (kNever: no instance keeps the time). Written under
  // mu_, read by polling instances without it.
  std::atomic<int64_t> poll_decide_us_;
  // The farthest decision time a polling instance keeps: a queue delay of the usual size (Triton's
  // examples use 100-500 µs); a longer wait goes to the sleeping batcher instead of a spin.
  static constexpr int64_t kMaxSpinWaitUs = 1000;
  uint64_t next_seq_ = 0;                   // guarded by mu_: dispatch order
  // guarded by mu_: Enqueue calls handing timed-out requests to the sink after unlocking. Stop()
  // waits for them, so nothing reaches the sink after its `closed` batch.
  int enqueue_handoffs_ = 0;
  std::condition_variable enqueue_handoffs_cv_;
  std::condition_variable batcher_cv_;
  std::thread batcher_;

  std::mutex order_mu_;                                         // preserve_ordering only
  uint64_t next_delivery_seq_ = 0;                              // guarded by order_mu_
  std::map<uint64_t, std::unique_ptr<CompletedBatch>> held_;    // guarded by order_mu_

  std::mutex stop_mu_;  // serialises Stop()
  bool stopped_ = false;
};

}  // namespace gebe
