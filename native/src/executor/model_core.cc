#include "executor/model_core.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "executor/answer_output.h"
#include "trace/trace_js.h"
#include "executor/js_request.h"
#include "executor/request_wording.h"

namespace gebe {

namespace {

Napi::Array ShapeArray(Napi::Env env, const std::vector<int64_t>& shape) {
  Napi::Array a = Napi::Array::New(env, shape.size());
  for (size_t i = 0; i < shape.size(); ++i) a.Set(static_cast<uint32_t>(i), Napi::Number::New(env, double(shape[i])));
  return a;
}

// The batch's output tensor as one ArrayBuffer over native memory (no copy); the requests'
// Uint8Arrays are views into it. Falls back to a copy where external buffers are not allowed.
Napi::ArrayBuffer OutputBuffer(Napi::Env env, const std::shared_ptr<BatchOutputs>& outputs, size_t index) {
  Tensor& t = outputs->tensors[index];
  if (t.buffer.size() == 0) return Napi::ArrayBuffer::New(env, 0);
  auto* hold = new std::shared_ptr<BatchOutputs>(outputs);
  napi_value value;
  napi_status status = napi_create_external_arraybuffer(
      env, t.buffer.data(), t.buffer.size(),
      [](napi_env, void*, void* hint) { delete static_cast<std::shared_ptr<BatchOutputs>*>(hint); }, hold, &value);
  if (status == napi_ok) return Napi::ArrayBuffer(env, value);
  delete hold;
  Napi::ArrayBuffer copy = Napi::ArrayBuffer::New(env, t.buffer.size());
  std::memcpy(copy.Data(), t.buffer.data(), t.buffer.size());
  return copy;
}

}  // namespace

ModelCore::ModelCore(ModelOptions options, std::vector<std::unique_ptr<Session>> sessions)
    : options_(std::move(options)), sessions_(std::move(sessions)) {
  Session& first = *sessions_.front();
  inputs_ = first.inputs();
  outputs_ = first.outputs();
  engine_name_ = first.engine_name();
  std::vector<int64_t> engine_gears = first.gears();
  if (!engine_gears.empty()) options_.policy.gears = engine_gears;
  options_.policy.Finalize();
  ResolveServerTensors();
}

namespace {

// `where` says who names it, e.g. "sequence_batching of model 'm' names control input".
size_t FindTensor(const std::vector<TensorDesc>& tensors, const std::string& name, const std::string& where) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return i;
  }
  std::string names;
  for (const auto& t : tensors) names += (names.empty() ? "'" : ", '") + t.name + "'";
  throw std::runtime_error(where + " '" + name + "', but the model file has no such tensor (it has " + names + ")");
}

}  // namespace

void ModelCore::ResolveServerTensors() {
  std::vector<bool> taken_in(inputs_.size(), false), taken_out(outputs_.size(), false);
  SequenceConfig& seq = options_.sequence;
  const std::string sequence_names = "sequence_batching of model '" + options_.model_name + "' names ";
  if (seq.enabled) {
    for (auto& c : seq.controls) {
      c.engine_index = FindTensor(inputs_, c.name, sequence_names + "control input");
      taken_in[c.engine_index] = true;
    }
    for (auto& st : seq.states) {
      st.engine_input = FindTensor(inputs_, st.input_name, sequence_names + "state input");
      st.engine_output = FindTensor(outputs_, st.output_name, sequence_names + "state output");
      taken_in[st.engine_input] = true;
      taken_out[st.engine_output] = true;
      const size_t element = ElementSize(st.dtype);
      int64_t count = 1;
      for (int64_t d : st.dims) count *= d;
      if (element == 0 || count <= 0) {
        throw std::runtime_error("state '" + st.input_name + "' of model '" + options_.model_name +
                                 "' needs a fixed-size data_type and dims (no -1, no TYPE_STRING)");
      }
      st.byte_size = static_cast<size_t>(count) * element;
      if (!st.initial.empty() && st.initial.size() != st.byte_size) {
        throw std::runtime_error("initial_state of state '" + st.input_name + "' of model '" + options_.model_name + "' has " +
                                 std::to_string(st.initial.size()) + " bytes; its data_type and dims need " +
                                 std::to_string(st.byte_size));
      }
    }
  }
  ResolveBatchLayout(taken_in, taken_out);
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!taken_in[i]) client_inputs_.push_back(i);
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (!taken_out[i]) client_outputs_.push_back(i);
  }
}

