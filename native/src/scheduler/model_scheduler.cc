#include "scheduler/model_scheduler.h"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>

#include "executor/request_wording.h"
#include "scheduler/clock.h"
#include "thread_name.h"

namespace gebe {

namespace {

// Fails a request its caller gave up on, queued or running, with the caller's own reason.
void FailCancelled(ScheduledRequest& r) {
  const FailureReason reason = r.CancelReason() != FailureReason::kNone ? r.CancelReason() : FailureReason::kCancelled;
  r.Fail(reason, CancelledMessage(reason));
}

// A traced request's compute timestamps: its batch's input gathered from t0 to t1, run from t1
// to t2, outputs sliced from t2 to t3.
void StampCompute(RequestTrace& trace, int64_t t0, int64_t t1, int64_t t2, int64_t t3) {
  trace.Stamp(TraceStamp::kComputeStart, t0);
  trace.Stamp(TraceStamp::kComputeInputEnd, t1);
  trace.Stamp(TraceStamp::kComputeOutputStart, t2);
  trace.Stamp(TraceStamp::kComputeEnd, t3);
}

// A running batch's RunStop: asked between steps, it answers true once every request of the batch
// is cancelled (its client went away, its deadline passed, its JS caller cancelled it), so a run
// nobody waits for (a Loop a request made long) gives its instance back. Until some request of
// the model is cancelled the answer costs one atomic load.
class BatchStop : public RunStop {
 public:
  BatchStop(const std::vector<std::unique_ptr<ScheduledRequest>>& requests, const std::atomic<uint64_t>& epoch)
      : requests_(requests), epoch_(epoch) {}
  bool Requested() const override {
    const uint64_t now = epoch_.load(std::memory_order_acquire);
    if (now == seen_) return false;
    seen_ = now;
    for (const auto& r : requests_) {
      if (r->CancelReason() == FailureReason::kNone) return false;
    }
    return true;
  }

 private:
  const std::vector<std::unique_ptr<ScheduledRequest>>& requests_;
  const std::atomic<uint64_t>& epoch_;
  mutable uint64_t seen_ = ~uint64_t(0);  // the first question always looks
};

}  // namespace

ModelScheduler::ModelScheduler(std::string model_name, BatchPolicy policy, bool batched,
                               std::vector<std::unique_ptr<Session>> sessions, CompletionSink* sink, int64_t idle_spin_us,
                               std::shared_ptr<RateLimitedInstances> rate_limits, BatchLayout layout)
    : model_name_(std::move(model_name)),
      policy_(std::move(policy)),
      batched_(batched),
      layout_(std::move(layout)),
      sink_(sink),
      idle_spin_us_(idle_spin_us),
      rate_limits_(std::move(rate_limits)),
      queues_(policy_),
      poll_decide_us_(RequestQueues<ScheduledRequest>::kNever) {
  for (auto& session : sessions) {
    auto instance = std::make_unique<Instance>();
    instance->index = instances_.size();
    instance->session = std::move(session);
    instances_.push_back(std::move(instance));
  }
  for (size_t i = instances_.size(); i-- > 0;) idle_.push_back(i);
  for (size_t i = 0; i < instances_.size(); ++i) {
    instances_[i]->thread = std::thread([this, i] { InstanceLoop(i); });
  }
  batcher_ = std::thread([this] { BatcherLoop(); });
}

ModelScheduler::~ModelScheduler() { Stop(); }

bool ModelScheduler::Enqueue(std::unique_ptr<ScheduledRequest>& request, uint32_t priority, uint64_t timeout_us) {
  const int64_t now_ns = SteadyNowNs();
  request->enqueue_ns = now_ns;
  if (request->trace) request->trace->Stamp(TraceStamp::kQueueStart, now_ns);
  // Normalize refuses such requests first; this guard keeps a caller that skipped it from
  // queueing a request no batch can hold (same reason and words).
  if (request->info.rows > policy_.effective_max_batch) {
    request->Fail(FailureReason::kInvalidArgument, wording::BatchTooLarge(model_name_, policy_.effective_max_batch));
    stats_.RecordFailure(0);
    return false;
  }
  Rejected expired;
  Wakeups wakeups;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || draining_) {
      request->Fail(FailureReason::kUnavailable, wording::ModelUnloading(model_name_));
      stats_.RecordFailure(0);
      return false;
    }
    // Cancelled while it waited elsewhere (a sequence's backlog): the next decision drops it.
    if (request->CancelReason() != FailureReason::kNone) cancellations_.store(true, std::memory_order_release);
    if (queues_.Push(request, priority, timeout_us, now_ns / 1000) == AdmitResult::kQueueFull) {
      request->Fail(FailureReason::kQueueFull,
                    "Exceeds maximum queue size for model '" + model_name_ + "' (max_queue_size " +
                        std::to_string(policy_.PolicyForLevel(policy_.LevelIndex(priority)).max_queue_size) +
                        " of its priority level); retry later or raise max_queue_size");
      stats_.RecordFailure(0);
      return false;
    }
    pending_.fetch_add(1, std::memory_order_relaxed);
    ArmNextDecisionLocked(now_ns / 1000, DispatchLocked(now_ns / 1000, expired, wakeups), wakeups);
    if (!expired.empty()) ++enqueue_handoffs_;
  }
  wakeups.Notify(batcher_cv_);
  if (!expired.empty()) {
    RejectAll(expired, FailureReason::kQueueTimeout, "Request timeout expired");
    std::lock_guard<std::mutex> lock(mu_);
    if (--enqueue_handoffs_ == 0) enqueue_handoffs_cv_.notify_all();
  }
  return true;
}

