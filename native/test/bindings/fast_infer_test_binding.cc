// A test-only JS handle on the native infer route, so the route can be checked against the JS
// server before (and independently of) the native HTTP server: exports.httpTest.FastInfer with
//   publish(model, [{version, model: NativeModel, labels?}, ...], defaultVersion), as the servers' bindings
//   handle(method, url, [[lower-case name, value], ...], body: Uint8Array, misalign = 0)
//     -> null when declined, else Promise<{status, headers, body: Buffer}>
//   takeFailures() -> [{model, version, reason, count}]
// `misalign` shifts the body off its 64-byte alignment, to exercise the aligned-copy path.
#include <napi.h>

#include <cstring>

#include "http/fast_path.h"
#include "module_registry.h"
#include "net/failure_counts_js.h"
#include "net/publish_js.h"

namespace gebe {

namespace {

class FastInferForTest : public Napi::ObjectWrap<FastInferForTest> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "FastInfer",
                       {InstanceMethod("publish", &FastInferForTest::Publish), InstanceMethod("handle", &FastInferForTest::Handle),
                        InstanceMethod("takeFailures", &FastInferForTest::TakeFailures)});
  }
  explicit FastInferForTest(const Napi::CallbackInfo& info) : Napi::ObjectWrap<FastInferForTest>(info), path_(MakeFastInfer()) {}

 private:
  // The JS side of one taken request: resolved on the JS thread when `respond` is called.
  struct Pending {
    Napi::ThreadSafeFunction tsfn;
    Napi::Promise::Deferred deferred;
    explicit Pending(Napi::Env env) : deferred(Napi::Promise::Deferred::New(env)) {}
  };

  // As the servers' bindings publish (publish_js.h), labels included.
  Napi::Value Publish(const Napi::CallbackInfo& info) {
    PublishArgs args = ReadPublishArgs(info);
    path_->Publish(args.model, std::move(args.versions), args.default_version);
    return info.Env().Undefined();
  }

  Napi::Value Handle(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 4 || !info[0].IsString() || !info[1].IsString() || !info[2].IsArray() || !info[3].IsTypedArray()) {
      throw Napi::TypeError::New(env, "Expected (method, url, headers, body, misalign?) for handle");
    }
    HttpRequest request;
    request.method = info[0].As<Napi::String>().Utf8Value();
    request.url = info[1].As<Napi::String>().Utf8Value();
    Napi::Array headers = info[2].As<Napi::Array>();
    for (uint32_t i = 0; i < headers.Length(); ++i) {
      Napi::Array h = headers.Get(i).As<Napi::Array>();
      request.headers.emplace_back(h.Get(0u).As<Napi::String>().Utf8Value(), h.Get(1u).As<Napi::String>().Utf8Value());
    }
    Napi::TypedArray body = info[3].As<Napi::TypedArray>();
    const size_t misalign = info.Length() > 4 && info[4].IsNumber() ? info[4].As<Napi::Number>().Uint32Value() % 64 : 0;
    // As the server lays a body out: its first byte 64-byte aligned (then shifted by `misalign`).
    request.body_owner = std::make_shared<std::vector<uint8_t>>(body.ByteLength() + 128);
    uint8_t* base = request.body_owner->data();
    uint8_t* start = base + (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64 + misalign;
    if (body.ByteLength() > 0) {
      std::memcpy(start, static_cast<const uint8_t*>(body.ArrayBuffer().Data()) + body.ByteOffset(), body.ByteLength());
    }
    request.body = start;
    request.body_size = body.ByteLength();

    auto pending = std::make_shared<Pending>(env);
    pending->tsfn = Napi::ThreadSafeFunction::New(env, Napi::Function::New(env, [](const Napi::CallbackInfo&) {}), "gebe-fast-infer-test", 0, 1);
    Respond respond = [pending](HttpResponse response) {
      auto* moved = new HttpResponse(std::move(response));
      napi_status status = pending->tsfn.NonBlockingCall(moved, [pending](Napi::Env env, Napi::Function, HttpResponse* r) {
        std::unique_ptr<HttpResponse> owned(r);
        if (env == nullptr) return;
        size_t size = owned->owned_body.size();
        for (const auto& p : owned->pieces) size += p.second;
        Napi::Buffer<uint8_t> bytes = Napi::Buffer<uint8_t>::New(env, size);
        uint8_t* out = bytes.Data();
        std::memcpy(out, owned->owned_body.data(), owned->owned_body.size());
        out += owned->owned_body.size();
        for (const auto& p : owned->pieces) {
          if (p.second > 0) std::memcpy(out, p.first, p.second);
          out += p.second;
        }
        Napi::Object result = Napi::Object::New(env);
        result.Set("status", Napi::Number::New(env, owned->status));
        result.Set("headers", Napi::String::New(env, owned->headers));
        result.Set("body", bytes);
        pending->deferred.Resolve(result);
        pending->tsfn.Release();
      });
      if (status != napi_ok) delete moved;
    };
    if (!path_->TryHandle(request, std::move(respond))) {
      pending->tsfn.Release();
      return env.Null();
    }
    return pending->deferred.Promise();
  }

  Napi::Value TakeFailures(const Napi::CallbackInfo& info) { return FailureCountsToJs(info.Env(), path_->TakeFailures()); }

  std::unique_ptr<FastPath> path_;
};

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object http = Napi::Object::New(env);
  http.Set("FastInfer", FastInferForTest::Define(env));
  exports.Set("httpTest", http);
}

}  // namespace

GEBE_REGISTER_MODULE(http_test, Init);

}  // namespace gebe
