#include "cpu/model_info_js.h"

#include "cpu/support.h"

namespace gebe::cpu {

Napi::Array DimsToJs(Napi::Env env, const std::vector<int64_t>& dims) {
  Napi::Array a = Napi::Array::New(env, dims.size());
  for (size_t i = 0; i < dims.size(); ++i) a.Set(uint32_t(i), Napi::Number::New(env, double(dims[i])));
  return a;
}

namespace {

Napi::Array DescsToJs(Napi::Env env, const std::vector<TensorDesc>& descs) {
  Napi::Array list = Napi::Array::New(env, descs.size());
  for (size_t i = 0; i < descs.size(); ++i) {
    const TensorDesc& d = descs[i];
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", d.name);
    o.Set("datatype", DataTypeName(d.dtype));
    o.Set("dims", DimsToJs(env, d.dims));
    Napi::Array names = Napi::Array::New(env, d.dim_names.size());
    for (size_t k = 0; k < d.dim_names.size(); ++k) names.Set(uint32_t(k), d.dim_names[k]);
    o.Set("dimNames", names);
    list.Set(uint32_t(i), o);
  }
  return list;
}

}  // namespace

Napi::Object ModelInfoToJs(Napi::Env env, const ModelInfo& info, const std::vector<TensorDesc>& inputs,
                           const std::vector<TensorDesc>& outputs) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("irVersion", Napi::Number::New(env, double(info.ir_version)));
  o.Set("opset", Napi::Number::New(env, double(info.opset)));
  o.Set("producer", info.producer);
  o.Set("inputs", DescsToJs(env, inputs));
  o.Set("outputs", DescsToJs(env, outputs));
  Napi::Object histogram = Napi::Object::New(env);
  Napi::Array supported = Napi::Array::New(env);
  uint32_t k = 0;
  for (const auto& [op, count] : info.op_histogram) {
    histogram.Set(op, Napi::Number::New(env, count));
    if (!info.unsupported.count(op)) supported.Set(k++, op);
  }
  o.Set("operators", histogram);
  o.Set("supportedOperators", supported);
  Napi::Object unsupported = Napi::Object::New(env);
  for (const auto& [op, nodes] : info.unsupported) {
    Napi::Array list = Napi::Array::New(env, nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) list.Set(uint32_t(i), nodes[i]);
    unsupported.Set(op, list);
  }
  o.Set("unsupportedOperators", unsupported);
  // Each finding worded as the loader's error words it, for validate to quote.
  Napi::Array findings = Napi::Array::New(env, info.unsupported.size());
  uint32_t f = 0;
  for (const auto& [what, where] : info.unsupported) findings.Set(f++, DescribeFinding(what, where));
  o.Set("unsupportedFindings", findings);
  return o;
}

}  // namespace gebe::cpu
