// One inference request inside the scheduler, and the unit handed back to the caller when a
// batch finishes. Ownership: the scheduler owns a request from a successful Enqueue until it
// hands it back inside a CompletedBatch (exactly once: with outputs or with an error).
// The input bytes belong to the caller, who keeps them alive until that hand-back.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "executor/request_failure.h"
#include "scheduler/decide_batch.h"
#include "trace/request_trace.h"

namespace gebe {

// Where one request's rows of one output live inside the batch's output tensor.
struct OutputSlice {
  size_t offset = 0;
  size_t byte_size = 0;
  std::vector<int64_t> shape;
};

struct ScheduledRequest;
struct BatchOutputs;

// The completion interface native front ends implement (the HTTP and gRPC servers each have one):
// a request a front end queued itself, rather than through JS, is handed here by its owner's
// completion sink instead of being batched into the JS callback. The scheduler knows only this
// interface, never the protocol behind it. Finished runs on the thread that
// completes the request (an instance thread, the batcher, or an enqueuing thread handing over
// timed-out requests) and must not block; `outputs` is null when the request failed.
class NativeCall {
 public:
  virtual ~NativeCall() = default;
  virtual void Finished(std::unique_ptr<ScheduledRequest> request, std::shared_ptr<BatchOutputs> outputs) = 0;
  // Why the request no longer needs running (its client went away or its deadline passed), or
  // kNone. Any thread; the scheduler asks while the request waits in its queue, after
  // ModelScheduler::NoteCancellation, and fails a cancelled one with this reason.
  virtual FailureReason CancelReason() const { return FailureReason::kNone; }
};

// The native answers of one completed batch usually go to one writer thread (a front end's loop).
// While a NativeAnswerBatch is open on this thread, a sink queues its answer and defers waking
// the writer to the batch's end, so the writer wakes once per batch with every answer ready,
// instead of once per request and then contending for the queue with the rest of the hand-out.
class NativeAnswerBatch {
 public:
  using Wake = void (*)(const std::shared_ptr<void>& target);

  NativeAnswerBatch() : outer_(current_) { current_ = this; }
  ~NativeAnswerBatch() {
    current_ = outer_;
    for (auto& [target, wake] : wakes_) wake(target);
  }
  NativeAnswerBatch(const NativeAnswerBatch&) = delete;
  NativeAnswerBatch& operator=(const NativeAnswerBatch&) = delete;

  // Runs wake(target) when the open batch ends (once per target), or now when none is open.
  static void Defer(const std::shared_ptr<void>& target, Wake wake) {
    NativeAnswerBatch* open = current_;
    if (open == nullptr) {
      wake(target);
      return;
    }
    for (const auto& entry : open->wakes_) {
      if (entry.first == target) return;
    }
    open->wakes_.emplace_back(target, wake);
  }

 private:
  static inline thread_local NativeAnswerBatch* current_ = nullptr;
  NativeAnswerBatch* const outer_;
  std::vector<std::pair<std::shared_ptr<void>, Wake>> wakes_;
};

struct ScheduledRequest {
  PendingInfo info;                 // read by the queues and DecideBatch
  uint64_t token = 0;               // the caller's id for this request
  std::vector<TensorView> inputs;   // in the session's input order
  uint64_t output_mask = ~uint64_t(0);  // bit i: return output i (outputs past 64 always return)
  int64_t enqueue_ns = 0;
  int64_t dispatch_ns = 0;

  // Input bytes the request owns, for sequence models: the control and state inputs the batcher
  // filled (their views above point here). The client's own inputs stay where the front end put them.
  std::vector<AlignedBuffer> owned_inputs;

  // Result, filled before hand-back: why it failed (request_failure.h) and the client's message.
  FailureReason failure = FailureReason::kNone;
  std::string error;
  size_t row_offset = 0;            // first row of this request inside the batch
  std::vector<OutputSlice> outputs; // one per session output, on success

  // Set for requests taken by native code; travels with the request (see NativeCall).
  std::unique_ptr<NativeCall> native_call;
  // Requests queued from JS whose caller may cancel them: a FailureReason value, 0 while live
  // (set by the executor's cancel(), any thread, then ModelScheduler::NoteCancellation).
  std::shared_ptr<std::atomic<int>> js_cancel;

  // Sequence models only (see SequenceBatcher): the sequence this request belongs to, its
  // START/END flags (its control and state bytes are in owned_inputs).
  uint64_t sequence_key = 0;
  uint8_t sequence_flags = 0;

  // Set when the trace extension samples this request: the scheduler stamps its queue and
  // compute times, the front end the rest (request_trace.h).
  std::unique_ptr<RequestTrace> trace;

  bool ok() const { return failure == FailureReason::kNone; }
  // Why the request no longer needs running (its caller went away), or kNone.
  FailureReason CancelReason() const {
    if (native_call) return native_call->CancelReason();
    return js_cancel ? FailureReason(js_cancel->load(std::memory_order_acquire)) : FailureReason::kNone;
  }
  void Fail(FailureReason reason, std::string message) {
    failure = reason;
    error = std::move(message);
  }
};

// The batch's output tensors, shared by the requests' slices until the last reader lets go.
struct BatchOutputs {
  std::vector<Tensor> tensors;
};

struct CompletedBatch {
  std::vector<std::unique_ptr<ScheduledRequest>> requests;
  std::shared_ptr<BatchOutputs> outputs;  // null when every request failed
  bool closed = false;                    // the scheduler's last hand-back after Stop()
};

// Receives finished batches on scheduler threads (never under a scheduler lock). One call
// per batch, not per request.
class CompletionSink {
 public:
  virtual ~CompletionSink() = default;
  virtual void Deliver(std::unique_ptr<CompletedBatch> batch) = 0;
};

}  // namespace gebe
