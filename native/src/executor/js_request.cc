#include "executor/js_request.h"

#include <cmath>

namespace gebe {

namespace {

std::vector<int64_t> ShapeFromJs(const Napi::Value& value) {
  if (!value.IsArray()) throw Napi::TypeError::New(value.Env(), "Expected an array of numbers for each input shape");
  Napi::Array a = value.As<Napi::Array>();
  std::vector<int64_t> shape(a.Length());
  for (uint32_t d = 0; d < a.Length(); ++d) {
    Napi::Value v = a.Get(d);
    const double x = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    // Not a whole number: a dimension no contract accepts, so Normalize words it as a wrong shape.
    shape[d] = std::isfinite(x) && std::floor(x) == x && std::fabs(x) < 9007199254740992.0 ? int64_t(x) : -1;
  }
  return shape;
}

}  // namespace

ParameterValue ParameterFromJs(const Napi::Value& value) {
  if (value.IsUndefined() || value.IsNull()) return ParameterValue();
  if (value.IsBoolean()) return ParameterValue::Bool(value.As<Napi::Boolean>().Value());
  if (value.IsNumber()) {
    const double x = value.As<Napi::Number>().DoubleValue();
    if (std::isfinite(x) && std::floor(x) == x && std::fabs(x) <= 9007199254740991.0) return ParameterValue::Int64(int64_t(x));
    return ParameterValue::Double(x);
  }
  if (value.IsBigInt()) {
    bool lossless = false;
    const uint64_t u = value.As<Napi::BigInt>().Uint64Value(&lossless);
    if (lossless) return ParameterValue::Uint64(u);
    const int64_t i = value.As<Napi::BigInt>().Int64Value(&lossless);
    if (lossless) return ParameterValue::Int64(i);
    return ParameterValue::Other(value.ToString().Utf8Value());  // past 64 bits: named by its digits
  }
  if (value.IsString()) return ParameterValue::String(value.As<Napi::String>().Utf8Value());
  // As the JSON decoders name them (json_infer_request.cc), so every path words them alike.
  return ParameterValue::Other(value.IsArray() ? "an array" : "an object");
}

DecodedRequest DecodeJsRequest(const Napi::CallbackInfo& info, size_t first) {
  Napi::Env env = info.Env();
  const size_t f = first;
  if (info.Length() < f + 5 || !info[f].IsArray() || !info[f + 1].IsArray() || !info[f + 2].IsArray() || !info[f + 3].IsArray()) {
    throw Napi::TypeError::New(env, "Expected (names[], datatypes[], shapes[], datas[], outputs[] | null, priority, timeoutUs) for infer");
  }
  Napi::Array names = info[f].As<Napi::Array>();
  Napi::Array datatypes = info[f + 1].As<Napi::Array>();
  Napi::Array shapes = info[f + 2].As<Napi::Array>();
  Napi::Array datas = info[f + 3].As<Napi::Array>();
  const uint32_t n = names.Length();
  if (datatypes.Length() != n || shapes.Length() != n || datas.Length() != n) {
    throw Napi::TypeError::New(env, "Expected as many datatypes, shapes and datas as input names for infer");
  }
  DecodedRequest r;
  r.inputs.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    DecodedInput& in = r.inputs[i];
    in.name = names.Get(i).ToString().Utf8Value();
    in.datatype = datatypes.Get(i).ToString().Utf8Value();
    in.shape = ShapeFromJs(shapes.Get(i));
    Napi::Value data = datas.Get(i);
    if (!data.IsTypedArray()) throw Napi::TypeError::New(env, "Expected a Uint8Array for the data of input '" + in.name + "'");
    Napi::TypedArray bytes = data.As<Napi::TypedArray>();
    in.bytes.data = static_cast<const uint8_t*>(bytes.ArrayBuffer().Data()) + bytes.ByteOffset();
    in.bytes.size = bytes.ByteLength();
  }
  if (info[f + 4].IsArray()) {
    Napi::Array outputs = info[f + 4].As<Napi::Array>();
    r.has_outputs = true;
    r.outputs.resize(outputs.Length());
    for (uint32_t o = 0; o < outputs.Length(); ++o) r.outputs[o].name = outputs.Get(o).ToString().Utf8Value();
  }
  if (info.Length() > f + 5) r.priority = ParameterFromJs(info[f + 5]);
  if (info.Length() > f + 6) r.timeout_us = ParameterFromJs(info[f + 6]);
  if (info.Length() > f + 7) r.sequence_id = ParameterFromJs(info[f + 7]);
  if (info.Length() > f + 8) r.sequence_start = ParameterFromJs(info[f + 8]);
  if (info.Length() > f + 9) r.sequence_end = ParameterFromJs(info[f + 9]);
  return r;
}

}  // namespace gebe
