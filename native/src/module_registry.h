// A registry of addon modules. A native concern (cpu engine, executor, ascend engine) registers
// its JS exports with a static GEBE_REGISTER_MODULE in its own binding .cc file.
#pragma once

#include <napi.h>

#include <functional>
#include <string>
#include <vector>

namespace gebe {

struct ModuleEntry {
  std::string name;
  std::function<void(Napi::Env, Napi::Object)> init;
};

inline std::vector<ModuleEntry>& RegisteredModules() {
  static std::vector<ModuleEntry> modules;
  return modules;
}

struct ModuleRegistrar {
  ModuleRegistrar(const char* name, std::function<void(Napi::Env, Napi::Object)> init) {
    RegisteredModules().push_back({name, std::move(init)});
  }
};

}  // namespace gebe

#define GEBE_REGISTER_MODULE(name, fn) static ::gebe::ModuleRegistrar gebe_module_registrar_##name(#name, fn)
