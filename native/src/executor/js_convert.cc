#include "executor/js_convert.h"

#include <cstring>

namespace gebe {

Napi::Array IntsToJs(Napi::Env env, const std::vector<int64_t>& values) {
  Napi::Array a = Napi::Array::New(env, values.size());
  for (size_t i = 0; i < values.size(); ++i) a.Set(static_cast<uint32_t>(i), Napi::Number::New(env, double(values[i])));
  return a;
}

std::vector<int64_t> IntsFromJs(const Napi::Value& value, const char* what) {
  if (!value.IsArray()) throw Napi::TypeError::New(value.Env(), std::string("Expected an array of integers for ") + what);
  Napi::Array a = value.As<Napi::Array>();
  std::vector<int64_t> out(a.Length());
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value v = a.Get(i);
    if (!v.IsNumber()) throw Napi::TypeError::New(value.Env(), std::string("Expected an array of integers for ") + what);
    out[i] = v.As<Napi::Number>().Int64Value();
  }
  return out;
}

Napi::Object TensorDescToJs(Napi::Env env, const TensorDesc& desc) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", desc.name);
  o.Set("dtype", Napi::Number::New(env, static_cast<int>(desc.dtype)));
  o.Set("dims", IntsToJs(env, desc.dims));
  Napi::Array names = Napi::Array::New(env, desc.dim_names.size());
  for (size_t i = 0; i < desc.dim_names.size(); ++i) names.Set(static_cast<uint32_t>(i), desc.dim_names[i]);
  o.Set("dimNames", names);
  return o;
}

namespace {

Napi::Object Duration(Napi::Env env, const StatDuration& d) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("count", Napi::Number::New(env, double(d.count)));
  o.Set("ns", Napi::Number::New(env, double(d.ns)));
  return o;
}

}  // namespace

Napi::Object StatisticsToJs(Napi::Env env, const StatisticsSnapshot& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("last_inference", Napi::Number::New(env, double(s.last_inference_ms)));
  o.Set("inference_count", Napi::Number::New(env, double(s.inference_count)));
  o.Set("execution_count", Napi::Number::New(env, double(s.execution_count)));
  Napi::Object is = Napi::Object::New(env);
  is.Set("success", Duration(env, s.success));
  is.Set("fail", Duration(env, s.fail));
  is.Set("queue", Duration(env, s.queue));
  is.Set("compute_input", Duration(env, s.compute_input));
  is.Set("compute_infer", Duration(env, s.compute_infer));
  is.Set("compute_output", Duration(env, s.compute_output));
  o.Set("inference_stats", is);
  Napi::Array batches = Napi::Array::New(env, s.batch_stats.size());
  uint32_t i = 0;
  for (const auto& [size, b] : s.batch_stats) {
    Napi::Object e = Napi::Object::New(env);
    e.Set("batch_size", Napi::Number::New(env, double(size)));
    e.Set("compute_input", Duration(env, b.compute_input));
    e.Set("compute_infer", Duration(env, b.compute_infer));
    e.Set("compute_output", Duration(env, b.compute_output));
    batches.Set(i++, e);
  }
  o.Set("batch_stats", batches);
  return o;
}

std::vector<NamedShape> NamedShapesFromJs(const Napi::Value& value) {
  if (!value.IsArray()) throw Napi::TypeError::New(value.Env(), "Expected [{name, shape}] for compile");
  Napi::Array a = value.As<Napi::Array>();
  std::vector<NamedShape> out;
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Object e = a.Get(i).As<Napi::Object>();
    out.push_back({e.Get("name").As<Napi::String>().Utf8Value(), IntsFromJs(e.Get("shape"), "compile shape")});
  }
  return out;
}

Napi::Array TensorsToJs(Napi::Env env, const std::vector<Tensor>& tensors) {
  Napi::Array out = Napi::Array::New(env, tensors.size() * 2);
  for (size_t i = 0; i < tensors.size(); ++i) {
    Napi::Uint8Array bytes = Napi::Uint8Array::New(env, tensors[i].buffer.size());
    if (tensors[i].buffer.size() > 0) std::memcpy(bytes.Data(), tensors[i].buffer.data(), tensors[i].buffer.size());
    out.Set(static_cast<uint32_t>(2 * i), bytes);
    out.Set(static_cast<uint32_t>(2 * i + 1), IntsToJs(env, tensors[i].shape));
  }
  return out;
}

}  // namespace gebe
