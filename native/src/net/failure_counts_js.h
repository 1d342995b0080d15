// The native infer routes' failure counts and taken-request logs as JS, for the HTTP and gRPC
// servers' bindings (takeFailures(), takeLog()) and the HTTP infer route's test handle alike.
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

// {requests: [[method, url or path], ...], dropped}
inline Napi::Object TakenLogToJs(Napi::Env env, const TakenLog& log) {
  Napi::Array requests = Napi::Array::New(env, log.requests.size());
  for (size_t i = 0; i < log.requests.size(); ++i) {
    Napi::Array pair = Napi::Array::New(env, 2);
    pair.Set(0u, log.requests[i].first);
    pair.Set(1u, log.requests[i].second);
    requests.Set(uint32_t(i), pair);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("requests", requests);
  out.Set("dropped", double(log.dropped));
  return out;
}

}  // namespace gebe
