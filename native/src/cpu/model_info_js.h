// A loaded ONNX program described for JS (inputs, outputs, operator histogram, what the cpu
// engine does not support): what `cpuInspect` returns, and the test bindings' session info.
#pragma once

#include <napi.h>

#include <vector>

#include "cpu/program.h"

namespace gebe::cpu {

Napi::Array DimsToJs(Napi::Env env, const std::vector<int64_t>& dims);
Napi::Object ModelInfoToJs(Napi::Env env, const ModelInfo& info, const std::vector<TensorDesc>& inputs,
                           const std::vector<TensorDesc>& outputs);

}  // namespace gebe::cpu
