// Conversions between engine types and the plain JS values the facade reads.
#pragma once

#include <napi.h>

#include <vector>

#include "engine/engine.h"
#include "scheduler/model_statistics.h"

namespace gebe {

Napi::Object TensorDescToJs(Napi::Env env, const TensorDesc& desc);
Napi::Object StatisticsToJs(Napi::Env env, const StatisticsSnapshot& stats);
Napi::Array IntsToJs(Napi::Env env, const std::vector<int64_t>& values);
std::vector<int64_t> IntsFromJs(const Napi::Value& value, const char* what);
// [{name, shape}] -> NamedShape list.
std::vector<NamedShape> NamedShapesFromJs(const Napi::Value& value);
// Output tensors as [Uint8Array, shape, ...] (copied: direct runs are for benchmarks and tools).
Napi::Array TensorsToJs(Napi::Env env, const std::vector<Tensor>& tensors);

}  // namespace gebe
