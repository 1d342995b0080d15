#include "executor/model_core.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

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
  ResolveSequenceTensors();
}

namespace {

size_t FindTensor(const std::vector<TensorDesc>& tensors, const std::string& name, const char* what, const std::string& model) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return i;
  }
  std::string names;
  for (const auto& t : tensors) names += (names.empty() ? "'" : ", '") + t.name + "'";
  throw std::runtime_error("sequence_batching of model '" + model + "' names " + what + " '" + name +
                           "', but the model file has no such tensor (it has " + names + ")");
}

}  // namespace

void ModelCore::ResolveSequenceTensors() {
  std::vector<bool> taken_in(inputs_.size(), false), taken_out(outputs_.size(), false);
  SequenceConfig& seq = options_.sequence;
  if (seq.enabled) {
    for (auto& c : seq.controls) {
      c.engine_index = FindTensor(inputs_, c.name, "control input", options_.model_name);
      taken_in[c.engine_index] = true;
    }
    for (auto& st : seq.states) {
      st.engine_input = FindTensor(inputs_, st.input_name, "state input", options_.model_name);
      st.engine_output = FindTensor(outputs_, st.output_name, "state output", options_.model_name);
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
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!taken_in[i]) client_inputs_.push_back(i);
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (!taken_out[i]) client_outputs_.push_back(i);
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
                                                std::move(sessions_), sink, options_.idle_spin_us);
  if (sequence_) sequence_->SetScheduler(scheduler_.get());
}

namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size() && i < 16; ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + (shape.size() > 16 ? ",… (" + std::to_string(shape.size()) + " dimensions)]" : "]");
}

bool ShapeAgrees(const std::vector<int64_t>& declared, const std::vector<int64_t>& got) {
  if (declared.size() != got.size()) return false;
  for (size_t k = 0; k < got.size(); ++k) {
    if (declared[k] != -1 && declared[k] != got[k]) return false;
  }
  return true;
}

}  // namespace

void ModelCore::FailWrongOutputShapes(CompletedBatch& batch) const {
  if (client_output_shapes_.size() != client_outputs_.size()) return;
  for (auto& r : batch.requests) {
    if (!r->ok()) continue;
    for (size_t k = 0; k < client_outputs_.size(); ++k) {
      const size_t o = client_outputs_[k];
      if (o >= r->outputs.size()) break;
      const std::vector<int64_t>& got = r->outputs[o].shape;
      if (ShapeAgrees(client_output_shapes_[k], got)) continue;
      r->Fail(FailureReason::kBackend, 500,
              "output '" + outputs_[o].name + "' of model '" + options_.model_name + "' has shape " + ShapeText(got) +
                  ", but its config declares " + ShapeText(client_output_shapes_[k]) + "; fix dims in config.pbtxt or the model");
      break;
    }
  }
}

void ModelCore::Deliver(std::unique_ptr<CompletedBatch> batch) {
  FailWrongOutputShapes(*batch);
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
    } else {
      entry.Set(1u, Napi::Number::New(env, r->status == 0 ? 500 : r->status));
      entry.Set(2u, Napi::String::New(env, r->error));
      entry.Set(3u, Napi::String::New(env, FailureReasonName(r->failure)));
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
  for (const auto& in : inputs) {
    signature_.push_back(static_cast<int64_t>(in.shape.size()));
    for (size_t d = options_.batched ? 1 : 0; d < in.shape.size(); ++d) signature_.push_back(in.shape[d]);
  }
  auto it = shape_keys_.find(signature_);
  if (it != shape_keys_.end()) return it->second;
  if (shape_keys_.size() >= 4096) shape_keys_.clear();
  const uint64_t key = next_shape_key_++;
  shape_keys_.emplace(signature_, key);
  return key;
}

namespace {

// infer's 7th argument: the sequence id (a number, a bigint or a string; absent: none).
SequenceId ReadSequenceId(const Napi::CallbackInfo& info) {
  SequenceId id;
  if (info.Length() < 7) return id;
  Napi::Value v = info[6];
  if (v.IsString()) {
    id.kind = SequenceId::Kind::kText;
    id.text = v.As<Napi::String>().Utf8Value();
  } else if (v.IsBigInt()) {
    bool lossless = true;
    id.kind = SequenceId::Kind::kNumber;
    id.number = v.As<Napi::BigInt>().Uint64Value(&lossless);
  } else if (v.IsNumber()) {
    const double n = v.As<Napi::Number>().DoubleValue();
    id.kind = SequenceId::Kind::kNumber;
    id.number = n >= 0 && n < 18446744073709551616.0 ? static_cast<uint64_t>(n) : 0;
  }
  return id;
}

// infer's 8th argument: bit 0 START, bit 1 END.
uint8_t ReadSequenceFlags(const Napi::CallbackInfo& info) {
  if (info.Length() < 8 || !info[7].IsNumber()) return 0;
  return static_cast<uint8_t>(info[7].As<Napi::Number>().Uint32Value() & (kSequenceStart | kSequenceEnd));
}

}  // namespace

