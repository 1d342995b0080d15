#include "executor/native_model.h"

#include "executor/js_convert.h"
#include "executor/latency_summary_js.h"

namespace gebe {

namespace {

Napi::FunctionReference* g_constructor = nullptr;

// Pre-compiles the given input shapes on every instance's session, off the JS thread.
class CompileWorker : public Napi::AsyncWorker {
 public:
  CompileWorker(Napi::Env env, std::shared_ptr<ModelCore> core, std::vector<NamedShape> shapes)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), core_(std::move(core)),
        shapes_(std::move(shapes)) {}
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    try {
      ModelScheduler* scheduler = core_->scheduler();
      report_.cached = true;
      for (size_t i = 0; i < scheduler->InstanceCount(); ++i) {
        CompileReport r = scheduler->WithSession(i, [&](Session& s) { return s.compile(shapes_); });
        report_.compile_ms += r.compile_ms;
        report_.arena_bytes = std::max(report_.arena_bytes, r.arena_bytes);
        report_.cached = report_.cached && r.cached;
      }
    } catch (const std::exception& e) {
      SetError(e.what());
    }
    core_->ReleaseUse();
  }
  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object o = Napi::Object::New(env);
    o.Set("compileMs", Napi::Number::New(env, report_.compile_ms));
    o.Set("arenaBytes", Napi::Number::New(env, double(report_.arena_bytes)));
    o.Set("cached", Napi::Boolean::New(env, report_.cached));
    deferred_.Resolve(o);
  }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<ModelCore> core_;
  std::vector<NamedShape> shapes_;
  CompileReport report_;
};

}  // namespace

Napi::Function NativeModel::Define(Napi::Env env) {
  Napi::Function ctor = DefineClass(env, "NativeModel",
                                    {InstanceMethod("metadata", &NativeModel::Metadata),
                                     InstanceMethod("infer", &NativeModel::Infer),
                                     InstanceMethod("cancel", &NativeModel::Cancel),
                                     InstanceMethod("stats", &NativeModel::Stats),
                                     InstanceMethod("enableLatencySummaries", &NativeModel::EnableLatencySummaries),
                                     InstanceMethod("latencySummaries", &NativeModel::LatencySummaries),
                                     InstanceMethod("pendingCount", &NativeModel::PendingCount),
                                     InstanceMethod("compile", &NativeModel::Compile),
                                     InstanceMethod("unload", &NativeModel::Unload),
                                     InstanceMethod("setContract", &NativeModel::SetContract)});
  g_constructor = new Napi::FunctionReference(Napi::Persistent(ctor));
  return ctor;
}

Napi::Object NativeModel::New(Napi::Env env, std::shared_ptr<ModelCore> core) {
  return g_constructor->New({Napi::External<std::shared_ptr<ModelCore>>::New(env, &core)});
}

std::shared_ptr<ModelCore> NativeModel::CoreOf(Napi::Value value) {
  if (g_constructor == nullptr || !value.IsObject() || !value.As<Napi::Object>().InstanceOf(g_constructor->Value())) return nullptr;
  return Unwrap(value.As<Napi::Object>())->core_;
}

NativeModel::NativeModel(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeModel>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "NativeModel is created by loadModel(), not with new");
  }
  core_ = *info[0].As<Napi::External<std::shared_ptr<ModelCore>>>().Data();
}

Napi::Value NativeModel::Metadata(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("engine", core_->engine_name());
  // The tensors clients send and receive (a sequence model's control and state tensors are the batcher's).
  const std::vector<TensorDesc> client_inputs = core_->ClientInputs();
  const std::vector<TensorDesc> client_outputs = core_->ClientOutputs();
  Napi::Array inputs = Napi::Array::New(env, client_inputs.size());
  for (size_t i = 0; i < client_inputs.size(); ++i) inputs.Set(uint32_t(i), TensorDescToJs(env, client_inputs[i]));
  Napi::Array outputs = Napi::Array::New(env, client_outputs.size());
  for (size_t i = 0; i < client_outputs.size(); ++i) outputs.Set(uint32_t(i), TensorDescToJs(env, client_outputs[i]));
  o.Set("inputs", inputs);
  o.Set("outputs", outputs);
  o.Set("gears", IntsToJs(env, core_->gears()));
  o.Set("maxBatch", Napi::Number::New(env, double(core_->options().policy.effective_max_batch)));
  o.Set("instanceCount", Napi::Number::New(env, core_->options().instance_count));
  return o;
}