void ModelScheduler::Wakeups::Notify(std::condition_variable& batcher_cv) const {
  for (Instance* instance : instances) instance->cv.notify_one();
  if (batcher) batcher_cv.notify_one();
}

int64_t ModelScheduler::DispatchLocked(int64_t now_us, Rejected& expired, Wakeups& wakeups) {
  for (auto& r : queues_.ExpireDue(now_us)) expired.push_back(std::move(r));
  if (cancellations_.exchange(false, std::memory_order_acq_rel)) {
    auto cancelled = queues_.RemoveIf([](const ScheduledRequest& r) { return r.CancelReason() != FailureReason::kNone; });
    for (auto& r : cancelled) {
      FailCancelled(*r);
      expired.push_back(std::move(r));
    }
  }
  int64_t wake = RequestQueues<ScheduledRequest>::kNever;
  // While Stop() drains, a queue delay no longer waits for more requests: what is queued goes now.
  const int64_t decide_us = draining_ ? std::numeric_limits<int64_t>::max() / 2 : now_us;
  while (!idle_.empty() && !queues_.empty()) {
    BatchDecision decision = DecideBatch(queues_, policy_, decide_us);
    if (decision.kind == BatchDecision::Kind::kWait) {
      wake = now_us + decision.wait_us;
      break;
    }
    if (decision.kind != BatchDecision::Kind::kDispatch) break;
    auto batch = std::make_unique<Batch>();
    batch->requests = queues_.PopFront(decision.count);
    batch->rows = decision.rows;
    batch->padded_rows = decision.padded_rows;
    batch->seq = next_seq_++;
    const int64_t now_ns = now_us * 1000;
    for (auto& r : batch->requests) r->dispatch_ns = std::max(now_ns, r->enqueue_ns);
    Instance& instance = *instances_[idle_.back()];
    idle_.pop_back();
    instance.next = std::move(batch);
    instance.assigned.store(true, std::memory_order_release);
    wakeups.instances.push_back(&instance);
  }
  return std::min(wake, queues_.NextDeadline());
}

