// exports.LatencySummary: the latency summary of one family for a model JS runs (a Python model,
// an ensemble, the response cache's lookups), so that every model's summaries come from the same
// estimator as the native models':
//   new LatencySummary()
//   observe(ns: number, n = 1)      n observations of ns nanoseconds, now
//   read(quantiles: number[]) -> {count, sumUs, quantilesUs}
#include "executor/latency_summary_js.h"

#include <cmath>

#include "module_registry.h"
#include "scheduler/clock.h"

namespace gebe {

std::vector<double> QuantilesFromJs(const Napi::Value& value, const char* what) {
  if (!value.IsArray()) throw Napi::TypeError::New(value.Env(), std::string(what) + ": expected quantiles: number[]");
  Napi::Array a = value.As<Napi::Array>();
  std::vector<double> out;
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value v = a.Get(i);
    const double q = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(q >= 0 && q <= 1)) throw Napi::TypeError::New(value.Env(), std::string(what) + ": every quantile must be a number in [0, 1]");
    out.push_back(q);
  }
  return out;
}

Napi::Object SummaryReadingToJs(Napi::Env env, const LatencySummary::Reading& reading) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("count", Napi::Number::New(env, double(reading.count)));
  o.Set("sumUs", Napi::Number::New(env, reading.sum_us));
  Napi::Array values = Napi::Array::New(env, reading.quantiles_us.size());
  for (size_t i = 0; i < reading.quantiles_us.size(); ++i) values.Set(uint32_t(i), Napi::Number::New(env, reading.quantiles_us[i]));
  o.Set("quantilesUs", values);
  return o;
}

namespace {

class LatencySummaryJs : public Napi::ObjectWrap<LatencySummaryJs> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "LatencySummary",
                       {InstanceMethod("observe", &LatencySummaryJs::Observe), InstanceMethod("read", &LatencySummaryJs::Read)});
  }
  explicit LatencySummaryJs(const Napi::CallbackInfo& info) : Napi::ObjectWrap<LatencySummaryJs>(info) {}

 private:
  Napi::Value Observe(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const double ns = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : -1;
    const double n = info.Length() > 1 && info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : 1;
    if (!(ns >= 0 && std::isfinite(ns)) || !(n >= 0 && std::isfinite(n))) {
      throw Napi::TypeError::New(env, "LatencySummary.observe: expected (ns >= 0, n >= 0)");
    }
    summary_.Observe(uint64_t(ns), SteadyNowNs(), uint64_t(n));
    return env.Undefined();
  }
  Napi::Value Read(const Napi::CallbackInfo& info) {
    return SummaryReadingToJs(info.Env(), summary_.Read(QuantilesFromJs(info[0], "LatencySummary.read"), SteadyNowNs()));
  }

  LatencySummary summary_;
};

void Init(Napi::Env env, Napi::Object exports) { exports.Set("LatencySummary", LatencySummaryJs::Define(env)); }

}  // namespace

GEBE_REGISTER_MODULE(latency_summary, Init);

}  // namespace gebe
