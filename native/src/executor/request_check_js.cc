// Normalize for models that JS runs (ensembles, Python-backend models, and the protocol tests'
// stand-ins): they check each request with the one check every native model gets, not a copy.
// exports.requestCheck.check(contract, names[], datatypes[], shapes[], datas[], outputs[] | null,
// priority, timeoutUs, sequenceId, sequenceStart, sequenceEnd) -> {rows, outputs: model output indexes in answer order,
// sequence?: {key, text, start, end}} when the request passes, else {reason: a FailureReason value, message}.
// contract: {name, version, maxBatchSize, maxRequestBatch, inputs: [{name, datatype, shape, optional?}],
// outputs: [{name, datatype, shape}], sequence?: a sequence model (its requests need an id and one row)}.
#include <napi.h>

#include "executor/js_request.h"
#include "executor/normalize.h"
#include "executor/request_wording.h"
#include "executor/sequence_parameters.h"
#include "scheduler/sequence_batcher.h"
#include "module_registry.h"

namespace gebe {

namespace {

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
  Napi::Object out = Napi::Object::New(env);
  if (!failure.ok()) {
    out.Set("reason", Napi::Number::New(env, double(failure.reason)));
    out.Set("message", Napi::String::New(env, failure.message));
    return out;
  }
  if (js.Has("sequence") && js.Get("sequence").ToBoolean().Value()) {
    // A sequence model's request: its own refusals, then the id as a key (7 and "7" apart), as
    // Triton prints it, and its START/END flags.
    const SequenceParameters& seq = normalized.sequence;
    RequestFailure refused = CheckSequenceRequest(contract.model_name, contract.batched, normalized.request->info.rows, seq.id);
    if (!refused.ok()) {
      out.Set("reason", Napi::Number::New(env, double(refused.reason)));
      out.Set("message", Napi::String::New(env, refused.message));
      return out;
    }
    Napi::Object sequence = Napi::Object::New(env);
    sequence.Set("key", Napi::String::New(env, SequenceIdKey(seq.id)));
    sequence.Set("text", Napi::String::New(env, SequenceIdText(seq.id)));
    sequence.Set("start", Napi::Boolean::New(env, (seq.flags & kSequenceStart) != 0));
    sequence.Set("end", Napi::Boolean::New(env, (seq.flags & kSequenceEnd) != 0));
    out.Set("sequence", sequence);
  }
  out.Set("rows", Napi::Number::New(env, double(normalized.request->info.rows)));
  Napi::Array outputs = Napi::Array::New(env, normalized.outputs.size());
  for (size_t i = 0; i < normalized.outputs.size(); ++i) outputs.Set(uint32_t(i), Napi::Number::New(env, double(normalized.outputs[i])));
  out.Set("outputs", outputs);
  return out;
}

// sequenceStartMissing(model, idText): the refusal of a request that continues a sequence the
// model does not hold (its first request had no START, or it ended or went idle).
Napi::Value SequenceStartMissingJs(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), wording::SequenceStartMissing(info[0].ToString().Utf8Value(), info[1].ToString().Utf8Value()));
}

// sequenceQueueFull(model, idText): the refusal of one request more than a sequence may have waiting,
// with the native batcher's limit (exported as requestCheck.queuedPerSequence).
Napi::Value SequenceQueueFullJs(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), wording::SequenceQueueFull(info[0].ToString().Utf8Value(), info[1].ToString().Utf8Value(),
                                                                  SequenceBatcher::kMaxQueuedPerSequence));
}

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object check = Napi::Object::New(env);
  check.Set("check", Napi::Function::New(env, Check, "check"));
  check.Set("sequenceStartMissing", Napi::Function::New(env, SequenceStartMissingJs, "sequenceStartMissing"));
  check.Set("sequenceQueueFull", Napi::Function::New(env, SequenceQueueFullJs, "sequenceQueueFull"));
  check.Set("queuedPerSequence", Napi::Number::New(env, double(SequenceBatcher::kMaxQueuedPerSequence)));
  exports.Set("requestCheck", check);
}

}  // namespace

GEBE_REGISTER_MODULE(request_check, Init);

}  // namespace gebe