Napi::Value ModelCore::Infer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto reject = [&](int status, const std::string& message, const char* reason) {
    Napi::Array out = Napi::Array::New(env, 3);
    out.Set(0u, Napi::Number::New(env, status));
    out.Set(1u, Napi::String::New(env, message));
    out.Set(2u, Napi::String::New(env, reason));
    return out;
  };
  if (!scheduler_ || unloading_) {
    return reject(503, "model '" + options_.model_name + "' is unloaded; load it again before sending requests", "REJECTED");
  }
  if (info.Length() < 6 || !info[0].IsNumber() || !info[1].IsArray() || !info[2].IsArray()) {
    throw Napi::TypeError::New(env, "Expected (token, datas[], shapes[], outputMask, priority, timeoutUs[, sequenceId, sequenceFlags]) for infer");
  }
  Napi::Array datas = info[1].As<Napi::Array>();
  Napi::Array shapes = info[2].As<Napi::Array>();
  if (datas.Length() != client_inputs_.size() || shapes.Length() != client_inputs_.size()) {
    throw Napi::TypeError::New(env, "Expected one tensor per model input, in the model's input order");
  }
  auto request = std::make_unique<ScheduledRequest>();
  request->token = static_cast<uint64_t>(info[0].As<Napi::Number>().Int64Value());
  request->output_mask = static_cast<uint64_t>(info[3].As<Napi::Number>().Int64Value());
  request->inputs.resize(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    request->inputs[i].name = inputs_[i].name;
    request->inputs[i].dtype = inputs_[i].dtype;
  }
  for (uint32_t k = 0; k < client_inputs_.size(); ++k) {
    const size_t i = client_inputs_[k];
    Napi::Value data = datas.Get(k);
    if (!data.IsTypedArray()) throw Napi::TypeError::New(env, "Expected a Uint8Array for input '" + inputs_[i].name + "'");
    Napi::TypedArray bytes = data.As<Napi::TypedArray>();
    Napi::Array shape = shapes.Get(k).As<Napi::Array>();
    TensorView& view = request->inputs[i];
    view.name = inputs_[i].name;
    view.dtype = inputs_[i].dtype;
    view.shape.resize(shape.Length());
    for (uint32_t d = 0; d < shape.Length(); ++d) view.shape[d] = shape.Get(d).As<Napi::Number>().Int64Value();
    view.data = static_cast<const uint8_t*>(bytes.ArrayBuffer().Data()) + bytes.ByteOffset();
    view.byte_size = bytes.ByteLength();
    // The facade validated sizes; this guard keeps a facade bug from becoming an out-of-bounds read.
    const size_t element = ElementSize(view.dtype);
    int64_t count = 1;
    for (int64_t d : view.shape) {
      if (d < 0) throw Napi::TypeError::New(env, "negative dimension for input '" + view.name + "'");
      count *= d;
    }
    if (element > 0 && view.byte_size != static_cast<size_t>(count) * element) {
      throw Napi::TypeError::New(env, "byte size of input '" + view.name + "' does not match its shape");
    }
  }
  const TensorView* first = client_inputs_.empty() ? nullptr : &request->inputs[client_inputs_.front()];
  request->info.rows = options_.batched && first != nullptr && !first->shape.empty() ? first->shape[0] : 1;
  request->info.shape_key = ShapeKey(request->inputs);
  const auto priority = static_cast<uint32_t>(info[4].As<Napi::Number>().Uint32Value());
  const auto timeout_us = static_cast<uint64_t>(info[5].As<Napi::Number>().Int64Value());
  const bool queued = sequence_ ? sequence_->Enqueue(request, ReadSequenceId(info), ReadSequenceFlags(info), priority, timeout_us)
                                : scheduler_->Enqueue(request, priority, timeout_us);
  if (!queued) {
    return reject(request->status, request->error, FailureReasonName(request->failure));
  }
  if (outstanding_++ == 0 && !unloading_) tsfn_.Ref(env);
  return env.Undefined();
}

ModelCore::NativeEnqueue ModelCore::EnqueueNative(std::unique_ptr<ScheduledRequest>& request, uint32_t priority,
                                                  uint64_t timeout_us) {
  // The use keeps the scheduler from being stopped (and freed) while this thread enqueues; once
  // queued, the scheduler answers the request before its closing hand-back.
  if (!AcquireUse()) return NativeEnqueue::kRefused;
  if (sequence_) {
    // Native front ends do not carry sequence ids: sequence models take the JS route (their
    // LoadedModel has no nativeModel()); this guard keeps a caller that skipped it correct.
    ReleaseUse();
    request->Fail(FailureReason::kOther, 400, "model '" + options_.model_name + "' is a sequence model; send its requests through infer()");
    return NativeEnqueue::kRejected;
  }
  request->info.shape_key = ShapeKey(request->inputs);
  const bool queued = scheduler_->Enqueue(request, priority, timeout_us);
  ReleaseUse();
  return queued ? NativeEnqueue::kQueued : NativeEnqueue::kRejected;
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
