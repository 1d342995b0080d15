// JS exports of the trace extension's native half (request_trace.h), under `trace`:
// setSetting(model | null, {timestamps, tensors, rate, count?} | null) (without count the traces
// left stay as they are), countLeft(model | null) -> number,
// take() -> {traces: [Trace], dropped} with Trace = {id, parentId, model, version, protocol, last,
//   timestamps, ns: bigint[], tensors: [{output, name, datatype, shape, data}], tensorsLeftOut,
//   requestId ('' for none)};
// for requests JS runs itself (Python models, ensembles): sample(model, version, traceparent?) ->
// {id, last, timestamps, tensors, context} | null, child(parentId) -> id (an ensemble step's trace)
// and finish(Trace); setPropagation(on) (OpenTelemetry context propagation, request_trace.h).
// ns has one entry per TraceStamp, in its order (0n: not reached); protocol is '', 'http' or 'grpc';
// a Trace's context is the client's traceparent it continues ('' for none).
#include <napi.h>

#include "module_registry.h"
#include "trace/request_trace.h"
#include "trace/trace_js.h"

namespace gebe {

namespace {

Napi::Value SetSetting(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !(info[0].IsString() || info[0].IsNull()) || !(info[1].IsObject() || info[1].IsNull())) {
    throw Napi::TypeError::New(env, "Expected (model | null, {on, rate, count} | null) for trace.setSetting");
  }
  std::string model;
  if (info[0].IsString()) model = info[0].As<Napi::String>().Utf8Value();
  if (info[1].IsNull()) {
    if (info[0].IsNull()) throw Napi::TypeError::New(env, "trace.setSetting: the global setting cannot be removed");
    SetTraceSetting(&model, nullptr);
    return env.Undefined();
  }
  Napi::Object o = info[1].As<Napi::Object>();
  TraceSettingValues values;
  values.timestamps = o.Get("timestamps").ToBoolean().Value();
  values.tensors = o.Get("tensors").ToBoolean().Value();
  values.on = values.timestamps || values.tensors;
  values.rate = uint64_t(o.Get("rate").ToNumber().Int64Value());
  const Napi::Value count = o.Get("count");
  values.set_count = !count.IsUndefined();
  if (values.set_count) values.count = count.ToNumber().Int64Value();
  SetTraceSetting(info[0].IsString() ? &model : nullptr, &values);
  return env.Undefined();
}

Napi::Value CountLeft(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !(info[0].IsString() || info[0].IsNull())) throw Napi::TypeError::New(env, "Expected (model | null) for trace.countLeft");
  if (info[0].IsNull()) return Napi::Number::New(env, double(TraceCountLeft(nullptr)));
  const std::string model = info[0].As<Napi::String>().Utf8Value();
  return Napi::Number::New(env, double(TraceCountLeft(&model)));
}

Napi::Value Take(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint64_t dropped = 0;
  std::vector<std::unique_ptr<RequestTrace>> traces = TakeTraces(&dropped);
  Napi::Array list = Napi::Array::New(env, traces.size());
  for (size_t i = 0; i < traces.size(); ++i) {
    list.Set(uint32_t(i), TraceToJs(env, *traces[i]));
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("traces", list);
  out.Set("dropped", Napi::Number::New(env, double(dropped)));
  return out;
}

Napi::Value Sample(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsString()) throw Napi::TypeError::New(env, "Expected (model, version) for trace.sample");
  const std::string traceparent = info.Length() > 2 && info[2].IsString() ? info[2].As<Napi::String>().Utf8Value() : std::string();
  std::unique_ptr<RequestTrace> trace =
      SampleTrace(info[0].As<Napi::String>().Utf8Value(), info[1].As<Napi::String>().Utf8Value(), TraceProtocol::kNone, traceparent);
  if (!trace) return env.Null();
  Napi::Object out = Napi::Object::New(env);
  out.Set("context", trace->context);
  out.Set("id", Napi::Number::New(env, double(trace->id)));
  out.Set("last", trace->last);
  out.Set("timestamps", trace->timestamps);
  out.Set("tensors", trace->keep_tensors);
  return out;
}

Napi::Value Child(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "Expected (parentId) for trace.child");
  std::unique_ptr<RequestTrace> trace = ChildTrace("", "", uint64_t(info[0].As<Napi::Number>().Int64Value()), true, false);
  return Napi::Number::New(env, double(trace->id));
}

}  // namespace