void ModelCore::ResolveBatchLayout(std::vector<bool>& taken_in, const std::vector<bool>& taken_out) {
  const std::string& model = options_.model_name;
  const bool any = !options_.ragged_inputs.empty() || !options_.batch_inputs.empty() || !options_.batch_outputs.empty();
  if (!any) return;
  if (!options_.policy.gears.empty()) {
    throw std::runtime_error("model '" + model + "' runs fixed batch sizes (gears), so it cannot take ragged inputs, batch_input or "
                             "batch_output; remove them from its config, or give it a model file with a dynamic batch dimension");
  }
  // A client input: not fed by the sequence batcher or by another batch input.
  auto client_input = [&](const std::string& name, const std::string& where) {
    const size_t i = FindTensor(inputs_, name, where);
    if (taken_in[i]) throw std::runtime_error(where + " '" + name + "', which gebe serve fills itself; name a request input");
    return i;
  };
  layout_.ragged.assign(inputs_.size(), false);
  if (options_.batched) {
    for (const std::string& name : options_.ragged_inputs) {
      layout_.ragged[client_input(name, "input of model '" + model + "' with allow_ragged_batch is named")] = true;
    }
  }
  for (const BatchInputOption& option : options_.batch_inputs) {
    BatchInputSpec spec;
    spec.kind = option.kind;
    spec.dtype = option.dtype;
    spec.source = client_input(option.source, "batch_input of model '" + model + "' names source input");
    if (option.targets.empty()) throw std::runtime_error("batch_input of model '" + model + "' names no target_name; name the model input it feeds");
    for (const std::string& target : option.targets) {
      const size_t t = FindTensor(inputs_, target, "batch_input of model '" + model + "' names target");
      if (taken_in[t] || t == spec.source) {
        throw std::runtime_error("batch_input of model '" + model + "' names target '" + target +
                                 "', which is already a request input or filled by gebe serve; give each batch input its own model input");
      }
      if (inputs_[t].dtype != spec.dtype) {
        throw std::runtime_error("batch_input of model '" + model + "' feeds '" + target + "' as " + DataTypeName(spec.dtype) +
                                 ", but the model file has " + DataTypeName(inputs_[t].dtype) + " for it; set its data_type to TYPE_" +
                                 DataTypeName(inputs_[t].dtype) + " (only TYPE_INT32 and TYPE_FP32 are allowed) or change the model");
      }
      taken_in[t] = true;
      spec.targets.push_back(t);
    }
    layout_.inputs.push_back(std::move(spec));
  }
  for (const BatchOutputOption& option : options_.batch_outputs) {
    BatchOutputSpec spec;
    spec.output = FindTensor(outputs_, option.output, "batch_output of model '" + model + "' names target");
    if (taken_out[spec.output]) {
      throw std::runtime_error("batch_output of model '" + model + "' names target '" + option.output + "', which is a sequence state output");
    }
    spec.source = client_input(option.source, "batch_output of model '" + model + "' names source input");
    spec.shape = option.shape;
    layout_.outputs.push_back(std::move(spec));
  }
}

std::vector<TensorDesc> ModelCore::ClientInputs() const {
  std::vector<TensorDesc> out;
  for (size_t i : client_inputs_) out.push_back(inputs_[i]);
  return out;
}

std::vector<TensorDesc> ModelCore::ClientOutputs() const {
  std::vector<TensorDesc> out;
  for (size_t i : client_outputs_) out.push_back(outputs_[i]);
  return out;
}

ModelCore::~ModelCore() {
  // Reached from the thread-safe function's finalizer (environment teardown) or after unload;
  // either way nobody in JS waits for answers any more.
  torn_down_.store(true);
  if (sequence_) sequence_->Stop();
  if (scheduler_) scheduler_->Stop();
  if (closer_.joinable()) closer_.join();
}

void ModelCore::Start(Napi::Env env, Napi::Function on_complete, std::shared_ptr<ModelCore> self) {
  auto* context = new std::shared_ptr<ModelCore>(std::move(self));
  tsfn_ = Napi::ThreadSafeFunction::New(env, on_complete, "gebe-executor", 0, 1, context,
                                        [](Napi::Env, std::shared_ptr<ModelCore>* ctx) { delete ctx; });
  // The loop is kept alive only while requests are outstanding (see Infer / CallJs).
  tsfn_.Unref(env);
  CompletionSink* sink = this;
  if (options_.sequence.enabled) {
    sequence_ = std::make_unique<SequenceBatcher>(options_.model_name, options_.sequence, options_.batched, sessions_.size(), this);
    sink = sequence_.get();
  }
  scheduler_ = std::make_unique<ModelScheduler>(options_.model_name, options_.policy, options_.batched,
                                                std::move(sessions_), sink, options_.idle_spin_us, std::move(options_.rate_limits), layout_);
  if (sequence_) sequence_->SetScheduler(scheduler_.get());
}

