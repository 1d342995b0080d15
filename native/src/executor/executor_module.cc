// JS exports of the executor: loadModel(path, options, onComplete) -> Promise<NativeModel>,
// engines() -> [{name, extensions}]. Loading (engine sessions, one per instance) runs off the
// JS thread.
#include <napi.h>

#include <stdexcept>

#include "engine/engine_registry.h"
#include "executor/model_core.h"
#include "executor/model_options.h"
#include "executor/native_model.h"
#include "executor/request_failure.h"
#include "module_registry.h"

namespace gebe {

namespace {

class LoadWorker : public Napi::AsyncWorker {
 public:
  LoadWorker(Napi::Env env, std::string path, ModelOptions options, Napi::Function on_complete)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), path_(std::move(path)),
        options_(std::move(options)), on_complete_(Napi::Persistent(on_complete)) {}
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    const EngineEntry* engine = FindEngineForPath(path_);
    if (engine == nullptr) {
      SetError("no engine is registered for " + path_);
      return;
    }
    try {
      for (int i = 0; i < options_.instance_count; ++i) {
        SessionOptions session = options_.session;
        if (!options_.device_ids.empty()) session.device_id = options_.device_ids[size_t(i) % options_.device_ids.size()];
        sessions_.push_back(engine->load(path_, session));
      }
    } catch (const std::exception& e) {
      sessions_.clear();
      SetError(e.what());
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    try {
      auto core = std::make_shared<ModelCore>(std::move(options_), std::move(sessions_));
      core->Start(env, on_complete_.Value(), core);
      deferred_.Resolve(NativeModel::New(env, core));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    } catch (const std::exception& e) {
      deferred_.Reject(Napi::Error::New(env, e.what()).Value());
    }
  }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::string path_;
  ModelOptions options_;
  Napi::FunctionReference on_complete_;
  std::vector<std::unique_ptr<Session>> sessions_;
};

Napi::Value LoadModel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsString() || !info[1].IsObject() || !info[2].IsFunction()) {
    throw Napi::TypeError::New(env, "Expected (modelPath, options, onComplete) for loadModel");
  }
  ModelOptions options;
  try {
    options = ReadModelOptions(info[1].As<Napi::Object>());
  } catch (const std::invalid_argument& e) {
    // The server's rate limiter refused the instances: the load fails as any other does.
    auto refused = Napi::Promise::Deferred::New(env);
    refused.Reject(Napi::Error::New(env, e.what()).Value());
    return refused.Promise();
  }
  auto* worker = new LoadWorker(env, info[0].As<Napi::String>().Utf8Value(), std::move(options), info[2].As<Napi::Function>());
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Value Engines(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env);
  uint32_t i = 0;
  for (const auto& engine : RegisteredEngines()) {
    Napi::Object e = Napi::Object::New(env);
    e.Set("name", engine.name);
    Napi::Array exts = Napi::Array::New(env, engine.extensions.size());
    for (size_t j = 0; j < engine.extensions.size(); ++j) exts.Set(uint32_t(j), engine.extensions[j]);
    e.Set("extensions", exts);
    out.Set(i++, e);
  }
  return out;
}

// The failure table (request_failure.h), indexed by FailureReason value: the JS side reads HTTP
// statuses, gRPC codes and metric labels from here instead of keeping its own copy.
Napi::Value FailureReasons(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env, kFailureReasonCount);
  for (int i = 0; i < kFailureReasonCount; ++i) {
    const FailureTraits& t = TraitsOf(static_cast<FailureReason>(i));
    Napi::Object row = Napi::Object::New(env);
    row.Set("name", t.name);
    row.Set("httpStatus", t.http_status);
    row.Set("grpcCode", t.grpc_code);
    row.Set("metricReason", t.metric_reason);
    out.Set(uint32_t(i), row);
  }
  return out;
}

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object executor = Napi::Object::New(env);
  executor.Set("failureReasons", Napi::Function::New(env, FailureReasons, "failureReasons"));
  executor.Set("loadModel", Napi::Function::New(env, LoadModel, "loadModel"));
  executor.Set("engines", Napi::Function::New(env, Engines, "engines"));
  executor.Set("NativeModel", NativeModel::Define(env));
  exports.Set("executor", executor);
}

}  // namespace

GEBE_REGISTER_MODULE(executor, Init);

}  // namespace gebe
