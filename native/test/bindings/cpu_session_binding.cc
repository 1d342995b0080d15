// A test-only JS surface of the cpu engine, for tests and benchmarks (the product drives
// sessions natively, through the scheduler): CpuSession (class), cpuSupportedOperators(),
// cpuGemmIsa(), cpuQgemmIsa(), cpuSupportedIsas(). Argument validation happens in TS first
// (test/helpers/cpu-session.ts); the checks here only keep bad calls from crashing the process.
#include <napi.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "cpu/cpu_session.h"
#include "cpu/gemm/qgemm.h"
#include "cpu/gemm/sgemm.h"
#include "cpu/isa.h"
#include "cpu/model_info_js.h"
#include "module_registry.h"

namespace gebe::cpu {

namespace {

DataType DataTypeFromName(const std::string& name) {
  static const std::pair<const char*, DataType> names[] = {
      {"FP32", DataType::kFloat32}, {"INT64", DataType::kInt64}, {"INT32", DataType::kInt32}, {"BOOL", DataType::kBool},
      {"FP64", DataType::kFloat64}, {"UINT8", DataType::kUInt8}, {"INT8", DataType::kInt8},
      {"UINT16", DataType::kUInt16}, {"INT16", DataType::kInt16}, {"UINT32", DataType::kUInt32},
      {"UINT64", DataType::kUInt64}, {"FP16", DataType::kFloat16}, {"BF16", DataType::kBFloat16}};
  for (const auto& [n, t] : names)
    if (name == n) return t;
  return DataType::kInvalid;
}

struct SessionHolder {
  std::mutex mu;  // a Session is driven by one thread at a time
  std::unique_ptr<CpuSession> session;
};

// The engine's outputs as [{name, datatype, dims, data: ArrayBuffer}] (copied out of native memory).
Napi::Array OutputsToJs(Napi::Env env, const std::vector<Tensor>& outputs) {
  Napi::Array list = Napi::Array::New(env, outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    size_t bytes = t.buffer.size();
    Napi::ArrayBuffer ab = Napi::ArrayBuffer::New(env, bytes);
    if (bytes) std::memcpy(ab.Data(), t.buffer.data(), bytes);
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", t.name);
    o.Set("datatype", DataTypeName(t.dtype));
    o.Set("dims", DimsToJs(env, t.shape));
    o.Set("data", ab);
    list.Set(uint32_t(i), o);
  }
  return list;
}

// Views over the caller's typed arrays, [{name, datatype, dims, data}] (no copy). `keep` receives
// each array when the views must outlive this call (an asynchronous run).
std::vector<TensorView> InputsFromJs(Napi::Env env, const Napi::Value& value, std::vector<Napi::ObjectReference>* keep) {
  if (!value.IsArray()) throw Napi::TypeError::New(env, "run([{name, datatype, dims, data}])");
  Napi::Array list = value.As<Napi::Array>();
  std::vector<TensorView> inputs;
  for (uint32_t i = 0; i < list.Length(); ++i) {
    Napi::Object o = list.Get(i).As<Napi::Object>();
    TensorView v;
    v.name = o.Get("name").ToString();
    v.dtype = DataTypeFromName(o.Get("datatype").ToString());
    Napi::Array dims = o.Get("dims").As<Napi::Array>();
    for (uint32_t k = 0; k < dims.Length(); ++k) v.shape.push_back(int64_t(dims.Get(k).ToNumber().DoubleValue()));
    Napi::Value data = o.Get("data");
    if (!data.IsTypedArray()) throw Napi::TypeError::New(env, "input '" + v.name + "': data must be a typed array");
    Napi::TypedArray ta = data.As<Napi::TypedArray>();
    v.data = static_cast<const uint8_t*>(ta.ArrayBuffer().Data()) + ta.ByteOffset();
    v.byte_size = ta.ByteLength();
    if (keep) keep->push_back(Napi::Persistent(data.As<Napi::Object>()));
    inputs.push_back(std::move(v));
  }
  return inputs;
}

class RunWorker : public Napi::AsyncWorker {
 public:
  RunWorker(Napi::Env env, std::shared_ptr<SessionHolder> holder)
      : Napi::AsyncWorker(env), holder_(std::move(holder)), deferred_(Napi::Promise::Deferred::New(env)) {}

  Napi::Promise promise() { return deferred_.Promise(); }
  std::vector<TensorView> inputs;
  std::vector<Napi::ObjectReference> keep_alive;  // the input arrays, until the run is done

  void Execute() override {
    try {
      std::lock_guard<std::mutex> lock(holder_->mu);
      if (!holder_->session) throw EngineError("the session was closed");
      holder_->session->run(inputs, outputs_);
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }

  void OnOK() override { deferred_.Resolve(OutputsToJs(Env(), outputs_)); }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  std::shared_ptr<SessionHolder> holder_;
  Napi::Promise::Deferred deferred_;
  std::vector<Tensor> outputs_;
};

class CpuSessionWrap : public Napi::ObjectWrap<CpuSessionWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "CpuSession",
                       {InstanceMethod("info", &CpuSessionWrap::Info), InstanceMethod("compile", &CpuSessionWrap::Compile),
                        InstanceMethod("run", &CpuSessionWrap::Run),
                        InstanceMethod("runSync", &CpuSessionWrap::RunSync), InstanceMethod("close", &CpuSessionWrap::Close)});
  }

  CpuSessionWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CpuSessionWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "CpuSession(path, options?)");
    SessionOptions options;
    if (info.Length() > 1 && info[1].IsObject()) {
      Napi::Object o = info[1].As<Napi::Object>();
      if (o.Has("intraOpThreads") && o.Get("intraOpThreads").IsNumber()) options.intra_op_threads = o.Get("intraOpThreads").As<Napi::Number>().Int32Value();
      if (o.Has("maxTensorBytes") && o.Get("maxTensorBytes").IsNumber()) options.max_tensor_bytes = size_t(o.Get("maxTensorBytes").As<Napi::Number>().DoubleValue());
      if (o.Has("parameters") && o.Get("parameters").IsObject()) {
        Napi::Object p = o.Get("parameters").As<Napi::Object>();
        Napi::Array keys = p.GetPropertyNames();
        for (uint32_t i = 0; i < keys.Length(); ++i) {
          std::string key = keys.Get(i).ToString();
          options.parameters[key] = p.Get(key).ToString();
        }
      }
    }
    holder_ = std::make_shared<SessionHolder>();
    try {
      holder_->session = std::make_unique<CpuSession>(info[0].As<Napi::String>().Utf8Value(), options);
    } catch (const std::exception& e) {
      throw Napi::Error::New(env, e.what());
    }
  }

 private:
  CpuSession& session(Napi::Env env) {
    if (!holder_ || !holder_->session) throw Napi::Error::New(env, "the session was closed");
    return *holder_->session;
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    CpuSession& s = session(info.Env());
    Napi::Object o = ModelInfoToJs(info.Env(), s.info(), s.inputs(), s.outputs());
    o.Set("threads", Napi::Number::New(info.Env(), s.threads()));
    Napi::Object optimized = Napi::Object::New(info.Env());
    for (const auto& [op, count] : s.optimized_operators()) optimized.Set(op, Napi::Number::New(info.Env(), count));
    o.Set("optimizedOperators", optimized);
    o.Set("steps", Napi::Number::New(info.Env(), double(s.step_count())));
    return o;
  }

  Napi::Value Compile(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    CpuSession& s = session(env);
    if (info.Length() < 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, "compile([{name, dims}])");
    Napi::Array list = info[0].As<Napi::Array>();
    std::vector<NamedShape> shapes;
    for (uint32_t i = 0; i < list.Length(); ++i) {
      Napi::Object o = list.Get(i).As<Napi::Object>();
      NamedShape ns;
      ns.name = o.Get("name").ToString();
      Napi::Array dims = o.Get("dims").As<Napi::Array>();
      for (uint32_t k = 0; k < dims.Length(); ++k) ns.shape.push_back(int64_t(dims.Get(k).ToNumber().DoubleValue()));
      shapes.push_back(std::move(ns));
    }
    CompileReport report;
    CpuSession::PlanSummary summary;
    try {
      std::lock_guard<std::mutex> lock(holder_->mu);
      report = s.compile(shapes);
      summary = s.plan_summary(shapes);
    } catch (const std::exception& e) {
      throw Napi::Error::New(env, e.what());
    }
    Napi::Object o = Napi::Object::New(env);
    o.Set("compileMs", report.compile_ms);
    o.Set("arenaBytes", Napi::Number::New(env, double(report.arena_bytes)));
    o.Set("cached", report.cached);
    Napi::Object steps = Napi::Object::New(env);
    steps.Set("run", summary.run);
    steps.Set("dynamic", summary.dynamic);
    steps.Set("folded", summary.folded);
    steps.Set("aliased", summary.aliased);
    o.Set("steps", steps);
    return o;
  }

  Napi::Value Run(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    session(env);
    auto* worker = new RunWorker(env, holder_);
    Napi::Promise promise = worker->promise();
    try {
      worker->inputs = InputsFromJs(env, info[0], &worker->keep_alive);
    } catch (...) {
      delete worker;
      throw;
    }
    worker->Queue();
    return promise;
  }

  // The same run on the calling (JS) thread, blocking it: what onnxruntime-node's binding does, so
  // benchmarks can compare the engines' compute alike; everything else uses the Promise-based run.
  Napi::Value RunSync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    CpuSession& s = session(env);
    std::vector<TensorView> inputs = InputsFromJs(env, info[0], nullptr);
    std::vector<Tensor> outputs;
    try {
      std::lock_guard<std::mutex> lock(holder_->mu);
      s.run(inputs, outputs);
    } catch (const std::exception& e) {
      throw Napi::Error::New(env, e.what());
    }
    return OutputsToJs(env, outputs);
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    if (holder_) {
      std::lock_guard<std::mutex> lock(holder_->mu);
      holder_->session.reset();
    }
    return info.Env().Undefined();
  }

  std::shared_ptr<SessionHolder> holder_;
};

Napi::Value SupportedOperators(const Napi::CallbackInfo& info) {
  Napi::Array list = Napi::Array::New(info.Env());
  uint32_t i = 0;
  for (const auto& entry : KernelRegistry::Entries()) list.Set(i++, entry.first);
  return list;
}

void Init(Napi::Env env, Napi::Object exports) {
  exports.Set("CpuSession", CpuSessionWrap::Define(env));
  exports.Set("cpuSupportedOperators", Napi::Function::New(env, SupportedOperators));
  exports.Set("cpuGemmIsa", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                return Napi::String::New(info.Env(), SgemmIsa());
              }));
  exports.Set("cpuQgemmIsa", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                return Napi::String::New(info.Env(), QgemmIsa());
              }));
  exports.Set("cpuSupportedIsas", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                Napi::Array list = Napi::Array::New(info.Env());
                uint32_t i = 0;
                for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512})
                  if (CpuSupports(isa)) list.Set(i++, IsaName(isa));
                return list;
              }));
}

}  // namespace

}  // namespace gebe::cpu

GEBE_REGISTER_MODULE(cpu_test, gebe::cpu::Init);
