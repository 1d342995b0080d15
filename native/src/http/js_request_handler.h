// The RequestHandler of `gebe serve`: hands each request the native server does not answer itself
// to one JS function, in process, through a thread-safe call, and takes its answer back through
// Answer(). There is no second HTTP server: JS sees (method, url, headers, body), never a socket.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "http/fast_path.h"

namespace gebe {

class JsRequestHandler : public RequestHandler, public std::enable_shared_from_this<JsRequestHandler> {
 public:
  // JS thread. `handler(token, method, url, headers, body, http10, received)`: headers is a flat array of
  // [lower-cased name, value, ...] in arrival order, body a Buffer (a copy: the native one stays
  // charged to the in-flight body budget until the answer), received [first byte, complete] in
  // steady-clock ns (bigints) while tracing, else undefined. The handler calls Answer(token, ...)
  // exactly once, now or later. Called with the token alone, it hears that the connection of a
  // request it holds went away (Abandoned).
  JsRequestHandler(Napi::Env env, Napi::Function handler);
  ~JsRequestHandler() override;

  // JS thread: the server listens (the call keeps node's event loop alive), or has ended.
  void Start(Napi::Env env);
  void Stop();

  void Handle(std::shared_ptr<HttpRequest> request, Respond respond) override;
  void Abandoned(std::shared_ptr<HttpRequest> request) override;

  // JS thread. False when `token` is unknown (answered already, or never handed out). A streamed
  // answer's parts but its last keep the token.
  bool Answer(uint64_t token, HttpResponse response);

 private:
  struct Call {
    std::shared_ptr<JsRequestHandler> owner;  // a call still queued when the server object goes keeps this alive
    std::shared_ptr<HttpRequest> request;
    Respond respond;
    bool abandoned = false;  // not a request: word that `request`'s connection went away
  };
  struct Waiting {
    Respond respond;
    const HttpRequest* request;  // kept alive by respond
  };
  static void CallJs(Napi::Env env, Napi::Function handler, std::nullptr_t*, Call* call);

  using Tsfn = Napi::TypedThreadSafeFunction<std::nullptr_t, Call, &JsRequestHandler::CallJs>;
  Tsfn tsfn_;
  std::mutex mutex_;  // guards started_ and released_ (Handle and Abandoned run on the server's loop threads, maybe several at once)
  bool started_ = false;
  bool released_ = false;
  uint64_t next_token_ = 1;                        // JS thread
  std::unordered_map<uint64_t, Waiting> waiting_;  // JS thread: handed to JS, not answered yet
  std::unordered_map<const HttpRequest*, uint64_t> tokens_;  // JS thread: the same, by request
};

}  // namespace gebe
