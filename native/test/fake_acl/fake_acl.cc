// A fake AscendCL for tests: the same C functions gebe's ascend engine resolves with dlsym,
// implemented on the CPU for a trivial model, so the engine's real code paths (loader, device
// and context handling, datasets, H2D/D2H copies, gears, error reporting) run without an NPU.
//
// Model file (".om" in tests), text:
//   FAKEOM
//   input x FP32 4          name, type (FP32 only), non-batch dims
//   output y FP32 4
//   gears 1 2 4 8           dynamic batch (adds the ascend_mbatch_shape_data input); or
//   static_batch 2          a static model with batch 2
//   scale 2                 y = x * scale
// Strictness that proves the engine's behaviour: device memory is tracked and datasets must
// hold device memory; aclmdlExecuteAsync needs the calling thread's current context to be on
// the model's device; the gear comes from the ascend_mbatch_shape_data buffer written by
// aclmdlSetDynamicBatchSize and must be a compiled gear.
// Environment: FAKE_ACL_DEVICE_COUNT (default 2); FAKE_ACL_LOG (file: one line per notable
// call); FAKE_ACL_FAIL=<function> makes that function fail with code 507011.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ascend/acl_api.h"

namespace {

struct Context {
  int device;
};

struct Model {
  std::string input_name = "x", output_name = "y";
  std::vector<int64_t> row_dims;  // non-batch dims
  std::vector<uint64_t> gears;
  int64_t static_batch = 1;
  float scale = 2;
  int device = 0;
  int64_t last_batch = 0;
  size_t RowElements() const {
    size_t n = 1;
    for (int64_t d : row_dims) n *= static_cast<size_t>(d);
    return n;
  }
  int64_t MaxBatch() const { return gears.empty() ? static_batch : static_cast<int64_t>(gears.back()); }
  bool dynamic() const { return !gears.empty(); }
};

std::mutex g_mu;
std::map<uint32_t, Model> g_models;
std::map<void*, std::pair<size_t, int>> g_device_memory;  // ptr -> (size, device)
std::set<Context*> g_contexts;
uint32_t g_next_model = 1;
bool g_initialized = false;
thread_local Context* t_context = nullptr;
thread_local std::string t_error;

int DeviceCount() {
  const char* env = std::getenv("FAKE_ACL_DEVICE_COUNT");
  return env ? std::atoi(env) : 2;
}

void Log(const std::string& line) {
  const char* path = std::getenv("FAKE_ACL_LOG");
  if (!path) return;
  std::ofstream out(path, std::ios::app);
  out << line << "\n";
}

aclError Fail(aclError code, const std::string& message) {
  t_error = message;
  return code;
}

bool Injected(const char* function) {
  const char* env = std::getenv("FAKE_ACL_FAIL");
  return env && std::strcmp(env, function) == 0;
}

#define FAKE_INJECT(fn) \
  if (Injected(#fn)) return Fail(507011, "fake failure injected in " #fn)

}  // namespace

struct aclmdlDesc {
  uint32_t model_id = 0;
};
struct aclDataBuffer {
  void* data;
  size_t size;
};
struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;
};

extern "C" {

aclError aclInit(const char*) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_initialized) return 100002;
  g_initialized = true;
  Log("aclInit");
  return 0;
}

const char* aclGetRecentErrMsg() {
  static thread_local std::string last;
  if (t_error.empty()) return nullptr;
  last = t_error;
  t_error.clear();
  return last.c_str();
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  *count = static_cast<uint32_t>(DeviceCount());
  return 0;
}

aclError aclrtSetDevice(int32_t device) {
  FAKE_INJECT(aclrtSetDevice);
  if (device < 0 || device >= DeviceCount()) return Fail(107001, "invalid device id " + std::to_string(device));
  Log("aclrtSetDevice " + std::to_string(device));
  return 0;
}

