// JS surface of the cpu engine that the product uses: cpuInspect(path) (model introspection for
// `validate` / `inspect`; the scheduler drives sessions natively). The session handle for tests
// and benchmarks (CpuSession, cpuSupportedOperators, cpuGemmIsa, cpuSupportedIsas) is a test
// binding: native/test/bindings/cpu_session_binding.cc.
#include <napi.h>

#include "cpu/model_info_js.h"
#include "cpu/program.h"
#include "module_registry.h"

namespace gebe::cpu {

namespace {

Napi::Value Inspect(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "cpuInspect(path)");
  try {
    // The loader's own check (CheckModel), so validate reports what serve would refuse, in its words.
    CheckedModel checked = CheckModel(info[0].As<Napi::String>().Utf8Value(), LoadOptions{}, true);
    return ModelInfoToJs(env, checked.info, checked.inputs, checked.outputs);
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

void Init(Napi::Env env, Napi::Object exports) { exports.Set("cpuInspect", Napi::Function::New(env, Inspect)); }

}  // namespace

}  // namespace gebe::cpu

GEBE_REGISTER_MODULE(cpu, gebe::cpu::Init);