void ModelScheduler::ArmNextDecisionLocked(int64_t now_us, int64_t wake_us, Wakeups& wakeups) {
  constexpr int64_t kNever = RequestQueues<ScheduledRequest>::kNever;
  if (wake_us != kNever && wake_us - now_us <= kMaxSpinWaitUs && AnyInstancePollingLocked()) {
    poll_decide_us_.store(wake_us, std::memory_order_release);
    return;
  }
  poll_decide_us_.store(kNever, std::memory_order_release);
  if (wake_us < batcher_wake_us_) {
    batcher_wake_us_ = wake_us;
    wakeups.batcher = true;
  }
}

bool ModelScheduler::AnyInstancePollingLocked() const {
  for (const auto& instance : instances_) {
    if (instance->polling && !instance->next) return true;
  }
  return false;
}

void ModelScheduler::DecideNowLocked(std::unique_lock<std::mutex>& lock) {
  Rejected expired;
  Wakeups wakeups;
  const int64_t now_us = SteadyNowNs() / 1000;
  ArmNextDecisionLocked(now_us, DispatchLocked(now_us, expired, wakeups), wakeups);
  if (!expired.empty() || !wakeups.instances.empty() || wakeups.batcher) {
    lock.unlock();
    wakeups.Notify(batcher_cv_);
    RejectAll(expired, FailureReason::kQueueTimeout, "Request timeout expired");
    lock.lock();
  }
}

void ModelScheduler::PollForBatch(Instance& instance, std::unique_lock<std::mutex>& lock) {
  constexpr int64_t kNever = RequestQueues<ScheduledRequest>::kNever;
  const int64_t spin_until_ns = SteadyNowNs() + idle_spin_us_ * 1000;
  for (;;) {
    lock.unlock();
    while (!instance.assigned.load(std::memory_order_acquire)) {
      const int64_t now_ns = SteadyNowNs();
      const int64_t decide_us = poll_decide_us_.load(std::memory_order_acquire);
      if (decide_us != kNever ? now_ns / 1000 >= decide_us : now_ns >= spin_until_ns) break;
      std::this_thread::yield();
    }
    lock.lock();
    if (instance.next || stopping_) break;
    // Under mu_ the decision time is current: it may have been armed or moved meanwhile.
    const int64_t decide_us = poll_decide_us_.load(std::memory_order_relaxed);
    if (decide_us == kNever) {
      if (SteadyNowNs() >= spin_until_ns) break;
    } else if (SteadyNowNs() / 1000 >= decide_us) {
      DecideNowLocked(lock);
      if (instance.next || stopping_) break;
    }
  }
  // Nothing can be left to it: a decision time is kept by a polling instance only while one is
  // idle, and this one leaves only with a batch, with no time to keep, or when stopping.
  instance.polling = false;
}

void ModelScheduler::BatcherLoop() {
  NameThisThread("gebe-batcher");
  // Queue delays are honoured to the microsecond: without this the kernel may coalesce the
  // timed wake-up by up to 50 µs (the default timer slack).
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    Rejected expired;
    Wakeups wakeups;
    const int64_t now_us = SteadyNowNs() / 1000;
    const int64_t wake = DispatchLocked(now_us, expired, wakeups);
    if (!expired.empty() || !wakeups.instances.empty()) {
      lock.unlock();
      wakeups.Notify(batcher_cv_);
      RejectAll(expired, FailureReason::kQueueTimeout, "Request timeout expired");
      lock.lock();
      continue;
    }
    // Keep the next decision time unless a polling instance takes it (it asks nothing of us then).
    batcher_wake_us_ = RequestQueues<ScheduledRequest>::kNever;
    ArmNextDecisionLocked(now_us, wake, wakeups);
    if (batcher_wake_us_ == RequestQueues<ScheduledRequest>::kNever) {
      batcher_cv_.wait(lock);
    } else {
      batcher_cv_.wait_until(lock, std::chrono::steady_clock::time_point(std::chrono::microseconds(batcher_wake_us_)));
    }
  }
}

