#include "scheduler/sequence_batcher.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "executor/request_wording.h"
#include "executor/sequence_parameters.h"
#include "scheduler/clock.h"
#include "scheduler/model_scheduler.h"
#include "thread_name.h"

namespace gebe {

namespace {

int64_t NowUs() { return SteadyNowNs() / 1000; }

}  // namespace

SequenceBatcher::SequenceBatcher(std::string model_name, SequenceConfig config, bool batched, size_t instance_count,
                                 CompletionSink* downstream)
    : model_name_(std::move(model_name)),
      config_(std::move(config)),
      batched_(batched),
      slots_total_(std::max<size_t>(1, instance_count) * static_cast<size_t>(std::max<int64_t>(1, config_.slots_per_instance))),
      downstream_(downstream),
      free_slots_(slots_total_) {
  reaper_ = std::thread([this] { ReaperLoop(); });
}

SequenceBatcher::~SequenceBatcher() { Stop(); }

size_t SequenceBatcher::HeldCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_;
}

bool SequenceBatcher::Enqueue(std::unique_ptr<ScheduledRequest>& request, const SequenceId& id, uint8_t flags,
                              uint32_t priority, uint64_t timeout_us) {
  const bool taken = Admit(request, id, flags, priority, timeout_us);
  if (!taken && scheduler_ != nullptr) scheduler_->RecordRefused();  // a failed request in the statistics, as Triton's
  return taken;
}

bool SequenceBatcher::Admit(std::unique_ptr<ScheduledRequest>& request, const SequenceId& id, uint8_t flags,
                            uint32_t priority, uint64_t timeout_us) {
  RequestFailure refused = CheckSequenceRequest(model_name_, batched_, request->info.rows, id);
  if (!refused.ok()) {
    request->Fail(refused.reason, std::move(refused.message));
    return false;
  }
  request->sequence_flags = flags;
  std::vector<Forward> out;
  Failed failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      request->Fail(FailureReason::kUnavailable, wording::ModelUnloading(model_name_));
      return false;
    }
    const std::string id_key = SequenceIdKey(id);
    auto found = by_id_.find(id_key);
    Sequence* seq = nullptr;
    if (found == by_id_.end()) {
      if ((flags & kSequenceStart) == 0) {
        request->Fail(FailureReason::kInvalidArgument, wording::SequenceStartMissing(model_name_, SequenceIdText(id)));
        return false;
      }
      if (free_slots_ == 0 && backlog_.size() >= kMaxBacklogSequences) {
        request->Fail(FailureReason::kQueueFull, wording::SequenceBacklogFull(model_name_, kMaxBacklogSequences));
        return false;
      }
      auto created = std::make_unique<Sequence>();
      created->key = next_key_++;
      created->id = id;
      // Its state is made when its START runs (NextLocked), so a backlogged sequence holds none.
      if (free_slots_ > 0) {
        --free_slots_;
        created->has_slot = true;
      } else {
        backlog_.push_back(created->key);
      }
      by_id_[id_key] = created->key;
      seq = created.get();
      sequences_[created->key] = std::move(created);
    } else {
      seq = sequences_[found->second].get();
      if (seq->queue.size() >= kMaxQueuedPerSequence) {
        request->Fail(FailureReason::kQueueFull,
                      wording::SequenceQueueFull(model_name_, SequenceIdText(id), kMaxQueuedPerSequence));
        return false;
      }
    }
    request->sequence_key = seq->key;
    seq->queue.push_back(Forward{std::move(request), priority, timeout_us});
    ++held_;
    seq->last_us = NowUs();
    if ((flags & kSequenceEnd) != 0) {
      // A later request with this id starts a new sequence (it must carry START).
      seq->ended = true;
      by_id_.erase(id_key);
    }
    NextLocked(*seq, out, failed);
  }
  Send(out, failed);
  return true;
}

void SequenceBatcher::NextLocked(Sequence& seq, std::vector<Forward>& out, Failed& failed) {
  while (seq.has_slot && !seq.in_flight && !seq.queue.empty()) {
    Forward next = std::move(seq.queue.front());
    seq.queue.pop_front();
    --held_;
    ScheduledRequest& r = *next.request;
    // START begins from the initial state; so does a sequence whose START failed before it ran.
    if ((r.sequence_flags & kSequenceStart) != 0 || seq.state.size() != config_.states.size()) seq.state = InitialStates(config_);
    const std::string error = FillSequenceInputs(config_, batched_, seq.id, seq.state, r);
    if (!error.empty()) {
      r.Fail(FailureReason::kInvalidArgument, error);
      const bool end = (r.sequence_flags & kSequenceEnd) != 0;
      failed.push_back(std::move(next.request));
      if (end) {
        ReleaseLocked(seq.key, out, failed);
        return;  // seq is gone
      }
      continue;
    }
    seq.in_flight = true;
    out.push_back(std::move(next));
  }
}