namespace {

bool ShapeAgrees(const std::vector<int64_t>& declared, const std::vector<int64_t>& got) {
  if (declared.size() != got.size()) return false;
  for (size_t k = 0; k < got.size(); ++k) {
    if (declared[k] != -1 && declared[k] != got[k]) return false;
  }
  return true;
}

// A 16th argument of infer: the request's id, which its trace names (Triton's request_id).
void SetTracedRequestId(const Napi::CallbackInfo& info, RequestTrace& trace) {
  if (info.Length() > 15 && info[15].IsString()) trace.SetRequestId(info[15].As<Napi::String>().Utf8Value());
}

}  // namespace

void ModelCore::SetContract(std::string version, std::vector<std::vector<int64_t>> input_shapes,
                            std::vector<std::vector<int64_t>> output_shapes, std::vector<bool> optional_inputs) {
  auto contract = std::make_shared<RequestContract>();
  contract->model_name = options_.model_name;
  contract->version = std::move(version);
  contract->batched = options_.batched;
  contract->max_request_batch = options_.policy.effective_max_batch;
  for (size_t k = 0; k < client_inputs_.size(); ++k) {
    const TensorDesc& t = inputs_[client_inputs_[k]];
    contract->inputs.push_back({t.name, t.dtype, std::move(input_shapes[k]), k < optional_inputs.size() && optional_inputs[k]});
  }
  for (size_t k = 0; k < client_outputs_.size(); ++k) {
    const TensorDesc& t = outputs_[client_outputs_[k]];
    contract->outputs.push_back({t.name, t.dtype, std::move(output_shapes[k]), false});
    contract->engine_outputs.push_back(client_outputs_[k]);
  }
  contract_ = std::move(contract);
}

void ModelCore::FailWrongOutputShapes(CompletedBatch& batch) const {
  if (!contract_) return;
  const std::vector<ContractTensor>& declared = contract_->outputs;  // the client outputs, in engine order
  for (auto& r : batch.requests) {
    if (!r->ok()) continue;
    for (size_t k = 0; k < client_outputs_.size() && k < declared.size(); ++k) {
      const size_t o = client_outputs_[k];
      if (o >= r->outputs.size()) break;
      const std::vector<int64_t>& got = r->outputs[o].shape;
      if (ShapeAgrees(declared[k].shape, got)) continue;
      r->Fail(FailureReason::kBackend,
              "output '" + outputs_[o].name + "' of model '" + options_.model_name + "' has shape " + wording::Shape(got) +
                  ", but its config declares " + wording::Shape(declared[k].shape) + "; fix dims in config.pbtxt or the model");
      break;
    }
  }
}

void ModelCore::TraceOutputs(CompletedBatch& batch) const {
  for (auto& r : batch.requests) {
    if (!r->trace || !r->trace->keep_tensors || !r->ok()) continue;
    for (size_t k = 0; k < contract_->outputs.size(); ++k) {
      if (k < 64 && !((r->output_mask >> k) & 1)) continue;
      AnsweredOutput answered;
      if (!AnswerOutput(*contract_, *r, *batch.outputs, k, &answered)) continue;
      r->trace->AddTensor(true, answered.meta->name, DataTypeName(answered.meta->dtype), answered.slice->shape, answered.data,
                          answered.slice->byte_size);
    }
  }
}

