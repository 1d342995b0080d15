// A test-only JS function: runDirect(nativeModel, datas[], shapes[]) runs one batch on a loaded
// model's first engine session on the calling thread, bypassing queues and batching, and returns
// [data0, dims0, data1, dims1, ...] in the model's output order. What tests and benchmarks compare
// the executor's infer() with (test/helpers/run-direct.ts); the product has no such path.
#include <napi.h>

#include "executor/js_convert.h"
#include "executor/model_core.h"
#include "executor/native_model.h"
#include "module_registry.h"

namespace gebe {

namespace {

Napi::Value RunDirect(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<ModelCore> core = info.Length() == 3 ? NativeModel::CoreOf(info[0]) : nullptr;
  if (!core || !info[1].IsArray() || !info[2].IsArray()) {
    throw Napi::TypeError::New(env, "Expected (NativeModel, datas[], shapes[]) for runDirect");
  }
  Napi::Array datas = info[1].As<Napi::Array>();
  Napi::Array shapes = info[2].As<Napi::Array>();
  const auto& descs = core->inputs();
  if (datas.Length() != descs.size() || shapes.Length() != descs.size()) {
    throw Napi::TypeError::New(env, "Expected one tensor per model input, in the model's input order");
  }
  std::vector<TensorView> views(descs.size());
  for (uint32_t i = 0; i < descs.size(); ++i) {
    if (!datas.Get(i).IsTypedArray()) throw Napi::TypeError::New(env, "Expected a Uint8Array for input '" + descs[i].name + "'");
    Napi::TypedArray bytes = datas.Get(i).As<Napi::TypedArray>();
    views[i] = {descs[i].name, descs[i].dtype, IntsFromJs(shapes.Get(i), "runDirect shape"),
                static_cast<const uint8_t*>(bytes.ArrayBuffer().Data()) + bytes.ByteOffset(), bytes.ByteLength()};
    const size_t element = ElementSize(views[i].dtype);
    if (element > 0 && views[i].byte_size != size_t(ElementCount(views[i].shape)) * element) {
      throw Napi::TypeError::New(env, "byte size of input '" + views[i].name + "' does not match its shape");
    }
  }
  if (!core->AcquireUse()) throw Napi::Error::New(env, "the model is unloaded");
  std::vector<Tensor> outputs;
  try {
    core->scheduler()->WithSession(0, [&](Session& s) { s.run(views, outputs); });
  } catch (const std::exception& e) {
    core->ReleaseUse();
    throw Napi::Error::New(env, e.what());
  }
  core->ReleaseUse();
  return TensorsToJs(env, outputs);
}

void Init(Napi::Env env, Napi::Object exports) { exports.Set("runDirect", Napi::Function::New(env, RunDirect, "runDirect")); }

}  // namespace

GEBE_REGISTER_MODULE(run_direct_test, Init);

}  // namespace gebe