void ModelScheduler::InstanceLoop(size_t index) {
  NameThisThread("gebe-instance" + std::to_string(index));
  Instance& instance = *instances_[index];
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (instance.polling) PollForBatch(instance, lock);
    instance.cv.wait(lock, [&] { return instance.next != nullptr || stopping_; });
    if (!instance.next) return;  // stopping and nothing assigned
    std::unique_ptr<Batch> batch = std::move(instance.next);
    instance.assigned.store(false, std::memory_order_relaxed);
    lock.unlock();
    Execute(instance, *batch);
    lock.lock();
    idle_.push_back(index);
    if (draining_) drained_cv_.notify_all();
    if (stopping_) continue;
    // It polls for its next batch (PollForBatch) before it sleeps, so it can keep the next
    // decision time this decision arms.
    instance.polling = idle_spin_us_ > 0;
    DecideNowLocked(lock);
  }
}

namespace {

// An instance's resources for one batch: taken when made, given back when it goes. The wait for
// them counts as the requests' queue time, as in Triton.
class RateLimitHold {
 public:
  RateLimitHold(RateLimitedInstances* limits, size_t instance, std::vector<std::unique_ptr<ScheduledRequest>>& requests)
      : limits_(limits), instance_(instance) {
    if (!limits_) return;
    limits_->Acquire(instance_);
    const int64_t granted_ns = SteadyNowNs();
    for (auto& r : requests) r->dispatch_ns = std::max(r->dispatch_ns, granted_ns);
  }
  ~RateLimitHold() { Release(); }
  // Once the batch has run (its answers need no resources).
  void Release() {
    if (limits_) limits_->Release(instance_);
    limits_ = nullptr;
  }
  RateLimitHold(const RateLimitHold&) = delete;
  RateLimitHold& operator=(const RateLimitHold&) = delete;

 private:
  RateLimitedInstances* limits_;
  const size_t instance_;
};

}  // namespace

void ModelScheduler::Execute(Instance& instance, Batch& batch) {
  RateLimitHold hold(rate_limits_.get(), instance.index, batch.requests);
  auto done = std::make_unique<CompletedBatch>();
  ExecutionTimes times;
  bool ok = false;
  bool client_error = false;
  bool cancelled = false;
  std::string error;
  auto outputs = std::make_shared<BatchOutputs>();
  const int64_t t0 = SteadyNowNs();
  int64_t t1 = t0, t2 = t0;
  try {
    std::vector<TensorView> inputs = GatherInputs(batch.requests, batch.padded_rows, batched_, layout_, instance.arena);
    t1 = SteadyNowNs();
    {
      std::lock_guard<std::mutex> session_lock(instance.session_mu);
      const BatchStop stop(batch.requests, cancel_epoch_);
      instance.session->run(inputs, outputs->tensors, &stop);
    }
    t2 = SteadyNowNs();
    SliceOutputs(outputs->tensors, batch.requests, batch.padded_rows, batched_, layout_);
    ok = true;
  } catch (const RunCancelled&) {
    cancelled = true;
  } catch (const InputError& e) {
    error = e.what();
    client_error = true;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown engine failure";
  }
  const int64_t t3 = SteadyNowNs();
  hold.Release();
  for (auto& r : batch.requests) {
    if (r->trace) StampCompute(*r->trace, t0, t1, t2, t3);
  }
  if (ok) {
    times.input_ns = static_cast<uint64_t>(t1 - t0);
    times.infer_ns = static_cast<uint64_t>(t2 - t1);
    times.output_ns = static_cast<uint64_t>(t3 - t2);
    stats_.RecordExecution(batch.rows, times, WallNowMs());
    for (auto& r : batch.requests) {
      stats_.RecordSuccess(static_cast<uint64_t>(r->dispatch_ns - r->enqueue_ns), static_cast<uint64_t>(t3 - r->enqueue_ns),
                           times);
    }
    done->outputs = std::move(outputs);
  } else if (cancelled) {
    for (auto& r : batch.requests) {
      FailCancelled(*r);
      stats_.RecordFailure(static_cast<uint64_t>(t3 - r->enqueue_ns));
    }
  } else {
    for (auto& r : batch.requests) {
      r->Fail(client_error ? FailureReason::kInvalidArgument : FailureReason::kBackend,
              "failed to run model '" + model_name_ + "' (" + instance.session->engine_name() + " engine): " + error);
      stats_.RecordFailure(static_cast<uint64_t>(t3 - r->enqueue_ns));
    }
  }
  done->requests = std::move(batch.requests);
  Complete(batch.seq, std::move(done));
}