void ModelCore::Deliver(std::unique_ptr<CompletedBatch> batch) {
  FailWrongOutputShapes(*batch);
  if (batch->outputs) TraceOutputs(*batch);
  // Requests queued from JS end here (a native call's sink ends its own trace); one a native front
  // end received goes back to JS with its answer, for that front end to time the send.
  for (auto& r : batch->requests) {
    if (!r->trace || r->native_call) continue;
    r->trace->StampNow(TraceStamp::kRequestEnd);
    // JS has the result from here (the completion call carries it): the response is complete.
    r->trace->Stamp(TraceStamp::kInferResponseComplete, r->trace->ns[size_t(TraceStamp::kRequestEnd)]);
    if (r->trace->protocol == TraceProtocol::kNone) CollectTrace(std::move(r->trace));
  }
  // Natively taken requests go to their own sinks here, on this thread, even while the
  // environment goes away: each must be answered exactly once. The rest goes on to JS.
  bool any_native = false;
  for (const auto& r : batch->requests) any_native = any_native || r->native_call != nullptr;
  if (any_native) {
    NativeAnswerBatch answers;  // the writers are woken once, after the last answer is queued
    std::vector<std::unique_ptr<ScheduledRequest>> to_js;
    for (auto& r : batch->requests) {
      if (!r->native_call) {
        to_js.push_back(std::move(r));
        continue;
      }
      std::unique_ptr<NativeCall> call = std::move(r->native_call);
      std::shared_ptr<BatchOutputs> outputs = r->ok() ? batch->outputs : nullptr;
      call->Finished(std::move(r), std::move(outputs));
    }
    batch->requests = std::move(to_js);
    if (batch->requests.empty() && !batch->closed) return;
  }
  if (torn_down_.load()) return;
  CompletedBatch* raw = batch.release();
  napi_status status = tsfn_.NonBlockingCall(raw, [this](Napi::Env env, Napi::Function callback, CompletedBatch* b) {
    CallJs(env, callback, b);
  });
  if (status != napi_ok) delete raw;  // the environment is shutting down: nobody is waiting
}

void ModelCore::CallJs(Napi::Env env, Napi::Function callback, CompletedBatch* raw) {
  std::unique_ptr<CompletedBatch> batch(raw);
  if (env == nullptr || callback.IsEmpty()) return;
  if (batch->closed) {
    if (closer_.joinable()) closer_.join();
    scheduler_.reset();  // frees the instances and their engine sessions
    sequence_.reset();
    callback.Call({env.Null()});
    tsfn_.Release();
    return;
  }
  Napi::Array results = Napi::Array::New(env, batch->requests.size());
  std::vector<Napi::ArrayBuffer> buffers(outputs_.size());
  std::vector<bool> made(outputs_.size(), false);
  uint32_t n = 0;
  for (auto& r : batch->requests) {
    Napi::Array entry = Napi::Array::New(env);
    entry.Set(0u, Napi::Number::New(env, double(r->token)));
    if (r->ok() && batch->outputs) {
      entry.Set(1u, Napi::Number::New(env, 0));
      const size_t count = std::min(client_outputs_.size(), r->outputs.size());
      Napi::Array outs = Napi::Array::New(env, count * 2);
      for (size_t k = 0; k < count; ++k) {
        const size_t o = client_outputs_[k];
        const bool wanted = k >= 64 || (r->output_mask >> k) & 1;
        if (!wanted) {
          outs.Set(static_cast<uint32_t>(2 * k), env.Null());
          outs.Set(static_cast<uint32_t>(2 * k + 1), env.Null());
          continue;
        }
        if (!made[o]) {
          buffers[o] = OutputBuffer(env, batch->outputs, o);
          made[o] = true;
        }
        const OutputSlice& s = r->outputs[o];
        outs.Set(static_cast<uint32_t>(2 * k), Napi::Uint8Array::New(env, s.byte_size, buffers[o], s.offset));
        outs.Set(static_cast<uint32_t>(2 * k + 1), ShapeArray(env, s.shape));
      }
      entry.Set(2u, outs);
      if (r->trace) entry.Set(3u, TraceToJs(env, *r->trace));
    } else {
      const FailureReason reason = r->failure == FailureReason::kNone ? FailureReason::kInternal : r->failure;
      entry.Set(1u, Napi::Number::New(env, double(reason)));
      entry.Set(2u, Napi::String::New(env, r->error));
      if (r->trace) entry.Set(3u, TraceToJs(env, *r->trace));
    }
    results.Set(n++, entry);
  }
  outstanding_ -= batch->requests.size();
  if (outstanding_ == 0 && !unloading_) tsfn_.Unref(env);
  batch.reset();
  callback.Call({results});
}

uint64_t ModelCore::ShapeKey(const std::vector<TensorView>& inputs) {
  // Requests batch together only with identical non-batch shapes: the key is an interned id of
  // the shapes (exact, no hash collisions). The table is reset when clients send too many
  // distinct shapes; new ids keep growing, so an old key is never reused for another shape.
  std::lock_guard<std::mutex> lock(shape_mu_);
  signature_.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorView& in = inputs[i];
    signature_.push_back(static_cast<int64_t>(in.shape.size()));
    if (layout_.IsRagged(i)) continue;  // any shape batches with any other (ragged batching)
    for (size_t d = options_.batched ? 1 : 0; d < in.shape.size(); ++d) signature_.push_back(in.shape[d]);
  }
  auto it = shape_keys_.find(signature_);
  if (it != shape_keys_.end()) return it->second;
  if (shape_keys_.size() >= 4096) shape_keys_.clear();
  const uint64_t key = next_shape_key_++;
  shape_keys_.emplace(signature_, key);
  return key;
}

