#include "http/js_request_handler.h"

#include <utility>

#include "http/http_text.h"
#include "http/infer_response.h"

namespace gebe {

namespace {

// Answered when the JS side cannot take a request (the server is closing).
HttpResponse Unavailable() {
  HttpResponse r;
  r.status = 503;
  r.headers = "Content-Type: application/json\r\n";
  r.owned_body = EncodeErrorBody("the server is shutting down; retry on another instance");
  r.close = true;
  return r;
}

}  // namespace

JsRequestHandler::JsRequestHandler(Napi::Env env, Napi::Function handler) {
  tsfn_ = Tsfn::New(env, handler, "gebe-http-handler", 0, 1, nullptr);
  tsfn_.Unref(env);  // until Start(): a server that never listens must not keep node alive
}

JsRequestHandler::~JsRequestHandler() {
  if (!released_) tsfn_.Release();
}

void JsRequestHandler::Start(Napi::Env env) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (released_ || started_) return;
  started_ = true;
  tsfn_.Ref(env);
}

void JsRequestHandler::Stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (released_) return;
  released_ = true;
  started_ = false;
  tsfn_.Release();
  // What JS still holds is answered by nobody now: drop it (the server is gone, its mailbox too).
  waiting_.clear();
  tokens_.clear();
}

void JsRequestHandler::Handle(std::shared_ptr<HttpRequest> request, Respond respond) {
  auto* call = new Call{shared_from_this(), std::move(request), std::move(respond)};
  napi_status status;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status = released_ ? napi_closing : tsfn_.NonBlockingCall(call);
  }
  if (status != napi_ok) {
    call->respond(Unavailable());
    delete call;
  }
}

void JsRequestHandler::Abandoned(std::shared_ptr<HttpRequest> request) {
  // The call holds the request: its address names no other request until JS has looked it up.
  auto* call = new Call{shared_from_this(), std::move(request), nullptr, true};
  napi_status status;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status = released_ ? napi_closing : tsfn_.NonBlockingCall(call);
  }
  if (status != napi_ok) delete call;
}

void JsRequestHandler::CallJs(Napi::Env env, Napi::Function handler, std::nullptr_t*, Call* call) {
  std::unique_ptr<Call> owned(call);
  JsRequestHandler* self = call->owner.get();
  if (env == nullptr || self->released_) return;  // node is tearing down, or the server has ended
  const HttpRequest& r = *call->request;
  if (call->abandoned) {
    auto held = self->tokens_.find(&r);
    if (held == self->tokens_.end()) return;  // answered already, or never handed to JS
    try {
      handler.Call({Napi::Number::New(env, double(held->second))});
    } catch (const Napi::Error&) {
      // Only a hint to drop queued work; the request still gets its answer.
    }
    return;
  }
  uint64_t token = self->next_token_++;
  self->waiting_.emplace(token, Waiting{std::move(call->respond), &r});
  self->tokens_.emplace(&r, token);
  Napi::Array headers = Napi::Array::New(env, r.headers.size() * 2);
  for (size_t i = 0; i < r.headers.size(); ++i) {
    headers.Set(uint32_t(2 * i), Napi::String::New(env, r.headers[i].first));
    headers.Set(uint32_t(2 * i + 1), Napi::String::New(env, r.headers[i].second));
  }
  Napi::Value body = r.body_size > 0 ? Napi::Buffer<uint8_t>::Copy(env, r.body, r.body_size).As<Napi::Value>()
                                     : Napi::Buffer<uint8_t>::New(env, 0).As<Napi::Value>();
  try {
    // While tracing, when the request arrived: a trace JS makes of it starts there.
    Napi::Value received = env.Undefined();
    if (r.recv_start_ns != 0) {
      Napi::Array pair = Napi::Array::New(env, 2);
      pair.Set(0u, Napi::BigInt::New(env, r.recv_start_ns));
      pair.Set(1u, Napi::BigInt::New(env, r.recv_end_ns != 0 ? r.recv_end_ns : r.recv_start_ns));
      received = pair;
    }
    handler.Call({Napi::Number::New(env, double(token)), Napi::String::New(env, r.method), Napi::String::New(env, r.url), headers,
                  body, Napi::Boolean::New(env, r.http10), received});
  } catch (const Napi::Error& e) {
    // The JS handler answers its own errors; one that escapes it still gets an answer.
    HttpResponse failed;
    failed.status = 500;
    failed.headers = "Content-Type: application/json\r\n";
    failed.owned_body = EncodeErrorBody(std::string("internal error: the HTTP handler failed: ") + e.Message());
    self->Answer(token, std::move(failed));
  }
}

bool JsRequestHandler::Answer(uint64_t token, HttpResponse response) {
  auto it = waiting_.find(token);
  if (it == waiting_.end()) return false;
  if (response.part == BodyPart::kFirst || response.part == BodyPart::kNext) {
    it->second.respond(std::move(response));  // a streamed answer's part: more follow, the token stays
    return true;
  }
  Respond respond = std::move(it->second.respond);
  tokens_.erase(it->second.request);
  waiting_.erase(it);
  respond(std::move(response));
  return true;
}

}  // namespace gebe