void SequenceBatcher::ReleaseLocked(uint64_t key, std::vector<Forward>& out, Failed& failed) {
  auto it = sequences_.find(key);
  if (it == sequences_.end()) return;
  std::unique_ptr<Sequence> seq = std::move(it->second);
  sequences_.erase(it);
  auto mapped = by_id_.find(SequenceIdKey(seq->id));
  if (mapped != by_id_.end() && mapped->second == key) by_id_.erase(mapped);
  for (auto& waiting : seq->queue) {
    waiting.request->Fail(FailureReason::kInvalidArgument, wording::SequenceReleased(model_name_, SequenceIdText(seq->id)));
    failed.push_back(std::move(waiting.request));
    --held_;
  }
  if (!seq->has_slot) {
    backlog_.erase(std::remove(backlog_.begin(), backlog_.end(), key), backlog_.end());
    return;
  }
  // The slot goes to the oldest sequence of the backlog.
  while (!backlog_.empty()) {
    const uint64_t waiting = backlog_.front();
    backlog_.pop_front();
    auto next = sequences_.find(waiting);
    if (next == sequences_.end()) continue;
    next->second->has_slot = true;
    NextLocked(*next->second, out, failed);
    return;
  }
  ++free_slots_;
}

void SequenceBatcher::Send(std::vector<Forward>& out, Failed& failed) {
  FailAll(failed);
  if (out.empty()) return;
  auto rejected = std::make_unique<CompletedBatch>();
  for (auto& f : out) {
    if (!scheduler_->Enqueue(f.request, f.priority, f.timeout_us)) rejected->requests.push_back(std::move(f.request));
  }
  out.clear();
  // Refused by the scheduler (queue full, timeout): the sequence moves on as after a failed step.
  if (!rejected->requests.empty()) Deliver(std::move(rejected));
}

void SequenceBatcher::FailAll(Failed& failed) {
  if (failed.empty()) return;
  auto batch = std::make_unique<CompletedBatch>();
  batch->requests = std::move(failed);
  failed.clear();
  downstream_->Deliver(std::move(batch));
}

void SequenceBatcher::Deliver(std::unique_ptr<CompletedBatch> batch) {
  if (batch->closed) {
    downstream_->Deliver(std::move(batch));
    return;
  }
  std::vector<Forward> out;
  Failed failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t now = NowUs();
    for (auto& r : batch->requests) {
      auto it = sequences_.find(r->sequence_key);
      if (it == sequences_.end()) continue;
      Sequence& seq = *it->second;
      seq.in_flight = false;
      seq.last_us = now;
      if (r->ok() && batch->outputs) {
        for (size_t j = 0; j < config_.states.size(); ++j) {
          const SequenceState& s = config_.states[j];
          const OutputSlice& slice = r->outputs[s.engine_output];
          if (slice.byte_size != s.byte_size) {
            r->Fail(FailureReason::kBackend,
                    "state output '" + s.output_name + "' of model '" + model_name_ + "' has " +
                        std::to_string(slice.byte_size) + " bytes per sequence, but its state declares " +
                        std::to_string(s.byte_size) + " (data_type and dims of sequence_batching.state)");
            break;
          }
          const auto* base = static_cast<const uint8_t*>(batch->outputs->tensors[s.engine_output].buffer.data());
          std::memcpy(seq.state[j].data(), base + slice.offset, s.byte_size);
        }
      }
      if ((r->sequence_flags & kSequenceEnd) != 0) {
        ReleaseLocked(seq.key, out, failed);
      } else {
        NextLocked(seq, out, failed);
      }
    }
  }
  changed_cv_.notify_all();
  downstream_->Deliver(std::move(batch));
  Send(out, failed);
}

void SequenceBatcher::ReaperLoop() {
  NameThisThread("gebe-seq-reaper");
  std::unique_lock<std::mutex> lock(mu_);
  const auto idle = static_cast<int64_t>(std::max<uint64_t>(1, config_.max_idle_us));
  while (!stopping_) {
    const int64_t now = NowUs();
    int64_t next = now + idle;
    std::vector<uint64_t> expired;
    for (const auto& [key, seq] : sequences_) {
      if (seq->in_flight || !seq->queue.empty()) continue;
      const int64_t due = seq->last_us + idle;
      if (due <= now) {
        expired.push_back(key);
      } else {
        next = std::min(next, due);
      }
    }
    if (!expired.empty()) {
      std::vector<Forward> out;
      Failed failed;
      for (uint64_t key : expired) ReleaseLocked(key, out, failed);
      lock.unlock();
      Send(out, failed);
      lock.lock();
      continue;
    }
    changed_cv_.wait_until(lock, std::chrono::steady_clock::time_point(std::chrono::microseconds(next)));
  }
}

void SequenceBatcher::Stop() {
  std::lock_guard<std::mutex> stop_lock(stop_mu_);
  if (stopped_) return;
  stopped_ = true;
  Failed failed;
  {
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
    changed_cv_.notify_all();
    // The sequences with a slot run what they hold (Triton drains before unloading).
    auto busy = [&] {
      for (const auto& [key, seq] : sequences_) {
        if (seq->has_slot && (seq->in_flight || !seq->queue.empty())) return true;
      }
      return false;
    };
    while (busy()) changed_cv_.wait_for(lock, std::chrono::milliseconds(5));
    // What waits for a slot cannot run any more.
    for (auto& [key, seq] : sequences_) {
      for (auto& waiting : seq->queue) {
        waiting.request->Fail(FailureReason::kUnavailable, wording::ModelUnloading(model_name_));
        failed.push_back(std::move(waiting.request));
      }
    }
    sequences_.clear();
    by_id_.clear();
    backlog_.clear();
    held_ = 0;
  }
  if (reaper_.joinable()) reaper_.join();
  FailAll(failed);
}

}  // namespace gebe