void ModelCore::PlaceClientInputs(ScheduledRequest& request) const {
  std::vector<TensorView> placed(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    placed[i].name = inputs_[i].name;
    placed[i].dtype = inputs_[i].dtype;
  }
  for (size_t k = 0; k < client_inputs_.size() && k < request.inputs.size(); ++k) {
    placed[client_inputs_[k]] = std::move(request.inputs[k]);
  }
  request.inputs = std::move(placed);
}

Napi::Value ModelCore::Infer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto reject = [&](FailureReason reason, const std::string& message) {
    Napi::Array out = Napi::Array::New(env, 2);
    out.Set(0u, Napi::Number::New(env, double(reason)));
    out.Set(1u, Napi::String::New(env, message));
    return out;
  };
  if (!scheduler_ || unloading_ || !contract_) {
    return reject(FailureReason::kUnavailable,
                  "model '" + options_.model_name + "' is unloaded; load it again before sending requests");
  }
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "Expected a token first for infer");
  DecodedRequest decoded = DecodeJsRequest(info, 1);
  NormalizedRequest normalized;
  // The contract names the client inputs only: a sequence model's control and state inputs are
  // the batcher's to fill, never the client's to send.
  const int64_t request_start_ns = TracingOn() ? SteadyNowNs() : 0;
  RequestFailure failure = Normalize(*contract_, decoded, &normalized);
  if (!failure.ok()) return reject(failure.reason, failure.message);
  std::unique_ptr<ScheduledRequest>& request = normalized.request;
  request->token = static_cast<uint64_t>(info[0].As<Napi::Number>().Int64Value());
  // A request from JS is traced from here to its completion. A step of a traced ensemble request
  // (a 13th argument, [parentId, timestamps, tensors]: the ensemble's trace and the levels it
  // traces) is always traced; with parentId 0 the caller sampled the request already and does not
  // trace it (a cache-enabled model's run on a miss), so it is not sampled again.
  Napi::Array parent = info.Length() > 12 && info[12].IsArray() ? info[12].As<Napi::Array>() : Napi::Array();
  const bool caller_sampled = !parent.IsEmpty() && parent.Length() == 3;
  const uint64_t parent_trace = caller_sampled ? uint64_t(parent.Get(0u).ToNumber().Int64Value()) : 0;
  if (parent_trace != 0) {
    request->trace = ChildTrace(contract_->model_name, contract_->version, parent_trace, parent.Get(1u).ToBoolean().Value(),
                                parent.Get(2u).ToBoolean().Value());
    request->trace->StampNow(TraceStamp::kRequestStart);
    SetTracedRequestId(info, *request->trace);
  } else if (request_start_ns != 0 && !caller_sampled) {
    // A 14th argument, [startNs, endNs, 'http' | 'grpc']: when a native front end received the
    // request JS hands on here (its receive timestamps; the trace goes back to JS with the result,
    // for that front end to time the send).
    const bool received = info.Length() > 13 && info[13].IsArray() && info[13].As<Napi::Array>().Length() == 3;
    const std::string via = received ? info[13].As<Napi::Array>().Get(2u).ToString().Utf8Value() : "";
    const TraceProtocol protocol = via == "http" ? TraceProtocol::kHttp : via == "grpc" ? TraceProtocol::kGrpc : TraceProtocol::kNone;
    // A 15th argument: the client's traceparent (OpenTelemetry context propagation).
    const std::string traceparent = info.Length() > 14 && info[14].IsString() ? info[14].As<Napi::String>().Utf8Value() : std::string();
    request->trace = SampleTrace(contract_->model_name, contract_->version, protocol, traceparent);
    if (request->trace) {
      SetTracedRequestId(info, *request->trace);
      request->trace->Stamp(TraceStamp::kRequestStart, request_start_ns);
      if (protocol != TraceProtocol::kNone) {
        Napi::Array at = info[13].As<Napi::Array>();
        bool lossless = false;
        if (at.Get(0u).IsBigInt()) request->trace->Stamp(TraceStamp::kRecvStart, at.Get(0u).As<Napi::BigInt>().Int64Value(&lossless));
        if (at.Get(1u).IsBigInt()) request->trace->Stamp(TraceStamp::kRecvEnd, at.Get(1u).As<Napi::BigInt>().Int64Value(&lossless));
      }
    }
  }
  std::shared_ptr<std::atomic<int>> cancel;
  if (info.Length() > 11 && info[11].ToBoolean().Value()) request->js_cancel = cancel = std::make_shared<std::atomic<int>>(0);
  if (!Queue(normalized)) return reject(request->failure, request->error);
  if (outstanding_++ == 0 && !unloading_) tsfn_.Ref(env);
  if (!cancel) return env.Undefined();
  using Handle = std::shared_ptr<std::atomic<int>>;
  return Napi::External<Handle>::New(env, new Handle(std::move(cancel)), [](Napi::Env, Handle* h) { delete h; });
}