aclError aclrtResetDevice(int32_t device) {
  Log("aclrtResetDevice " + std::to_string(device));
  return 0;
}

aclError aclrtCreateContext(aclrtContext* context, int32_t device) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto* c = new Context{device};
  g_contexts.insert(c);
  t_context = c;
  *context = c;
  return 0;
}

aclError aclrtDestroyContext(aclrtContext context) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto* c = static_cast<Context*>(context);
  if (!g_contexts.erase(c)) return Fail(107002, "unknown context");
  if (t_context == c) t_context = nullptr;
  delete c;
  return 0;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto* c = static_cast<Context*>(context);
  if (!g_contexts.count(c)) return Fail(107002, "unknown context");
  t_context = c;
  return 0;
}

aclError aclrtCreateStream(aclrtStream* stream) {
  if (!t_context) return Fail(107002, "no current context on this thread");
  *stream = new int(t_context->device);
  return 0;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  delete static_cast<int*>(stream);
  return 0;
}

aclError aclrtSynchronizeStream(aclrtStream) { return 0; }

aclError aclrtMalloc(void** ptr, size_t size, aclrtMemMallocPolicy) {
  FAKE_INJECT(aclrtMalloc);
  if (!t_context) return Fail(107002, "no current context on this thread");
  std::lock_guard<std::mutex> lock(g_mu);
  *ptr = std::malloc(size ? size : 1);
  g_device_memory[*ptr] = {size, t_context->device};
  return 0;
}

aclError aclrtFree(void* ptr) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_device_memory.erase(ptr)) return Fail(107000, "aclrtFree of memory that is not device memory");
  std::free(ptr);
  return 0;
}

aclError aclrtMemcpy(void* dst, size_t dest_max, const void* src, size_t count, aclrtMemcpyKind kind) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (count > dest_max) return Fail(107000, "memcpy count exceeds destMax");
  const bool dst_dev = g_device_memory.count(dst) > 0;
  const bool src_dev = g_device_memory.count(const_cast<void*>(src)) > 0;
  if ((kind == 1 && (!dst_dev || src_dev)) || (kind == 2 && (dst_dev || !src_dev))) {
    return Fail(107000, "memcpy kind does not match the pointers");
  }
  std::memcpy(dst, src, count);
  return 0;
}

aclError aclmdlLoadFromFile(const char* path, uint32_t* model_id) {
  FAKE_INJECT(aclmdlLoadFromFile);
  if (!t_context) return Fail(107002, "no current context on this thread");
  std::ifstream in(path);
  if (!in) return Fail(500002, std::string("failed to open model file ") + path);
  std::string line;
  std::getline(in, line);
  if (line != "FAKEOM") return Fail(145000, std::string("not a model file: ") + path);
  Model m;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "input" || key == "output") {
      std::string name, type;
      words >> name >> type;
      (key == "input" ? m.input_name : m.output_name) = name;
      if (key == "input") {
        int64_t d;
        while (words >> d) m.row_dims.push_back(d);
      }
    } else if (key == "gears") {
      uint64_t g;
      while (words >> g) m.gears.push_back(g);
    } else if (key == "static_batch") {
      words >> m.static_batch;
    } else if (key == "scale") {
      words >> m.scale;
    }
  }
  std::lock_guard<std::mutex> lock(g_mu);
  m.device = t_context->device;
  *model_id = g_next_model++;
  g_models[*model_id] = m;
  Log("aclmdlLoadFromFile " + std::to_string(*model_id) + " device " + std::to_string(m.device));
  return 0;
}

aclError aclmdlUnload(uint32_t model_id) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_models.erase(model_id)) return Fail(100011, "invalid model id");
  Log("aclmdlUnload " + std::to_string(model_id));
  return 0;
}

aclmdlDesc* aclmdlCreateDesc() { return new aclmdlDesc(); }
aclError aclmdlDestroyDesc(aclmdlDesc* desc) {
  delete desc;
  return 0;
}

