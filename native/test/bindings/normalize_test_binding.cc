// A test-only JS handle on Normalize, so that JS stand-ins for models (test/core/server/helpers/
// js-model.ts) check requests with the one check every real model gets, instead of a copy:
// exports.normalizeTest.check(contract, names[], datatypes[], shapes[], datas[], outputs[] | null,
// priority, timeoutUs) -> null when the request passes, else [reason, message] (reason: a
// FailureReason value). contract: {name, version, maxBatchSize, maxRequestBatch,
// inputs: [{name, datatype, shape, optional?}], outputs: [{name, datatype, shape}]}.
#include <napi.h>

#include "executor/js_request.h"
#include "executor/normalize.h"
#include "module_registry.h"

namespace gebe {

namespace {

DataType DataTypeFromName(const std::string& name) {
  for (int t = 1; t <= static_cast<int>(DataType::kBFloat16); ++t) {
    if (name == DataTypeName(static_cast<DataType>(t))) return static_cast<DataType>(t);
  }
  return DataType::kInvalid;
}

std::vector<ContractTensor> TensorsFromJs(const Napi::Value& value) {
  std::vector<ContractTensor> out;
  Napi::Array list = value.As<Napi::Array>();
  for (uint32_t i = 0; i < list.Length(); ++i) {
    Napi::Object t = list.Get(i).As<Napi::Object>();
    ContractTensor c;
    c.name = t.Get("name").ToString().Utf8Value();
    c.dtype = DataTypeFromName(t.Get("datatype").ToString().Utf8Value());
    Napi::Array shape = t.Get("shape").As<Napi::Array>();
    for (uint32_t d = 0; d < shape.Length(); ++d) c.shape.push_back(shape.Get(d).As<Napi::Number>().Int64Value());
    c.optional = t.Has("optional") && t.Get("optional").ToBoolean().Value();
    out.push_back(std::move(c));
  }
  return out;
}

Napi::Value Check(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "Expected (contract, ...request) for check");
  Napi::Object js = info[0].As<Napi::Object>();
  RequestContract contract;
  contract.model_name = js.Get("name").ToString().Utf8Value();
  contract.version = js.Get("version").ToString().Utf8Value();
  contract.batched = js.Get("maxBatchSize").ToNumber().Int64Value() > 0;
  contract.max_request_batch = js.Get("maxRequestBatch").ToNumber().Int64Value();
  contract.inputs = TensorsFromJs(js.Get("inputs"));
  contract.outputs = TensorsFromJs(js.Get("outputs"));
  NormalizedRequest normalized;
  RequestFailure failure = Normalize(contract, DecodeJsRequest(info, 1), &normalized);
  if (failure.ok()) return env.Null();
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, Napi::Number::New(env, double(failure.reason)));
  out.Set(1u, Napi::String::New(env, failure.message));
  return out;
}

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object normalize = Napi::Object::New(env);
  normalize.Set("check", Napi::Function::New(env, Check, "check"));
  exports.Set("normalizeTest", normalize);
}

}  // namespace

GEBE_REGISTER_MODULE(normalize_test, Init);

}  // namespace gebe
