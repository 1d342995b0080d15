// The native state of one loaded model behind its JS handle: the scheduler, the thread-safe
// function that carries finished batches to JS, and the engine metadata. Shared (shared_ptr)
// between the JS handle and the thread-safe function, so whichever goes last frees it.
//
// Threads: scheduler threads only call Deliver(); EnqueueNative and NoteCancellation may run on
// any thread (the native HTTP and gRPC servers' loops); everything else runs on the JS thread.
#pragma once

#include <napi.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "executor/model_options.h"
#include "executor/normalize.h"
#include "scheduler/model_scheduler.h"
#include "scheduler/sequence_batcher.h"

namespace gebe {

class ModelCore : public CompletionSink {
 public:
  ModelCore(ModelOptions options, std::vector<std::unique_ptr<Session>> sessions);
  ~ModelCore() override;

  // JS thread: wires the completion callback and starts the scheduler threads.
  void Start(Napi::Env env, Napi::Function on_complete, std::shared_ptr<ModelCore> self);

  // Scheduler threads: one thread-safe call per batch.
  void Deliver(std::unique_ptr<CompletedBatch> batch) override;

  // JS thread: the in-process entry point. (token, names[], datatypes[], shapes[], datas[],
  // outputs[] | null, priority, timeoutUs[, sequenceId, sequenceStart, sequenceEnd]): decoded
  // into a DecodedRequest, checked by Normalize like every other front end's. Returns undefined
  // when queued, or [reason, message] (reason: a FailureReason value) when refused now.
  // With a 12th argument true, a queued request answers a cancel handle (an External) instead of
  // undefined, for Cancel. A 13th, [traceId, timestamps, tensors], names the trace of the ensemble
  // request this one is a step of: the request is traced as its child at those levels
  // (trace/request_trace.h). A 14th, [startNs, endNs, 'http' | 'grpc'], says when a native front
  // end received it: its trace then comes back with the result (a 4th entry), for the send.
  Napi::Value Infer(const Napi::CallbackInfo& info);
  // JS thread: cancel(handle, reason): the request's caller went away; if it still waits in the
  // queue it fails with `reason` (a FailureReason value: kCancelled or kDeadlineExceeded).
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  // Any thread: queues a request a native front end decoded and Normalize passed (its
  // native_call set), as Infer queues one from JS: a sequence model's through its sequence
  // batcher with the request's id and flags. Its completion goes to request->native_call, never to
  // JS, and it does not keep the JS loop alive. kRefused: the model is unloading or unloaded
  // (nothing happened; the request stays with the caller). kRejected: the scheduler or the
  // sequence batcher refused it now; the request stays with the caller with its error set.
  enum class NativeEnqueue { kQueued, kRefused, kRejected };
  NativeEnqueue EnqueueNative(NormalizedRequest& normalized);
  // Any thread: a natively queued request now reports a CancelReason (see NativeCall).
  void NoteCancellation();
  // JS thread, once, before the first request: what clients may send (config dims with -1 for
  // the batch dimension, optional inputs, the version responses name), in the engine's order.
  // Every request is normalized against it; the output shapes it declares are the config's
  // promise: an answer whose output disagrees fails here, once, for every caller.
  // `input_shapes`/`output_shapes` must have one entry per client input/output (ClientInputs(),
  // ClientOutputs(): a sequence model's control and state tensors are not the client's).
  void SetContract(std::string version, std::vector<std::vector<int64_t>> input_shapes,
                   std::vector<std::vector<int64_t>> output_shapes, std::vector<bool> optional_inputs);
  // Null until SetContract (requests are refused until then). Immutable once set.
  std::shared_ptr<const RequestContract> contract() const { return contract_; }
  // JS thread: begins unloading; the completion callback gets `null` when everything is freed.
  void BeginUnload(Napi::Env env);
  // Work outside the scheduler (compile, direct runs) holds a use; unloading frees the sessions
  // only after the last use ends. False when the model is unloading or unloaded.
  bool AcquireUse();
  void ReleaseUse();
  bool unloading() const { return unloading_; }

