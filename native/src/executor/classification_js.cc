// exports.classification, the classification extension for the outputs JS answers (ensembles,
// Python models, any model behind the JS front ends), so that they print classes with the native
// routes' code:
//   labels(lines: string[]) -> an opaque handle on one output's labels
//   classify(name, datatype, shape, data: Uint8Array, k, batched, labels | null)
//     -> {shape, data: Buffer} (BYTES in KServe's layout), or {reason: a FailureReason value, message}
#include "executor/classification_js.h"

#include <string>
#include <vector>

#include "module_registry.h"

namespace gebe {

namespace {

using Handle = std::shared_ptr<const ClassLabels>;

// Tags the handles, so that no other External passes for one.
constexpr napi_type_tag kLabelsTag = {0x6ebe6c61'62656c73ull, 0x636c6173'73657321ull};

Napi::Value Labels(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, "Expected (lines: string[]) for labels");
  Napi::Array lines = info[0].As<Napi::Array>();
  auto labels = std::make_shared<ClassLabels>();
  for (uint32_t i = 0; i < lines.Length(); ++i) {
    Napi::Value line = lines.Get(i);
    if (!line.IsString()) throw Napi::TypeError::New(env, "labels: every line must be a string");
    labels->Append(line.As<Napi::String>().Utf8Value());
  }
  auto external = Napi::External<Handle>::New(env, new Handle(std::move(labels)), [](Napi::Env, Handle* h) { delete h; });
  external.TypeTag(&kLabelsTag);
  return external;
}

Napi::Value Classify(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 7 || !info[0].IsString() || !info[1].IsString() || !info[2].IsArray() || !info[3].IsTypedArray() ||
      !info[4].IsNumber() || !info[5].IsBoolean()) {
    throw Napi::TypeError::New(env, "Expected (name, datatype, shape, data, k, batched, labels | null) for classify");
  }
  Handle labels;
  if (!info[6].IsNull()) {
    labels = ClassLabelsOf(info[6]);
    if (!labels) throw Napi::TypeError::New(env, "classify: labels must come from labels()");
  }
  std::vector<int64_t> shape;
  Napi::Array dims = info[2].As<Napi::Array>();
  for (uint32_t d = 0; d < dims.Length(); ++d) shape.push_back(dims.Get(d).As<Napi::Number>().Int64Value());
  Napi::TypedArray data = info[3].As<Napi::TypedArray>();
  const auto* bytes = static_cast<const uint8_t*>(data.ArrayBuffer().Data()) + data.ByteOffset();
  const double k = info[4].As<Napi::Number>().DoubleValue();
  if (!(k >= 1 && k <= 9007199254740991.0)) throw Napi::RangeError::New(env, "classify: k must be a positive safe integer");
  ClassResult result;
  const RequestFailure failure = Classify(info[0].As<Napi::String>().Utf8Value(), DataTypeFromName(info[1].As<Napi::String>().Utf8Value()),
                                          shape, info[5].As<Napi::Boolean>().Value(), bytes, data.ByteLength(), uint64_t(k),
                                          labels.get(), &result);
  Napi::Object out = Napi::Object::New(env);
  if (!failure.ok()) {
    out.Set("reason", Napi::Number::New(env, double(failure.reason)));
    out.Set("message", Napi::String::New(env, failure.message));
    return out;
  }
  Napi::Array out_shape = Napi::Array::New(env, result.shape.size());
  for (size_t d = 0; d < result.shape.size(); ++d) out_shape.Set(uint32_t(d), Napi::Number::New(env, double(result.shape[d])));
  out.Set("shape", out_shape);
  out.Set("data", result.bytes.empty() ? Napi::Buffer<uint8_t>::New(env, 0)
                                       : Napi::Buffer<uint8_t>::Copy(env, result.bytes.data(), result.bytes.size()));
  return out;
}

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object classification = Napi::Object::New(env);
  classification.Set("labels", Napi::Function::New(env, Labels, "labels"));
  classification.Set("classify", Napi::Function::New(env, Classify, "classify"));
  exports.Set("classification", classification);
}

}  // namespace

std::shared_ptr<const ClassLabels> ClassLabelsOf(Napi::Value value) {
  if (!value.IsExternal()) return nullptr;
  auto external = value.As<Napi::External<Handle>>();
  if (!external.CheckTypeTag(&kLabelsTag)) return nullptr;
  return *external.Data();
}

GEBE_REGISTER_MODULE(classification, Init);

}  // namespace gebe
