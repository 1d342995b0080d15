// JS exports of the native gRPC front end: class NativeGrpcServer(options, handler) with
// listen() -> port, close(timeoutMs) -> Promise, answer(connection, stream, final, code, message,
// bytes), counters(), publish(model, versions, defaultVersion) and takeFailures().
// handler(connection, stream, path, requestBytes, metadata, cancelled, received) runs on the JS thread for every call
// the native infer route does not take (requestBytes null: a streaming call opens, with
// announceStreams); JS answers it with answer().
#include <napi.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include "grpc/grpc_infer_route.h"
#include "grpc/grpc_server.h"
#include "module_registry.h"
#include "net/failure_counts_js.h"
#include "net/publish_js.h"
#include "net/server_js.h"
#include "trace/trace_js.h"

namespace gebe {

namespace {

constexpr const char* kClass = "NativeGrpcServer";

class NativeGrpcServer : public Napi::ObjectWrap<NativeGrpcServer> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativeGrpcServer",
                       {InstanceMethod("listen", &NativeGrpcServer::Listen), InstanceMethod("close", &NativeGrpcServer::Close),
                        InstanceMethod("answer", &NativeGrpcServer::Answer), InstanceMethod("counters", &NativeGrpcServer::Counters),
                        InstanceMethod("publish", &NativeGrpcServer::Publish),
                        InstanceMethod("takeFailures", &NativeGrpcServer::TakeFailures),
                        InstanceMethod("enableLog", &NativeGrpcServer::EnableLog), InstanceMethod("takeLog", &NativeGrpcServer::TakeLog)});
  }

  explicit NativeGrpcServer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeGrpcServer>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 2 || !info[0].IsObject() || !info[1].IsFunction()) {
      throw Napi::TypeError::New(env, "Expected (options, handler) for new NativeGrpcServer");
    }
    Napi::Object o = info[0].As<Napi::Object>();
    GrpcServerOptions options;
    options.host = RequiredString(o, "host", kClass);
    options.port = int(OptionalU64(o, "port", 0, kClass));
    if (options.port > 65535) throw Napi::RangeError::New(env, "NativeGrpcServer needs port 0-65535");
    options.max_request_bytes = OptionalU64(o, "maxMessageBytes", options.max_request_bytes, kClass);
    options.max_inflight_bytes = OptionalU64(o, "maxInflightBytes", options.max_inflight_bytes, kClass);
    options.max_connections = size_t(OptionalU64(o, "maxConnections", options.max_connections, kClass));
    options.max_concurrent_streams = uint32_t(OptionalU64(o, "maxConcurrentStreams", options.max_concurrent_streams, kClass));
    options.drain_grace_ms = OptionalU64(o, "drainGraceMs", options.drain_grace_ms, kClass);
    options.announce_streams = o.Get("announceStreams").IsBoolean() && o.Get("announceStreams").As<Napi::Boolean>().Value();
    options.busy_message = RequiredString(o, "busyMessage", kClass);
    options.max_unsent_bytes = OptionalU64(o, "maxUnsentBytes", options.max_unsent_bytes, kClass);
    options.unsent_message = RequiredString(o, "unsentMessage", kClass);
    options.busy_poll_us = OptionalU64(o, "busyPollUs", options.busy_poll_us, kClass);
    KeepaliveOptions& k = options.keepalive;
    k.time_ms = std::max<uint64_t>(1, OptionalU64(o, "keepaliveTimeMs", k.time_ms, kClass));
    k.timeout_ms = std::max<uint64_t>(1, OptionalU64(o, "keepaliveTimeoutMs", k.timeout_ms, kClass));
    k.permit_without_calls = o.Get("keepalivePermitWithoutCalls").IsBoolean() && o.Get("keepalivePermitWithoutCalls").As<Napi::Boolean>().Value();
    k.max_pings_without_data = uint32_t(std::min<uint64_t>(UINT32_MAX, OptionalU64(o, "maxPingsWithoutData", k.max_pings_without_data, kClass)));
    k.min_recv_ping_interval_without_data_ms = OptionalU64(o, "minRecvPingIntervalWithoutDataMs", k.min_recv_ping_interval_without_data_ms, kClass);
    k.max_ping_strikes = uint32_t(std::min<uint64_t>(UINT32_MAX, OptionalU64(o, "maxPingStrikes", k.max_ping_strikes, kClass)));
    const bool native_infer = !o.Get("nativeInfer").IsBoolean() || o.Get("nativeInfer").As<Napi::Boolean>().Value();
    // 0 none, 1 low, 2 medium, 3 high (--grpc-infer-response-compression-level).
    options.response_compression = ResponseCompression(std::min<uint64_t>(3, OptionalU64(o, "responseCompression", 0, kClass)));

    tsfn_ = Napi::ThreadSafeFunction::New(env, info[1].As<Napi::Function>(), "gebe-grpc", 0, 1);
    route_ = MakeGrpcInfer();
    Napi::ThreadSafeFunction tsfn = tsfn_;
    auto to_js = [tsfn](std::unique_ptr<GrpcJsCall> call) mutable {
      GrpcJsCall* raw = call.release();
      napi_status status = tsfn.NonBlockingCall(raw, [](Napi::Env env, Napi::Function handler, GrpcJsCall* call) {
        std::unique_ptr<GrpcJsCall> owned(call);
        if (env == nullptr) return;  // the environment is going away
        Napi::Value bytes = env.Null();
        if (owned->message) {
          bytes = Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<const uint8_t*>(owned->message->data()), owned->message->size());
          owned->message.reset();  // its share of the in-flight budget ends here
        }
        Napi::Array metadata = Napi::Array::New(env, owned->metadata.size() * 2);
        for (size_t i = 0; i < owned->metadata.size(); ++i) {
          metadata.Set(uint32_t(2 * i), owned->metadata[i].first);
          metadata.Set(uint32_t(2 * i + 1), owned->metadata[i].second);
        }
        // While tracing, when the message was waited for and read: a trace JS makes of it starts there.
        Napi::Value received = env.Undefined();
        if (owned->read_start_ns != 0) {
          Napi::Array pair = Napi::Array::New(env, 2);
          pair.Set(0u, Napi::BigInt::New(env, owned->read_start_ns));
          pair.Set(1u, Napi::BigInt::New(env, owned->read_end_ns));
          received = pair;
        }
        handler.Call({Napi::Number::New(env, double(owned->connection_id)), Napi::Number::New(env, owned->stream_id),
                      Napi::String::New(env, owned->path), bytes, metadata, Napi::Number::New(env, owned->cancelled), received});
      });
      if (status != napi_ok) delete raw;  // closing: the stream is cancelled with its connection
    };
    server_ = std::make_unique<GrpcServer>(std::move(options), native_infer ? std::shared_ptr<GrpcInferRoute>(route_) : nullptr, to_js);
  }

  ~NativeGrpcServer() override {
    server_.reset();  // joins the loop thread: no call into JS after this
  }

 private:
  Napi::Value Listen(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    try {
      return Napi::Number::New(env, server_->Listen());
    } catch (const ListenError& e) {
      ReleaseHandler();  // nothing will call JS: the handler must not keep node alive
      throw ListenErrorToJs(env, e);
    }
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    // The loop has ended: nothing calls JS any more, and the handler stops keeping node alive.
    return CloseWorker<GrpcServer>::Run(info.This().As<Napi::Object>(), server_.get(), CloseTimeoutArg(info), [this] { ReleaseHandler(); });
  }

  // answer(connection, stream, final, code, message, bytes | null[, more[, trace]]): trace, the trace of
  // the request JS answers (trace/trace_js.h), whose send the server times.
  Napi::Value Answer(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 6 || info.Length() > 8 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsBoolean() ||
        !info[3].IsNumber() || !info[4].IsString() || (info.Length() >= 7 && !info[6].IsBoolean() && !info[6].IsUndefined()) ||
        (info.Length() == 8 && !info[7].IsObject() && !info[7].IsUndefined())) {
      throw Napi::TypeError::New(env, "Expected (connection, stream, final, code, message, bytes | null[, more[, trace]]) for answer");
    }
    GrpcAnswer answer;
    answer.connection_id = uint64_t(info[0].As<Napi::Number>().DoubleValue());
    answer.stream_id = info[1].As<Napi::Number>().Int32Value();
    answer.final = info[2].As<Napi::Boolean>().Value();
    answer.code = GrpcCode(info[3].As<Napi::Number>().Int32Value());
    answer.message = info[4].As<Napi::String>().Utf8Value();
    answer.more = info.Length() >= 7 && info[6].IsBoolean() && info[6].As<Napi::Boolean>().Value();
    if (info.Length() == 8 && info[7].IsObject()) answer.trace = TraceFromJs(info[7].As<Napi::Object>());
    if (info[5].IsTypedArray()) {
      Napi::Uint8Array bytes = info[5].As<Napi::Uint8Array>();
      answer.framed.reserve(5 + bytes.ByteLength());
      AppendMessagePrefix(&answer.framed, bytes.ByteLength());
      answer.framed.append(reinterpret_cast<const char*>(bytes.Data()), bytes.ByteLength());
    }
    server_->Post(std::move(answer));
    return env.Undefined();
  }

  Napi::Value Counters(const Napi::CallbackInfo& info) {
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("connections", double(server_->connection_count()));
    o.Set("refused", double(server_->refused_connections()));
    o.Set("inflightBytes", double(server_->inflight_bytes()));
    return o;
  }

  Napi::Value Publish(const Napi::CallbackInfo& info) {
    PublishArgs args = ReadPublishArgs(info);
    route_->Publish(args.model, std::move(args.versions), args.default_version);
    return info.Env().Undefined();
  }

  Napi::Value TakeFailures(const Napi::CallbackInfo& info) { return FailureCountsToJs(info.Env(), route_->TakeFailures()); }

  Napi::Value EnableLog(const Napi::CallbackInfo& info) {
    route_->EnableLog(info.Length() < 1 || info[0].ToBoolean().Value());
    return info.Env().Undefined();
  }

  Napi::Value TakeLog(const Napi::CallbackInfo& info) { return TakenLogToJs(info.Env(), route_->TakeLog()); }

  void ReleaseHandler() {
    if (tsfn_) {
      tsfn_.Release();
      tsfn_ = Napi::ThreadSafeFunction();
    }
  }

  Napi::ThreadSafeFunction tsfn_;
  std::shared_ptr<GrpcInfer> route_;
  std::unique_ptr<GrpcServer> server_;
};

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object grpc = Napi::Object::New(env);
  grpc.Set("NativeGrpcServer", NativeGrpcServer::Define(env));
  exports.Set("grpc", grpc);
}

}  // namespace

GEBE_REGISTER_MODULE(grpc, Init);

}  // namespace gebe
