// The native infer routes' failure counts as JS: [{model, version, reason, count}], for the HTTP
// and gRPC servers' bindings (takeFailures()) and the HTTP infer route's test handle alike.
#pragma once

#include <napi.h>

#include <vector>

#include "http/fast_path.h"

namespace gebe {

inline Napi::Array FailureCountsToJs(Napi::Env env, const std::vector<FailureCount>& failures) {
  Napi::Array out = Napi::Array::New(env, failures.size());
  for (size_t i = 0; i < failures.size(); ++i) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("model", failures[i].model);
    o.Set("version", failures[i].version);
    o.Set("reason", failures[i].reason);
    o.Set("count", double(failures[i].count));
    out.Set(uint32_t(i), o);
  }
  return out;
}

}  // namespace gebe
