#include "executor/rate_limiter_js.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "module_registry.h"

namespace gebe {

namespace {

Napi::FunctionReference* g_constructor = nullptr;

// A whole number in [0, max] from a JS value; anything else (absent, NaN, negative) is 0.
double Clamped(Napi::Value v, double max) {
  const double n = v.IsNumber() ? std::floor(v.As<Napi::Number>().DoubleValue()) : 0;
  return n >= 0 ? std::min(n, max) : 0;
}

class RateLimiterJs : public Napi::ObjectWrap<RateLimiterJs> {
 public:
  static Napi::Function Define(Napi::Env env) {
    Napi::Function ctor = DefineClass(env, "RateLimiter",
                                      {InstanceMethod("capacities", &RateLimiterJs::Capacities),
                                       InstanceMethod("register", &RateLimiterJs::Register),
                                       InstanceMethod("unregister", &RateLimiterJs::Unregister),
                                       InstanceMethod("acquire", &RateLimiterJs::Acquire),
                                       InstanceMethod("release", &RateLimiterJs::Release)});
    g_constructor = new Napi::FunctionReference(Napi::Persistent(ctor));
    return ctor;
  }

  explicit RateLimiterJs(const Napi::CallbackInfo& info) : Napi::ObjectWrap<RateLimiterJs>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, "RateLimiter: expected resources: Array<{name, count, device}>");
    Napi::Array list = info[0].As<Napi::Array>();
    std::vector<RateLimitResource> resources;
    for (uint32_t i = 0; i < list.Length(); ++i) {
      Napi::Value item = list.Get(i);
      if (!item.IsObject()) throw Napi::TypeError::New(env, "RateLimiter: every resource must be an object");
      Napi::Object o = item.As<Napi::Object>();
      Napi::Value name = o.Get("name"), count = o.Get("count"), device = o.Get("device");
      const double c = count.IsNumber() ? count.As<Napi::Number>().DoubleValue() : -1;
      const double d = device.IsNumber() ? device.As<Napi::Number>().DoubleValue() : -2;
      if (!name.IsString() || !(c >= 0 && c == std::floor(c) && c <= 9007199254740991.0) || !(d >= -1 && d == std::floor(d) && d <= 2147483647.0)) {
        throw Napi::TypeError::New(env, "RateLimiter: every resource must be {name: string, count: integer >= 0, device: integer >= -1}");
      }
      resources.push_back({name.As<Napi::String>().Utf8Value(), int64_t(c), int(d)});
    }
    limiter_ = std::make_shared<RateLimiter>(std::move(resources));
  }

  std::shared_ptr<RateLimiter> limiter() const { return limiter_; }

 private:
  Napi::Value Capacities(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const auto capacities = limiter_->Capacities();
    Napi::Array out = Napi::Array::New(env, capacities.size());
    for (size_t i = 0; i < capacities.size(); ++i) {
      Napi::Array pair = Napi::Array::New(env, 2);
      pair.Set(0u, capacities[i].first);
      pair.Set(1u, Napi::Number::New(env, double(capacities[i].second)));
      out.Set(uint32_t(i), pair);
    }
    return out;
  }

  // register({resources: [{name, global, count}], priority, device}) -> id; throws the refusal.
  Napi::Value Register(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "RateLimiter.register: expected {resources, priority, device}");
    Napi::Object o = info[0].As<Napi::Object>();
    const InstanceRateLimit limit = InstanceRateLimitFromJs(o, int(Clamped(o.Get("device"), 2147483647.0)));
    try {
      return Napi::Number::New(env, limiter_->Register(limit));
    } catch (const std::invalid_argument& e) {
      throw Napi::Error::New(env, e.what());
    }
  }

  Napi::Value Unregister(const Napi::CallbackInfo& info) {
    limiter_->Unregister(Id(info));
    return info.Env().Undefined();
  }

  // acquire(id) -> Promise<void>, settled on the JS thread once the instance holds its resources.
  Napi::Value Acquire(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const int id = Id(info);
    if (!tsfn_) {
      tsfn_ = Napi::ThreadSafeFunction::New(env, Napi::Function::New(env, [](const Napi::CallbackInfo&) {}), "gebe-rate-limiter", 0, 1);
      tsfn_.Unref(env);
    }
    // Waiting keeps the process alive, as a pending request does.
    if (waiting_++ == 0) tsfn_.Ref(env);
    auto* deferred = new Napi::Promise::Deferred(env);
    Napi::Promise promise = deferred->Promise();
    Napi::ThreadSafeFunction tsfn = tsfn_;
    limiter_->AcquireAsync(id, [tsfn, deferred, this]() mutable {
      tsfn.NonBlockingCall([deferred, this](Napi::Env env, Napi::Function) {
        if (--waiting_ == 0) tsfn_.Unref(env);
        deferred->Resolve(env.Undefined());
        delete deferred;
      });
    });
    return promise;
  }

  Napi::Value Release(const Napi::CallbackInfo& info) {
    limiter_->Release(Id(info));
    return info.Env().Undefined();
  }

  int Id(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "RateLimiter: expected an instance id from register()");
    return info[0].As<Napi::Number>().Int32Value();
  }

  std::shared_ptr<RateLimiter> limiter_;
  // Created at the first acquire and never released: a grant may come from any thread at any time
  // while the server runs; the environment's teardown finalizes it.
  Napi::ThreadSafeFunction tsfn_;
  int waiting_ = 0;  // JS thread only
};

void Init(Napi::Env env, Napi::Object exports) { exports.Set("RateLimiter", RateLimiterJs::Define(env)); }

}  // namespace

InstanceRateLimit InstanceRateLimitFromJs(const Napi::Object& entry, int device) {
  Napi::Env env = entry.Env();
  InstanceRateLimit limit;
  limit.priority = uint32_t(Clamped(entry.Get("priority"), 4294967295.0));
  limit.device = device;
  Napi::Value resources = entry.Get("resources");
  if (!resources.IsArray()) return limit;
  Napi::Array rs = resources.As<Napi::Array>();
  for (uint32_t i = 0; i < rs.Length(); ++i) {
    Napi::Value item = rs.Get(i);
    if (!item.IsObject() || !item.As<Napi::Object>().Get("name").IsString()) {
      throw Napi::TypeError::New(env, "Expected every rate-limiter resource to be {name: string, global, count}");
    }
    Napi::Object r = item.As<Napi::Object>();
    limit.resources.push_back({r.Get("name").As<Napi::String>().Utf8Value(), r.Get("global").ToBoolean().Value(), int64_t(Clamped(r.Get("count"), 9007199254740991.0))});
  }
  return limit;
}

std::shared_ptr<RateLimiter> RateLimiterOf(Napi::Value value) {
  if (g_constructor == nullptr || !value.IsObject() || !value.As<Napi::Object>().InstanceOf(g_constructor->Value())) return nullptr;
  return RateLimiterJs::Unwrap(value.As<Napi::Object>())->limiter();
}

GEBE_REGISTER_MODULE(rate_limiter, Init);

}  // namespace gebe