aclError aclmdlGetDesc(aclmdlDesc* desc, uint32_t model_id) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_models.count(model_id)) return Fail(100011, "invalid model id");
  desc->model_id = model_id;
  return 0;
}

static Model& ModelOf(const aclmdlDesc* desc) { return g_models.at(desc->model_id); }

size_t aclmdlGetNumInputs(aclmdlDesc* desc) { return ModelOf(desc).dynamic() ? 2 : 1; }
size_t aclmdlGetNumOutputs(aclmdlDesc*) { return 1; }

size_t aclmdlGetInputSizeByIndex(aclmdlDesc* desc, size_t index) {
  const Model& m = ModelOf(desc);
  if (index == 1) return sizeof(uint64_t);  // the gear input
  return static_cast<size_t>(m.MaxBatch()) * m.RowElements() * sizeof(float);
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* desc, size_t) {
  const Model& m = ModelOf(desc);
  return static_cast<size_t>(m.MaxBatch()) * m.RowElements() * sizeof(float);
}

static void FillDims(const Model& m, int64_t batch, const std::string& name, aclmdlIODims* dims) {
  std::memset(dims, 0, sizeof *dims);
  std::snprintf(dims->name, sizeof dims->name, "%s", name.c_str());
  dims->dims[0] = batch;
  for (size_t i = 0; i < m.row_dims.size(); ++i) dims->dims[i + 1] = m.row_dims[i];
  dims->dimCount = m.row_dims.size() + 1;
}

aclError aclmdlGetInputDims(const aclmdlDesc* desc, size_t index, aclmdlIODims* dims) {
  const Model& m = ModelOf(desc);
  if (index == 1) {
    std::memset(dims, 0, sizeof *dims);
    dims->dimCount = 1;
    dims->dims[0] = 1;
    return 0;
  }
  FillDims(m, m.dynamic() ? -1 : m.static_batch, m.input_name, dims);
  return 0;
}

aclError aclmdlGetOutputDims(const aclmdlDesc* desc, size_t, aclmdlIODims* dims) {
  const Model& m = ModelOf(desc);
  FillDims(m, m.dynamic() ? -1 : m.static_batch, m.output_name, dims);
  return 0;
}

aclError aclmdlGetCurOutputDims(const aclmdlDesc* desc, size_t, aclmdlIODims* dims) {
  std::lock_guard<std::mutex> lock(g_mu);
  const Model& m = ModelOf(desc);
  FillDims(m, m.last_batch, m.output_name, dims);
  return 0;
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* desc, size_t index) {
  return index == 1 ? "ascend_mbatch_shape_data" : ModelOf(desc).input_name.c_str();
}
const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* desc, size_t) { return ModelOf(desc).output_name.c_str(); }
aclDataType aclmdlGetInputDataType(const aclmdlDesc* desc, size_t index) { return index == 1 ? 10 : 0; }
aclDataType aclmdlGetOutputDataType(const aclmdlDesc*, size_t) { return 0; }

aclError aclmdlGetInputIndexByName(const aclmdlDesc* desc, const char* name, size_t* index) {
  const Model& m = ModelOf(desc);
  if (m.input_name == name) *index = 0;
  else if (m.dynamic() && std::strcmp(name, "ascend_mbatch_shape_data") == 0) *index = 1;
  else return Fail(100000, std::string("no input named ") + name);
  return 0;
}

aclError aclmdlGetDynamicBatch(const aclmdlDesc* desc, aclmdlBatch* batch) {
  const Model& m = ModelOf(desc);
  batch->batchCount = m.gears.size();
  for (size_t i = 0; i < m.gears.size(); ++i) batch->batch[i] = m.gears[i];
  return 0;
}