Napi::Value NativeModel::Infer(const Napi::CallbackInfo& info) { return core_->Infer(info); }

Napi::Value NativeModel::Cancel(const Napi::CallbackInfo& info) { return core_->Cancel(info); }

Napi::Value NativeModel::Stats(const Napi::CallbackInfo& info) {
  ModelScheduler* s = core_->scheduler();
  return StatisticsToJs(info.Env(), s ? s->Stats() : StatisticsSnapshot{});
}

Napi::Value NativeModel::EnableLatencySummaries(const Napi::CallbackInfo& info) {
  if (ModelScheduler* s = core_->scheduler()) s->EnableSummaries();
  return info.Env().Undefined();
}

// {request, queue, compute_input, compute_infer, compute_output} readings, or undefined before
// enableLatencySummaries() and after unload.
Napi::Value NativeModel::LatencySummaries(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<double> quantiles = QuantilesFromJs(info[0], "latencySummaries");
  ModelScheduler* s = core_->scheduler();
  const std::optional<LatencySummaryReadings> r = s ? s->ReadSummaries(quantiles) : std::nullopt;
  if (!r) return env.Undefined();
  Napi::Object o = Napi::Object::New(env);
  o.Set("request", SummaryReadingToJs(env, r->request));
  o.Set("queue", SummaryReadingToJs(env, r->queue));
  o.Set("compute_input", SummaryReadingToJs(env, r->compute_input));
  o.Set("compute_infer", SummaryReadingToJs(env, r->compute_infer));
  o.Set("compute_output", SummaryReadingToJs(env, r->compute_output));
  return o;
}

Napi::Value NativeModel::PendingCount(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), double(core_->PendingCount()));
}

Napi::Value NativeModel::Compile(const Napi::CallbackInfo& info) {
  std::vector<NamedShape> shapes = NamedShapesFromJs(info[0]);
  if (!core_->AcquireUse()) throw Napi::Error::New(info.Env(), "the model is unloaded");
  auto* worker = new CompileWorker(info.Env(), core_, std::move(shapes));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Value NativeModel::Unload(const Napi::CallbackInfo& info) {
  core_->BeginUnload(info.Env());
  return info.Env().Undefined();
}

Napi::Value NativeModel::SetContract(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  // The client tensors only: a sequence model's control and state tensors are its batcher's.
  const size_t n_in = core_->ClientInputs().size(), n_out = core_->ClientOutputs().size();
  auto sized = [&](uint32_t i, size_t n) { return info.Length() > i && info[i].IsArray() && info[i].As<Napi::Array>().Length() == n; };
  if (!info[0].IsString() || !sized(1, n_in) || !sized(2, n_out) || !sized(3, n_in)) {
    throw Napi::TypeError::New(env, "Expected (version, inputShapes[], outputShapes[], optionalInputs[]) for the client tensors in the engine's order for setContract");
  }
  Napi::Array ins = info[1].As<Napi::Array>(), outs = info[2].As<Napi::Array>(), optional = info[3].As<Napi::Array>();
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;
  std::vector<bool> optional_inputs;
  for (uint32_t i = 0; i < n_in; ++i) {
    input_shapes.push_back(IntsFromJs(ins.Get(i), "setContract input shape"));
    optional_inputs.push_back(optional.Get(i).ToBoolean().Value());
  }
  for (uint32_t o = 0; o < n_out; ++o) output_shapes.push_back(IntsFromJs(outs.Get(o), "setContract output shape"));
  core_->SetContract(info[0].As<Napi::String>().Utf8Value(), std::move(input_shapes), std::move(output_shapes),
                     std::move(optional_inputs));
  return env.Undefined();
}

}  // namespace gebe