  ModelScheduler* scheduler() { return scheduler_.get(); }
  // Requests queued or running, counting those a sequence batcher holds.
  size_t PendingCount() const {
    return (scheduler_ ? scheduler_->PendingCount() : 0) + (sequence_ ? sequence_->HeldCount() : 0);
  }
  // The tensors clients send and receive, in engine order: every engine tensor except the
  // control and state tensors a sequence batcher fills and takes (all of them otherwise).
  std::vector<TensorDesc> ClientInputs() const;
  std::vector<TensorDesc> ClientOutputs() const;
  const ModelOptions& options() const { return options_; }
  const std::vector<TensorDesc>& inputs() const { return inputs_; }
  const std::vector<TensorDesc>& outputs() const { return outputs_; }
  const std::vector<int64_t>& gears() const { return options_.policy.gears; }
  const std::string& engine_name() const { return engine_name_; }

 private:
  // JS thread: turns one finished batch into one call of the completion callback.
  void CallJs(Napi::Env env, Napi::Function callback, CompletedBatch* batch);
  uint64_t ShapeKey(const std::vector<TensorView>& inputs);
  // Any thread: what Infer and EnqueueNative share once a request passed Normalize: places its
  // inputs, keys its shapes, and queues it in the sequence batcher (with its sequence id and
  // flags) or the scheduler. False: refused now, the request stays with the caller, error set.
  bool Queue(NormalizedRequest& normalized);
  // Moves the normalized client inputs (client order) to their engine slots; the sequence
  // batcher fills the control and state slots left empty.
  void PlaceClientInputs(ScheduledRequest& request) const;
  // Constructor: finds the tensors the server fills and takes (the sequence batcher's, the batch
  // inputs) among the engine's, and sets the client ones.
  void ResolveServerTensors();
  // Resolves the config's ragged batching (options_.ragged_inputs, batch_inputs, batch_outputs)
  // into layout_, marking batch input targets as taken; throws naming what does not fit the model.
  void ResolveBatchLayout(std::vector<bool>& taken_in, const std::vector<bool>& taken_out);
  // Scheduler threads: fails each answer whose output shapes disagree with the config's.
  void FailWrongOutputShapes(CompletedBatch& batch) const;
  // Scheduler threads: level TENSORS keeps the outputs each traced request asked for.
  void TraceOutputs(CompletedBatch& batch) const;

  ModelOptions options_;
  std::vector<TensorDesc> inputs_, outputs_;
  std::string engine_name_;
  std::vector<std::unique_ptr<Session>> sessions_;  // until Start hands them to the scheduler
  std::vector<size_t> client_inputs_, client_outputs_;  // engine indices of the client tensors
  BatchLayout layout_;  // set by the constructor, read-only after
  std::unique_ptr<SequenceBatcher> sequence_;  // sequence models; outlives the scheduler that feeds it
  std::unique_ptr<ModelScheduler> scheduler_;
  Napi::ThreadSafeFunction tsfn_;
  bool unloading_ = false;
  std::atomic<bool> torn_down_{false};  // the environment is going away: deliver nothing
  std::thread closer_;
  std::mutex use_mu_;
  std::condition_variable use_cv_;
  int uses_ = 0;            // guarded by use_mu_
  bool closing_ = false;    // guarded by use_mu_
  // JS thread only:
  size_t outstanding_ = 0;  // requests queued through Infer and not yet answered (keeps the loop alive)
  std::shared_ptr<const RequestContract> contract_;  // set before the first request; read by Deliver
  // Shape keys are interned from the JS thread and the native HTTP loop alike.
  std::mutex shape_mu_;
  std::map<std::vector<int64_t>, uint64_t> shape_keys_;  // guarded by shape_mu_
  std::vector<int64_t> signature_;                       // guarded by shape_mu_
  uint64_t next_shape_key_ = 1;                          // guarded by shape_mu_
};

}  // namespace gebe
