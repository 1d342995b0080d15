// The sequence batcher of a stateful model (Triton's sequence_batching), in front of the model's
// ModelScheduler. It admits requests by sequence id with Triton's rules and errors, gives each
// sequence one of the candidate slots (instances × slots per instance; later sequences wait in a
// backlog), keeps at most one request per sequence in the scheduler so the steps of a sequence
// run in order, fills the control and implicit-state inputs of each step, takes the state output
// of a finished step as the sequence's new state, and releases a sequence at END or after
// max_sequence_idle_microseconds without requests.
//
// Batching across sequences is the scheduler's: for `oldest` its dynamic batcher runs with the
// strategy's preferred_batch_size and max_queue_delay_microseconds; for `direct` with the
// strategy's queue delay. Because the state lives here rather than in an instance, a sequence
// is not pinned to one instance (its results are the same on any).
//
// Ownership and threads as ModelScheduler: Enqueue takes the request on success and it comes
// back exactly once through the downstream sink; the scheduler's completions come through
// Deliver (this is the scheduler's sink). A reaper thread releases idle sequences.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/scheduled_request.h"
#include "scheduler/sequence_config.h"
#include "scheduler/sequence_id.h"
#include "scheduler/sequence_inputs.h"

namespace gebe {

class ModelScheduler;

class SequenceBatcher : public CompletionSink {
 public:
  // The bounds on what clients can make the batcher hold (memory follows requests received).
  static constexpr size_t kMaxBacklogSequences = 65536;
  static constexpr size_t kMaxQueuedPerSequence = 1024;

  SequenceBatcher(std::string model_name, SequenceConfig config, bool batched, size_t instance_count,
                  CompletionSink* downstream);
  ~SequenceBatcher() override;
  SequenceBatcher(const SequenceBatcher&) = delete;
  SequenceBatcher& operator=(const SequenceBatcher&) = delete;

  // Set once, before the first Enqueue.
  void SetScheduler(ModelScheduler* scheduler) { scheduler_ = scheduler; }

  // True when taken. False: refused now; the request stays with the caller with its error set.
  bool Enqueue(std::unique_ptr<ScheduledRequest>& request, const SequenceId& id, uint8_t flags, uint32_t priority,
               uint64_t timeout_us);
  // The scheduler's completions: updates the sequences, then hands the batch downstream.
  void Deliver(std::unique_ptr<CompletedBatch> batch) override;
  // Refuses new requests, lets the sequences with a slot run what they hold, fails what waits in
  // the backlog, stops the reaper. The caller stops the scheduler afterwards. Idempotent.
  void Stop();
  // Requests held here (not yet in the scheduler).
  size_t HeldCount() const;

 private:
  struct Forward {
    std::unique_ptr<ScheduledRequest> request;
    uint32_t priority = 0;
    uint64_t timeout_us = 0;
  };
  struct Sequence {
    uint64_t key = 0;
    SequenceId id;
    bool has_slot = false;
    bool in_flight = false;  // one of its requests is in the scheduler
    bool ended = false;      // its END request was admitted; no more requests join it
    std::deque<Forward> queue;
    SequenceStateBytes state;
    int64_t last_us = 0;     // last request admitted or finished
  };
  using Failed = std::vector<std::unique_ptr<ScheduledRequest>>;

  // Enqueue's admission, Triton's rules; false: refused, with the request's error set.
  bool Admit(std::unique_ptr<ScheduledRequest>& request, const SequenceId& id, uint8_t flags, uint32_t priority,
             uint64_t timeout_us);
  // Moves the sequence's next request into `out` when it may run now.
  void NextLocked(Sequence& seq, std::vector<Forward>& out, Failed& failed);
  // Frees the sequence (END, idle, unload); its slot goes to the oldest backlog sequence.
  void ReleaseLocked(uint64_t key, std::vector<Forward>& out, Failed& failed);
  void Send(std::vector<Forward>& out, Failed& failed);
  void FailAll(Failed& failed);
  void ReaperLoop();

  const std::string model_name_;
  const SequenceConfig config_;
  const bool batched_;
  const size_t slots_total_;
  CompletionSink* const downstream_;
  ModelScheduler* scheduler_ = nullptr;

  mutable std::mutex mu_;
  std::map<std::string, uint64_t> by_id_;                  // live sequences by SequenceId::Key()
  std::map<uint64_t, std::unique_ptr<Sequence>> sequences_;  // every sequence with requests or a slot
  std::deque<uint64_t> backlog_;                           // sequences waiting for a slot, oldest first
  size_t free_slots_ = 0;
  size_t held_ = 0;                                        // requests in the sequences' queues
  uint64_t next_key_ = 1;
  bool stopping_ = false;
  std::condition_variable changed_cv_;                     // the reaper and Stop() wait on it
  std::thread reaper_;
  std::mutex stop_mu_;
  bool stopped_ = false;
};

}  // namespace gebe
