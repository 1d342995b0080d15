// The JS handle of one loaded model (class NativeModel): metadata, infer, stats, pendingCount,
// compile, unload. A thin shell over ModelCore.
#pragma once

#include <napi.h>

#include <memory>

#include "executor/model_core.h"

namespace gebe {

class NativeModel : public Napi::ObjectWrap<NativeModel> {
 public:
  static Napi::Function Define(Napi::Env env);
  static Napi::Object New(Napi::Env env, std::shared_ptr<ModelCore> core);
  explicit NativeModel(const Napi::CallbackInfo& info);
  // The core behind a NativeModel JS object; null when `value` is not one (for the HTTP fast path).
  static std::shared_ptr<ModelCore> CoreOf(Napi::Value value);

 private:
  Napi::Value Metadata(const Napi::CallbackInfo& info);
  Napi::Value Infer(const Napi::CallbackInfo& info);
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value EnableLatencySummaries(const Napi::CallbackInfo& info);
  Napi::Value LatencySummaries(const Napi::CallbackInfo& info);
  Napi::Value PendingCount(const Napi::CallbackInfo& info);
  Napi::Value Compile(const Napi::CallbackInfo& info);
  Napi::Value Unload(const Napi::CallbackInfo& info);
  Napi::Value SetContract(const Napi::CallbackInfo& info);

  std::shared_ptr<ModelCore> core_;
};

}  // namespace gebe