aclmdlDataset* aclmdlCreateDataset() { return new aclmdlDataset(); }
aclError aclmdlDestroyDataset(const aclmdlDataset* ds) {
  delete ds;
  return 0;
}
aclError aclmdlAddDatasetBuffer(aclmdlDataset* ds, aclDataBuffer* buffer) {
  ds->buffers.push_back(buffer);
  return 0;
}
aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) { return new aclDataBuffer{data, size}; }
aclError aclDestroyDataBuffer(const aclDataBuffer* buffer) {
  delete buffer;
  return 0;
}

aclError aclmdlSetDynamicBatchSize(uint32_t model_id, aclmdlDataset* ds, size_t index, uint64_t batch) {
  FAKE_INJECT(aclmdlSetDynamicBatchSize);
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_models.find(model_id);
  if (it == g_models.end()) return Fail(100011, "invalid model id");
  const Model& m = it->second;
  if (!m.dynamic()) return Fail(100019, "the dynamic_batch_size parameter is not specified for model conversion");
  if (index != 1 || index >= ds->buffers.size()) return Fail(100000, "index is not the ascend_mbatch_shape_data input");
  bool gear = false;
  for (uint64_t g : m.gears) gear |= g == batch;
  if (!gear) return Fail(100000, "batch " + std::to_string(batch) + " is not one of the model's gears");
  std::memcpy(ds->buffers[1]->data, &batch, sizeof batch);  // ACL writes the gear into device memory
  Log("aclmdlSetDynamicBatchSize " + std::to_string(batch));
  return 0;
}

aclError aclmdlExecuteAsync(uint32_t model_id, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream) {
  FAKE_INJECT(aclmdlExecuteAsync);
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_models.find(model_id);
  if (it == g_models.end()) return Fail(100011, "invalid model id");
  Model& m = it->second;
  if (!t_context || t_context->device != m.device) {
    return Fail(107002, "the current context is not on the model's device " + std::to_string(m.device));
  }
  if (!stream || *static_cast<int*>(stream) != m.device) return Fail(107003, "stream of another device");
  const size_t expected_inputs = m.dynamic() ? 2 : 1;
  if (input->buffers.size() != expected_inputs || output->buffers.size() != 1) {
    return Fail(100000, "dataset has " + std::to_string(input->buffers.size()) + " input buffers, expected " +
                            std::to_string(expected_inputs));
  }
  for (const aclmdlDataset* ds : {input, static_cast<const aclmdlDataset*>(output)}) {
    for (const aclDataBuffer* b : ds->buffers) {
      auto mem = g_device_memory.find(b->data);
      if (mem == g_device_memory.end()) return Fail(107000, "dataset buffer is not device memory");
      if (mem->second.second != m.device) return Fail(107000, "dataset buffer is on another device");
    }
  }
  int64_t batch = m.static_batch;
  if (m.dynamic()) {
    uint64_t gear = 0;
    std::memcpy(&gear, input->buffers[1]->data, sizeof gear);
    if (gear == 0) return Fail(100000, "dynamic batch size was not set (aclmdlSetDynamicBatchSize)");
    batch = static_cast<int64_t>(gear);
  }
  const size_t n = static_cast<size_t>(batch) * m.RowElements();
  const auto* in = static_cast<const float*>(input->buffers[0]->data);
  auto* out = static_cast<float*>(output->buffers[0]->data);
  for (size_t i = 0; i < n; ++i) out[i] = in[i] * m.scale;
  m.last_batch = batch;
  Log("aclmdlExecuteAsync " + std::to_string(model_id) + " device " + std::to_string(m.device) + " batch " +
      std::to_string(batch));
  return 0;
}

}  // extern "C"

// Every function gebe resolves exists here with exactly the prototype gebe declares.
#include <type_traits>
#define FAKE_CHECK_PROTOTYPE(name, ret, params) \
  static_assert(std::is_same<decltype(&::name), ret(*) params>::value, "prototype of " #name " differs");
GEBE_ACL_FUNCTIONS(FAKE_CHECK_PROTOTYPE)
