#include "executor/rate_limiter_js.h"

#include <cmath>

#include "module_registry.h"

namespace gebe {

namespace {

Napi::FunctionReference* g_constructor = nullptr;

class RateLimiterJs : public Napi::ObjectWrap<RateLimiterJs> {
 public:
  static Napi::Function Define(Napi::Env env) {
    Napi::Function ctor = DefineClass(env, "RateLimiter", {InstanceMethod("capacities", &RateLimiterJs::Capacities)});
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

  std::shared_ptr<RateLimiter> limiter_;
};

void Init(Napi::Env env, Napi::Object exports) { exports.Set("RateLimiter", RateLimiterJs::Define(env)); }

}  // namespace

std::shared_ptr<RateLimiter> RateLimiterOf(Napi::Value value) {
  if (g_constructor == nullptr || !value.IsObject() || !value.As<Napi::Object>().InstanceOf(g_constructor->Value())) return nullptr;
  return RateLimiterJs::Unwrap(value.As<Napi::Object>())->limiter();
}

GEBE_REGISTER_MODULE(rate_limiter, Init);

}  // namespace gebe
