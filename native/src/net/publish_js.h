// The JS side of publishing: publish(model, [{version, model: NativeModel, labels?}], defaultVersion)
// read into PublishedVersions, for every native front end's binding (and the route's test handle).
// `labels` maps output names to handles from exports.classification.labels(): the classification
// extension's labels, shared with JS, not copied.
#pragma once

#include <napi.h>

#include <string>
#include <vector>

#include "executor/classification_js.h"
#include "executor/native_model.h"
#include "http/fast_path.h"

namespace gebe {

struct PublishArgs {
  std::string model;
  std::vector<PublishedVersion> versions;
  std::string default_version;
};

// {output name: labels handle} or undefined.
inline std::shared_ptr<const OutputLabels> ReadLabels(Napi::Env env, Napi::Value value) {
  if (value.IsUndefined()) return nullptr;
  const char* const kExpected = "publish: 'labels' must map output names to handles from classification.labels()";
  if (!value.IsObject()) throw Napi::TypeError::New(env, kExpected);
  Napi::Object object = value.As<Napi::Object>();
  Napi::Array names = object.GetPropertyNames();
  auto labels = std::make_shared<OutputLabels>();
  for (uint32_t i = 0; i < names.Length(); ++i) {
    Napi::Value name = names.Get(i);
    std::shared_ptr<const ClassLabels> list = ClassLabelsOf(object.Get(name));
    if (!list) throw Napi::TypeError::New(env, kExpected);
    (*labels)[name.ToString().Utf8Value()] = std::move(list);
  }
  return labels;
}

inline PublishArgs ReadPublishArgs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsString() || !info[1].IsArray() || !info[2].IsString()) {
    throw Napi::TypeError::New(env, "Expected (model, [{version, model: NativeModel, labels?}], defaultVersion) for publish");
  }
  PublishArgs args;
  Napi::Array list = info[1].As<Napi::Array>();
  for (uint32_t i = 0; i < list.Length(); ++i) {
    Napi::Value entry = list.Get(i);
    if (!entry.IsObject() || !entry.As<Napi::Object>().Get("version").IsString()) {
      throw Napi::TypeError::New(env, "publish: every version must be {version: string, model: NativeModel}");
    }
    Napi::Object e = entry.As<Napi::Object>();
    std::shared_ptr<ModelCore> core = NativeModel::CoreOf(e.Get("model"));
    if (!core) throw Napi::TypeError::New(env, "publish: 'model' must be a NativeModel from executor.loadModel()");
    args.versions.push_back(PublishedVersion{e.Get("version").As<Napi::String>().Utf8Value(), std::move(core), ReadLabels(env, e.Get("labels"))});
  }
  args.model = info[0].As<Napi::String>().Utf8Value();
  args.default_version = info[2].As<Napi::String>().Utf8Value();
  return args;
}

}  // namespace gebe
