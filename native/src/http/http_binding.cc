// JS exports of the native HTTP front end: class NativeHttpServer(options, handler) with listen()
// -> port, close(timeoutMs) -> Promise, counters() -> {accepted, answered, inFlight, bodyBytes,
// handedOff, acceptedByLoop}, answer(token, status, headerLines, body, close) for the requests handed to `handler`,
// and publish(model, versions, defaultVersion), takeFailures(), enableLog(), takeLog() for the
// native infer route.
#include <napi.h>
#include <sys/resource.h>

#include <memory>
#include <string>
#include <vector>

#include "http/fast_path.h"
#include "http/http_server.h"
#include "http/js_request_handler.h"
#include "module_registry.h"
#include "net/failure_counts_js.h"
#include "net/publish_js.h"
#include "net/server_js.h"
#include "trace/trace_js.h"

namespace gebe {

namespace {

constexpr const char* kClass = "NativeHttpServer";

class NativeHttpServer : public Napi::ObjectWrap<NativeHttpServer> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativeHttpServer",
                       {InstanceMethod("listen", &NativeHttpServer::Listen), InstanceMethod("close", &NativeHttpServer::Close),
                        InstanceMethod("counters", &NativeHttpServer::Counters), InstanceMethod("answer", &NativeHttpServer::Answer),
                        InstanceMethod("publish", &NativeHttpServer::Publish),
                        InstanceMethod("takeFailures", &NativeHttpServer::TakeFailures),
                        InstanceMethod("enableLog", &NativeHttpServer::EnableLog), InstanceMethod("takeLog", &NativeHttpServer::TakeLog)});
  }

  explicit NativeHttpServer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeHttpServer>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 2 || !info[0].IsObject() || !info[1].IsFunction()) {
      throw Napi::TypeError::New(env, "Expected (options, handler) for new NativeHttpServer");
    }
    Napi::Object o = info[0].As<Napi::Object>();
    HttpServerOptions options;
    options.host = RequiredString(o, "host", kClass);
    options.port = int(OptionalU64(o, "port", 0, kClass));
    options.max_inflight_bytes = OptionalU64(o, "maxInflightBodyBytes", options.max_inflight_bytes, kClass);
    options.max_connections = size_t(OptionalU64(o, "maxConnections", options.max_connections, kClass));
    options.busy_message = RequiredString(o, "busyMessage", kClass);
    options.max_unsent_bytes = OptionalU64(o, "maxUnsentBytes", options.max_unsent_bytes, kClass);
    options.busy_poll_us = OptionalU64(o, "busyPollUs", options.busy_poll_us, kClass);
    options.too_large_message = RequiredString(o, "tooLargeMessage", kClass);
    options.malformed_prefix = RequiredString(o, "malformedPrefix", kClass);
    options.timeout_message = RequiredString(o, "timeoutMessage", kClass);
    options.full_message = RequiredString(o, "fullMessage", kClass);
    options.max_request_bytes = OptionalU64(o, "maxBodyBytes", options.max_request_bytes, kClass);
    options.headers_timeout_ms = OptionalU64(o, "headersTimeoutMs", options.headers_timeout_ms, kClass);
    options.request_timeout_ms = OptionalU64(o, "requestTimeoutMs", options.request_timeout_ms, kClass);
    options.keep_alive_timeout_ms = OptionalU64(o, "keepAliveTimeoutMs", options.keep_alive_timeout_ms, kClass);
    options.max_header_bytes = size_t(OptionalU64(o, "maxHeaderBytes", options.max_header_bytes, kClass));
    options.threads = size_t(OptionalU64(o, "threads", options.threads, kClass));
    if (options.port > 65535) throw Napi::RangeError::New(env, "NativeHttpServer needs a port of 0-65535");
    if (options.threads < 1 || options.threads > kMaxHttpLoops) {
      throw Napi::RangeError::New(env, "NativeHttpServer option 'threads' must be 1-" + std::to_string(kMaxHttpLoops));
    }
    fast_path_ = std::shared_ptr<FastPath>(MakeFastInfer());
    handler_ = std::make_shared<JsRequestHandler>(env, info[1].As<Napi::Function>());
    server_ = std::make_unique<HttpServer>(std::move(options), fast_path_, handler_);
  }

 private:
  Napi::Value Listen(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    try {
      int port = server_->Listen();
      handler_->Start(env);
      return Napi::Number::New(env, port);
    } catch (const ListenError& e) {
      throw ListenErrorToJs(env, e);
    }
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    std::shared_ptr<JsRequestHandler> handler = handler_;
    // Once the loop has ended nothing more is handed to JS.
    return CloseWorker<HttpServer>::Run(info.This().As<Napi::Object>(), server_.get(), CloseTimeoutArg(info), [handler] { handler->Stop(); });
  }

  Napi::Value Counters(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    uint64_t accepted = server_->accepted(), answered = server_->answered();
    Napi::Object o = Napi::Object::New(env);
    o.Set("accepted", double(accepted));
    o.Set("answered", double(answered));
    o.Set("inFlight", double(accepted >= answered ? accepted - answered : 0));
    o.Set("bodyBytes", double(server_->body_bytes()));
    o.Set("handedOff", double(server_->handed_off()));
    const std::vector<uint64_t> by_loop = server_->accepted_by_loop();
    Napi::Array loops = Napi::Array::New(env, by_loop.size());
    for (size_t i = 0; i < by_loop.size(); ++i) loops.Set(uint32_t(i), double(by_loop[i]));
    o.Set("acceptedByLoop", loops);
    return o;
  }

  // answer(token, status, headerLines, body, close[, part[, trace]]): headerLines are "Name: value\r\n"
  // lines (the server adds Content-Length or Transfer-Encoding, Date and Connection); body a
  // Buffer; part 0 a whole answer, 1 the first part of a streamed one (status and headers), 2 a
  // later part, 3 its last (fast_path.h's BodyPart). trace: the trace of the request JS answers
  // (trace/trace_js.h), whose send the connection times. False: unknown token.
  Napi::Value Answer(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 5 || info.Length() > 7 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsString() ||
        !info[3].IsBuffer() || !info[4].IsBoolean() || (info.Length() >= 6 && !info[5].IsNumber() && !info[5].IsUndefined()) ||
        (info.Length() == 7 && !info[6].IsObject() && !info[6].IsUndefined())) {
      throw Napi::TypeError::New(env, "Expected (token, status, headerLines, body: Buffer, close: boolean[, part: 0-3[, trace]]) for answer");
    }
    HttpResponse response;
    response.status = info[1].As<Napi::Number>().Int32Value();
    if (response.status < 100 || response.status > 599) throw Napi::RangeError::New(env, "answer: status must be 100-599");
    response.headers = info[2].As<Napi::String>().Utf8Value();
    Napi::Buffer<uint8_t> body = info[3].As<Napi::Buffer<uint8_t>>();
    response.owned_body.assign(reinterpret_cast<const char*>(body.Data()), body.Length());
    response.close = info[4].As<Napi::Boolean>().Value();
    if (info.Length() >= 6 && info[5].IsNumber()) {
      const int32_t part = info[5].As<Napi::Number>().Int32Value();
      if (part < 0 || part > 3) throw Napi::RangeError::New(env, "answer: part must be 0-3");
      response.part = BodyPart(part);
    }
    if (info.Length() == 7 && info[6].IsObject()) response.trace = TraceFromJs(info[6].As<Napi::Object>());
    return Napi::Boolean::New(env, handler_->Answer(uint64_t(info[0].As<Napi::Number>().DoubleValue()), std::move(response)));
  }

  Napi::Value Publish(const Napi::CallbackInfo& info) {
    PublishArgs args = ReadPublishArgs(info);
    fast_path_->Publish(args.model, std::move(args.versions), args.default_version);
    return info.Env().Undefined();
  }

  Napi::Value TakeFailures(const Napi::CallbackInfo& info) { return FailureCountsToJs(info.Env(), fast_path_->TakeFailures()); }

  Napi::Value EnableLog(const Napi::CallbackInfo& info) {
    fast_path_->EnableLog(info.Length() < 1 || info[0].ToBoolean().Value());
    return info.Env().Undefined();
  }

  Napi::Value TakeLog(const Napi::CallbackInfo& info) { return TakenLogToJs(info.Env(), fast_path_->TakeLog()); }

  std::shared_ptr<FastPath> fast_path_;
  std::shared_ptr<JsRequestHandler> handler_;
  std::unique_ptr<HttpServer> server_;
};

// Raises the soft open-file limit to the hard one (each connection costs descriptors) and returns
// the soft limit now in force, which sizes --max-connections by default.
Napi::Value RaiseFdLimit(const Napi::CallbackInfo& info) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return Napi::Number::New(info.Env(), 1024);
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return Napi::Number::New(info.Env(), limit.rlim_cur == RLIM_INFINITY ? 1048576.0 : double(limit.rlim_cur));
}

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object http = Napi::Object::New(env);
  http.Set("raiseFdLimit", Napi::Function::New(env, RaiseFdLimit));
  http.Set("NativeHttpServer", NativeHttpServer::Define(env));
  exports.Set("http", http);
}

}  // namespace

GEBE_REGISTER_MODULE(http, Init);

}  // namespace gebe