Napi::Value ModelCore::Cancel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  using Handle = std::shared_ptr<std::atomic<int>>;
  if (info.Length() != 2 || !info[0].IsExternal() || !info[1].IsNumber()) {
    throw Napi::TypeError::New(env, "Expected (handle, reason) for cancel");
  }
  const int reason = info[1].As<Napi::Number>().Int32Value();
  if (reason != int(FailureReason::kCancelled) && reason != int(FailureReason::kDeadlineExceeded)) {
    throw Napi::RangeError::New(env, "cancel takes the CANCELLED or DEADLINE_EXCEEDED reason");
  }
  int live = 0;
  if ((*info[0].As<Napi::External<Handle>>().Data())->compare_exchange_strong(live, reason)) NoteCancellation();
  return env.Undefined();
}

bool ModelCore::Queue(NormalizedRequest& normalized) {
  std::unique_ptr<ScheduledRequest>& request = normalized.request;
  // Level TENSORS: the client's inputs as queued (still in the contract's order here).
  if (request->trace && request->trace->keep_tensors) {
    for (size_t i = 0; i < request->inputs.size() && i < contract_->inputs.size(); ++i) {
      const TensorView& v = request->inputs[i];
      if (v.data != nullptr) request->trace->AddTensor(false, contract_->inputs[i].name, DataTypeName(v.dtype), v.shape, v.data, v.byte_size);
    }
  }
  if (client_inputs_.size() != inputs_.size()) PlaceClientInputs(*request);
  request->info.shape_key = ShapeKey(request->inputs);
  if (sequence_) {
    const SequenceParameters& seq = normalized.sequence;
    return sequence_->Enqueue(request, seq.id, seq.flags, normalized.priority, normalized.timeout_us);
  }
  return scheduler_->Enqueue(request, normalized.priority, normalized.timeout_us);
}

ModelCore::NativeEnqueue ModelCore::EnqueueNative(NormalizedRequest& normalized) {
  // The use keeps the scheduler (and sequence batcher) from being stopped and freed while this
  // thread enqueues; once queued, the scheduler answers the request before its closing hand-back.
  if (!AcquireUse()) return NativeEnqueue::kRefused;
  const bool queued = Queue(normalized);
  ReleaseUse();
  return queued ? NativeEnqueue::kQueued : NativeEnqueue::kRejected;
}

void ModelCore::NoteCancellation() {
  if (!AcquireUse()) return;  // unloading: the queue runs to the end anyway
  scheduler_->NoteCancellation();
  ReleaseUse();
}

void ModelCore::BeginUnload(Napi::Env env) {
  if (unloading_ || !scheduler_) return;
  unloading_ = true;
  tsfn_.Ref(env);  // until the closing call arrives
  {
    std::lock_guard<std::mutex> lock(use_mu_);
    closing_ = true;
  }
  ModelScheduler* scheduler = scheduler_.get();
  closer_ = std::thread([this, scheduler] {
    {
      std::unique_lock<std::mutex> lock(use_mu_);
      use_cv_.wait(lock, [&] { return uses_ == 0; });
    }
    if (sequence_) sequence_->Stop();
    scheduler->Stop();  // its last delivery (closed) frees the sessions on the JS thread
  });
}

bool ModelCore::AcquireUse() {
  std::lock_guard<std::mutex> lock(use_mu_);
  if (closing_ || !scheduler_) return false;
  ++uses_;
  return true;
}

void ModelCore::ReleaseUse() {
  std::lock_guard<std::mutex> lock(use_mu_);
  if (--uses_ == 0) use_cv_.notify_all();
}

}  // namespace gebe
