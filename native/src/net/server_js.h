// N-API pieces both native front ends' bindings share (http/http_binding.cc,
// grpc/grpc_binding.cc): reading numeric options, the error of a failed listen, and closing
// a server off the JS thread.
#pragma once

#include <napi.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "net/listen_address.h"

namespace gebe {

// o[key] as a count (absent: fallback); anything but a number >= 0 throws, naming `owner` and the key.
inline uint64_t OptionalU64(Napi::Object o, const char* key, uint64_t fallback, const char* owner) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsNumber() || v.As<Napi::Number>().DoubleValue() < 0) {
    throw Napi::TypeError::New(o.Env(), std::string(owner) + " option '" + key + "' must be a number >= 0");
  }
  return uint64_t(v.As<Napi::Number>().DoubleValue());
}

// o[key] as a string; absent or not a string throws, naming `owner` and the key. The answers'
// wording is one of these: serve passes it from src/core/server/limits.ts, so it has no native copy.
inline std::string RequiredString(Napi::Object o, const char* key, const char* owner) {
  Napi::Value v = o.Get(key);
  if (!v.IsString()) throw Napi::TypeError::New(o.Env(), std::string(owner) + " option '" + key + "' must be a string");
  return v.As<Napi::String>().Utf8Value();
}

// The JS error of a failed listen: the libuv message, with its code ("EADDRINUSE", ...).
inline Napi::Error ListenErrorToJs(Napi::Env env, const ListenError& e) {
  Napi::Error error = Napi::Error::New(env, e.message);
  error.Set("code", e.code);
  return error;
}

// close(timeoutMs): info[0] as milliseconds, 0 when absent.
inline uint64_t CloseTimeoutArg(const Napi::CallbackInfo& info) {
  return info.Length() > 0 && info[0].IsNumber() ? uint64_t(std::max(0.0, info[0].As<Napi::Number>().DoubleValue())) : 0;
}

// Waits off the JS thread for a server's loop to drain and end (Server: BeginClose(ms), Join()),
// then runs `closed` on the JS thread and resolves the promise.
template <typename Server>
class CloseWorker : public Napi::AsyncWorker {
 public:
  CloseWorker(Napi::Object owner, Server* server, uint64_t timeout_ms, std::function<void()> closed)
      : Napi::AsyncWorker(owner.Env()), deferred_(Napi::Promise::Deferred::New(owner.Env())), owner_(Napi::Persistent(owner)),
        server_(server), timeout_ms_(timeout_ms), closed_(std::move(closed)) {}

  // Queues the worker; the promise resolves once the server has closed.
  static Napi::Promise Run(Napi::Object owner, Server* server, uint64_t timeout_ms, std::function<void()> closed) {
    auto* worker = new CloseWorker(owner, server, timeout_ms, std::move(closed));
    Napi::Promise promise = worker->deferred_.Promise();
    worker->Queue();
    return promise;
  }

  void Execute() override {
    server_->BeginClose(timeout_ms_);
    server_->Join();
  }
  void OnOK() override {
    if (closed_) closed_();
    deferred_.Resolve(Env().Undefined());
  }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference owner_;  // keeps the JS object (and so the server) alive until closed
  Server* server_;
  uint64_t timeout_ms_;
  std::function<void()> closed_;
};

}  // namespace gebe
