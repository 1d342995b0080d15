// The addon entry point: it only registers. Each native concern adds its own exports through
// gebe::RegisterModule (see module_registry.h), so this file never changes when one is added.
#include <napi.h>

#include "module_registry.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  Napi::Array names = Napi::Array::New(env);
  uint32_t i = 0;
  for (const auto& module : gebe::RegisteredModules()) {
    module.init(env, exports);
    names.Set(i++, Napi::String::New(env, module.name));
  }
  exports.Set("modules", names);
  exports.Set("abiVersion", Napi::Number::New(env, 1));
  return exports;
}

}  // namespace

NODE_API_MODULE(gebe_native, Init)