void ModelScheduler::Complete(uint64_t seq, std::unique_ptr<CompletedBatch> batch) {
  if (!policy_.preserve_ordering) {
    Hand(std::move(batch));
    return;
  }
  // Batches finish out of order on several instances; responses leave in dispatch order.
  std::lock_guard<std::mutex> lock(order_mu_);
  held_.emplace(seq, std::move(batch));
  while (!held_.empty() && held_.begin()->first == next_delivery_seq_) {
    Hand(std::move(held_.begin()->second));
    held_.erase(held_.begin());
    ++next_delivery_seq_;
  }
}

void ModelScheduler::Hand(std::unique_ptr<CompletedBatch> batch) {
  pending_.fetch_sub(batch->requests.size(), std::memory_order_relaxed);
  sink_->Deliver(std::move(batch));
}

void ModelScheduler::RejectAll(Rejected& requests, FailureReason reason, const std::string& message) {
  if (requests.empty()) return;
  const int64_t now = SteadyNowNs();
  auto batch = std::make_unique<CompletedBatch>();
  for (auto& r : requests) {
    if (r->ok()) r->Fail(reason, message);  // cancelled ones keep their own reason
    stats_.RecordFailure(static_cast<uint64_t>(now - r->enqueue_ns));
    batch->requests.push_back(std::move(r));
  }
  requests.clear();
  Hand(std::move(batch));
}

void ModelScheduler::NoteCancellation() {
  cancellations_.store(true, std::memory_order_release);
  cancel_epoch_.fetch_add(1, std::memory_order_acq_rel);
  std::lock_guard<std::mutex> lock(mu_);  // the batcher is waiting or about to decide: either way it sees the flag
  batcher_cv_.notify_one();
}

void ModelScheduler::Stop() {
  std::lock_guard<std::mutex> stop_lock(stop_mu_);
  if (stopped_) return;
  stopped_ = true;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // Drain: Enqueue refuses from now on, and the batcher and instances go on dispatching what
    // is queued without waiting out queue delays; the periodic check covers requests that
    // leave the queue by expiring rather than through an instance.
    draining_ = true;
    batcher_cv_.notify_all();
    while (!(queues_.empty() && idle_.size() == instances_.size())) {
      drained_cv_.wait_for(lock, std::chrono::milliseconds(5));
    }
    stopping_ = true;
    batcher_cv_.notify_all();
    for (auto& instance : instances_) instance->cv.notify_all();
  }
  if (batcher_.joinable()) batcher_.join();
  for (auto& instance : instances_) {
    if (instance->thread.joinable()) instance->thread.join();
  }
  // No instance runs again: its resources no longer count in the server's defaults.
  rate_limits_.reset();
  {
    // An Enqueue that saw the model running may still be handing its timed-out requests over.
    std::unique_lock<std::mutex> lock(mu_);
    enqueue_handoffs_cv_.wait(lock, [&] { return enqueue_handoffs_ == 0; });
  }
  auto closed = std::make_unique<CompletedBatch>();
  closed->closed = true;
  sink_->Deliver(std::move(closed));
}

}  // namespace gebe