Napi::Object TraceToJs(Napi::Env env, const RequestTrace& t) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("id", Napi::Number::New(env, double(t.id)));
  o.Set("parentId", Napi::Number::New(env, double(t.parent_id)));
  o.Set("model", t.model);
  o.Set("version", t.version);
  o.Set("protocol", t.protocol == TraceProtocol::kHttp ? "http" : t.protocol == TraceProtocol::kGrpc ? "grpc" : "");
  o.Set("last", t.last);
  o.Set("timestamps", t.timestamps);
  o.Set("context", t.context);
  o.Set("requestId", t.request_id);
  Napi::Array ns = Napi::Array::New(env, kTraceStampCount);
  for (size_t k = 0; k < kTraceStampCount; ++k) ns.Set(uint32_t(k), Napi::BigInt::New(env, t.ns[k]));
  o.Set("ns", ns);
  Napi::Array tensors = Napi::Array::New(env, t.tensors.size());
  for (size_t k = 0; k < t.tensors.size(); ++k) {
    const TracedTensor& x = t.tensors[k];
    Napi::Object tensor = Napi::Object::New(env);
    tensor.Set("output", x.output);
    tensor.Set("name", x.name);
    tensor.Set("datatype", x.datatype);
    Napi::Array shape = Napi::Array::New(env, x.shape.size());
    for (size_t d = 0; d < x.shape.size(); ++d) shape.Set(uint32_t(d), Napi::Number::New(env, double(x.shape[d])));
    tensor.Set("shape", shape);
    tensor.Set("data", Napi::Buffer<uint8_t>::Copy(env, x.bytes.data(), x.bytes.size()));
    tensors.Set(uint32_t(k), tensor);
  }
  o.Set("tensors", tensors);
  o.Set("tensorsLeftOut", t.tensors_left_out);
  return o;
}

std::unique_ptr<RequestTrace> TraceFromJs(const Napi::Object& o) {
  auto trace = std::make_unique<RequestTrace>();
  trace->id = uint64_t(o.Get("id").ToNumber().Int64Value());
  trace->parent_id = uint64_t(o.Get("parentId").ToNumber().Int64Value());
  trace->model = o.Get("model").ToString().Utf8Value();
  trace->version = o.Get("version").ToString().Utf8Value();
  trace->last = o.Get("last").ToBoolean().Value();
  trace->timestamps = o.Get("timestamps").ToBoolean().Value();
  const Napi::Value context = o.Get("context");
  if (context.IsString() && ValidTraceparent(context.As<Napi::String>().Utf8Value())) trace->context = context.As<Napi::String>().Utf8Value();
  const Napi::Value request_id = o.Get("requestId");
  if (request_id.IsString()) trace->SetRequestId(request_id.As<Napi::String>().Utf8Value());
  trace->keep_tensors = true;
  Napi::Value tensors = o.Get("tensors");
  if (tensors.IsArray()) {
    Napi::Array list = tensors.As<Napi::Array>();
    for (uint32_t k = 0; k < list.Length(); ++k) {
      if (!list.Get(k).IsObject()) continue;
      Napi::Object x = list.Get(k).As<Napi::Object>();
      Napi::Value data = x.Get("data");
      if (!data.IsTypedArray() || !x.Get("shape").IsArray()) continue;
      Napi::TypedArray bytes = data.As<Napi::TypedArray>();
      std::vector<int64_t> shape;
      Napi::Array dims = x.Get("shape").As<Napi::Array>();
      for (uint32_t d = 0; d < dims.Length(); ++d) shape.push_back(dims.Get(d).ToNumber().Int64Value());
      const auto* base = static_cast<const uint8_t*>(bytes.ArrayBuffer().Data()) + bytes.ByteOffset();
      trace->AddTensor(x.Get("output").ToBoolean().Value(), x.Get("name").ToString().Utf8Value(), x.Get("datatype").ToString().Utf8Value(),
                       shape, base, bytes.ByteLength());
    }
  }
  const std::string protocol = o.Get("protocol").ToString().Utf8Value();
  trace->protocol = protocol == "http" ? TraceProtocol::kHttp : protocol == "grpc" ? TraceProtocol::kGrpc : TraceProtocol::kNone;
  Napi::Value stamps = o.Get("ns");
  Napi::Array ns = stamps.IsArray() ? stamps.As<Napi::Array>() : Napi::Array::New(o.Env());
  for (uint32_t k = 0; k < kTraceStampCount && k < ns.Length(); ++k) {
    Napi::Value v = ns.Get(k);
    bool lossless = false;
    if (v.IsBigInt()) trace->ns[k] = v.As<Napi::BigInt>().Int64Value(&lossless);
  }
  return trace;
}

namespace {

Napi::Value Finish(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject() || !info[0].As<Napi::Object>().Get("ns").IsArray()) {
    throw Napi::TypeError::New(env, "Expected ({id, parentId, model, version, last, protocol, ns}) for trace.finish");
  }
  CollectTrace(TraceFromJs(info[0].As<Napi::Object>()));
  return env.Undefined();
}

Napi::Value SetPropagation(const Napi::CallbackInfo& info) {
  SetContextPropagation(info.Length() > 0 && info[0].ToBoolean().Value());
  return info.Env().Undefined();
}

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object trace = Napi::Object::New(env);
  trace.Set("setSetting", Napi::Function::New(env, SetSetting, "setSetting"));
  trace.Set("countLeft", Napi::Function::New(env, CountLeft, "countLeft"));
  trace.Set("take", Napi::Function::New(env, Take, "take"));
  trace.Set("sample", Napi::Function::New(env, Sample, "sample"));
  trace.Set("child", Napi::Function::New(env, Child, "child"));
  trace.Set("finish", Napi::Function::New(env, Finish, "finish"));
  trace.Set("setPropagation", Napi::Function::New(env, SetPropagation, "setPropagation"));
  exports.Set("trace", trace);
}

}  // namespace

GEBE_REGISTER_MODULE(trace, Init);

}  // namespace gebe
