// Engines register themselves by model-file extension with a static GEBE_REGISTER_ENGINE in
// their own directory, so the scheduler finds them without naming them (and the build needs no
// edit when an engine is added). ".onnx" → cpu; ".om" → ascend.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace gebe {

using SessionFactory = std::function<std::unique_ptr<Session>(const std::string& model_path, const SessionOptions& options)>;

struct EngineEntry {
  std::string name;                     // "cpu", "ascend"
  std::vector<std::string> extensions;  // ".onnx"
  SessionFactory load;
};

inline std::vector<EngineEntry>& RegisteredEngines() {
  static std::vector<EngineEntry> engines;
  return engines;
}

// The engine registered for the file's extension, or nullptr.
inline const EngineEntry* FindEngineForPath(const std::string& path) {
  for (const auto& engine : RegisteredEngines()) {
    for (const auto& ext : engine.extensions) {
      if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return &engine;
    }
  }
  return nullptr;
}

inline const EngineEntry* FindEngineByName(const std::string& name) {
  for (const auto& engine : RegisteredEngines()) {
    if (engine.name == name) return &engine;
  }
  return nullptr;
}

struct EngineRegistrar {
  EngineRegistrar(EngineEntry entry) { RegisteredEngines().push_back(std::move(entry)); }
};

}  // namespace gebe

#define GEBE_REGISTER_ENGINE(id, ...) static ::gebe::EngineRegistrar gebe_engine_registrar_##id(::gebe::EngineEntry{__VA_ARGS__})
