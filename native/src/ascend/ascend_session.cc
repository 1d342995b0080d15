#include "ascend/ascend_session.h"

#include <algorithm>
#include <cstring>

#include "ascend/acl_library.h"

namespace gebe {

namespace {

DataType FromAcl(aclDataType t) {
  switch (t) {
    case 0: return DataType::kFloat32;
    case 1: return DataType::kFloat16;
    case 2: return DataType::kInt8;
    case 3: return DataType::kInt32;
    case 4: return DataType::kUInt8;
    case 6: return DataType::kInt16;
    case 7: return DataType::kUInt16;
    case 8: return DataType::kUInt32;
    case 9: return DataType::kInt64;
    case 10: return DataType::kUInt64;
    case 11: return DataType::kFloat64;
    case 12: return DataType::kBool;
    case 13: return DataType::kString;
    case 27: return DataType::kBFloat16;
    default: return DataType::kInvalid;
  }
}

std::vector<int64_t> Dims(const aclmdlIODims& d) {
  size_t n = std::min<size_t>(d.dimCount, GEBE_ACL_MAX_DIM_CNT);
  return std::vector<int64_t>(d.dims, d.dims + n);
}

std::string JoinInts(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out;
}

}  // namespace

AscendSession::AscendSession(const std::string& path, const SessionOptions& options) : api_(acl::Library()), path_(path) {
  try {
    Load(path, options);
  } catch (...) {
    Release();
    throw;
  }
}

AscendSession::~AscendSession() { Release(); }

void AscendSession::Load(const std::string& path, const SessionOptions& options) {
  device_ = options.device_id;
  uint32_t count = 0;
  acl::Check(api_.aclrtGetDeviceCount(&count), "aclrtGetDeviceCount");
  if (device_ < 0 || static_cast<uint32_t>(device_) >= count) {
    throw EngineError("device_ids names Ascend device " + std::to_string(device_) + ", but this host has " +
                      std::to_string(count) + " (devices 0.." + std::to_string(int(count) - 1) +
                      "); fix the `device_ids` parameter in config.pbtxt");
  }
  acl::Check(api_.aclrtSetDevice(device_), "aclrtSetDevice", "device " + std::to_string(device_));
  device_set_ = true;
  acl::Check(api_.aclrtCreateContext(&context_, device_), "aclrtCreateContext", "device " + std::to_string(device_));
  acl::Check(api_.aclrtSetCurrentContext(context_), "aclrtSetCurrentContext");
  acl::Check(api_.aclrtCreateStream(&stream_), "aclrtCreateStream");
  acl::Check(api_.aclmdlLoadFromFile(path.c_str(), &model_id_), "aclmdlLoadFromFile", path);
  model_loaded_ = true;
  desc_ = api_.aclmdlCreateDesc();
  if (desc_ == nullptr) throw EngineError("aclmdlCreateDesc returned null (out of host memory?)");
  acl::Check(api_.aclmdlGetDesc(desc_, model_id_), "aclmdlGetDesc", path);
  DescribeInputs();
  DescribeOutputs();
  input_dataset_ = BuildDataset(input_buffers_, "input");
  output_dataset_ = BuildDataset(output_buffers_, "output");
}

void AscendSession::DescribeInputs() {
  const size_t n = api_.aclmdlGetNumInputs(desc_);
  input_buffers_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const char* name = api_.aclmdlGetInputNameByIndex(desc_, i);
    DeviceBuffer& buffer = input_buffers_[i];
    buffer.capacity = api_.aclmdlGetInputSizeByIndex(desc_, i);
    acl::Check(api_.aclrtMalloc(&buffer.data, std::max<size_t>(buffer.capacity, 1), acl::kMallocHugeFirst), "aclrtMalloc",
               "input " + std::to_string(i) + ", " + std::to_string(buffer.capacity) + " bytes");
    if (name != nullptr && std::strcmp(name, acl::kDynamicBatchInput) == 0) {
      gear_input_index_ = i;
      continue;
    }
    aclmdlIODims dims;
    acl::Check(api_.aclmdlGetInputDims(desc_, i, &dims), "aclmdlGetInputDims");
    TensorDesc desc;
    desc.name = name ? name : "input" + std::to_string(i);
    desc.dtype = FromAcl(api_.aclmdlGetInputDataType(desc_, i));
    desc.dims = Dims(dims);
    desc.dim_names.assign(desc.dims.size(), "");
    inputs_.push_back(std::move(desc));
    input_model_index_.push_back(i);
  }
  aclmdlBatch batch;
  std::memset(&batch, 0, sizeof batch);
  acl::Check(api_.aclmdlGetDynamicBatch(desc_, &batch), "aclmdlGetDynamicBatch");
  for (size_t i = 0; i < std::min<size_t>(batch.batchCount, GEBE_ACL_MAX_BATCH_NUM); ++i) gears_.push_back(int64_t(batch.batch[i]));
  std::sort(gears_.begin(), gears_.end());
  if (!gears_.empty() && gear_input_index_ == SIZE_MAX) {
    throw EngineError(path_ + " has dynamic batch gears but no '" + std::string(acl::kDynamicBatchInput) + "' input");
  }
  if (!gears_.empty()) {
    for (auto& in : inputs_) {
      if (!in.dims.empty()) {
        in.dims[0] = -1;  // the batch dimension runs at any gear
        in.dim_names[0] = "batch";
      }
    }
  }
}

void AscendSession::DescribeOutputs() {
  const size_t n = api_.aclmdlGetNumOutputs(desc_);
  output_buffers_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    DeviceBuffer& buffer = output_buffers_[i];
    buffer.capacity = api_.aclmdlGetOutputSizeByIndex(desc_, i);
    acl::Check(api_.aclrtMalloc(&buffer.data, std::max<size_t>(buffer.capacity, 1), acl::kMallocHugeFirst), "aclrtMalloc",
               "output " + std::to_string(i) + ", " + std::to_string(buffer.capacity) + " bytes");
    aclmdlIODims dims;
    acl::Check(api_.aclmdlGetOutputDims(desc_, i, &dims), "aclmdlGetOutputDims");
    const char* name = api_.aclmdlGetOutputNameByIndex(desc_, i);
    TensorDesc desc;
    desc.name = name ? name : "output" + std::to_string(i);
    desc.dtype = FromAcl(api_.aclmdlGetOutputDataType(desc_, i));
    desc.dims = Dims(dims);
    desc.dim_names.assign(desc.dims.size(), "");
    if (!gears_.empty() && !desc.dims.empty()) {
      desc.dims[0] = -1;
      desc.dim_names[0] = "batch";
    }
    outputs_.push_back(std::move(desc));
  }
}

aclmdlDataset* AscendSession::BuildDataset(const std::vector<DeviceBuffer>& buffers, const char* what) {
  aclmdlDataset* dataset = api_.aclmdlCreateDataset();
  if (dataset == nullptr) throw EngineError(std::string("aclmdlCreateDataset returned null for the ") + what + "s");
  for (const DeviceBuffer& b : buffers) {
    aclDataBuffer* db = api_.aclCreateDataBuffer(b.data, b.capacity);
    if (db == nullptr) {
      api_.aclmdlDestroyDataset(dataset);
      throw EngineError(std::string("aclCreateDataBuffer returned null for an ") + what);
    }
    data_buffers_.push_back(db);
    aclError ret = api_.aclmdlAddDatasetBuffer(dataset, db);
    if (ret != acl::kSuccess) {
      api_.aclmdlDestroyDataset(dataset);
      acl::Check(ret, "aclmdlAddDatasetBuffer");
    }
  }
  return dataset;
}

void AscendSession::CheckBatch(int64_t batch) const {
  if (gears_.empty()) return;
  for (int64_t g : gears_) {
    if (g == batch) return;
  }
  throw EngineError("batch size " + std::to_string(batch) + " is not a gear of " + path_ + " (gears " + JoinInts(gears_) +
                    "); the scheduler pads batches to gears, so send batch sizes up to " + std::to_string(gears_.back()) +
                    " or convert the model with more gears (atc --dynamic_batch_size)");
}

CompileReport AscendSession::compile(const std::vector<NamedShape>& shapes) {
  // .om models are compiled offline by ATC; "compiling" a shape checks that the model can run it.
  for (const NamedShape& s : shapes) {
    if (!s.shape.empty()) CheckBatch(s.shape[0]);
  }
  CompileReport report;
  report.cached = true;
  return report;
}

void AscendSession::run(const std::vector<TensorView>& inputs, std::vector<Tensor>& outputs, const RunStop*) {
  acl::Check(api_.aclrtSetCurrentContext(context_), "aclrtSetCurrentContext");
  int64_t batch = 0;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const TensorDesc& desc = inputs_[i];
    const TensorView* view = nullptr;
    for (const auto& v : inputs) {
      if (v.name == desc.name) view = &v;
    }
    if (view == nullptr) throw EngineError("input '" + desc.name + "' is missing");
    if (view->dtype != desc.dtype) {
      throw EngineError("input '" + desc.name + "' is " + DataTypeName(view->dtype) + " but the model expects " +
                        DataTypeName(desc.dtype));
    }
    if (!gears_.empty() && !view->shape.empty()) batch = view->shape[0];
    const DeviceBuffer& buffer = input_buffers_[input_model_index_[i]];
    if (view->byte_size > buffer.capacity || (gears_.empty() && view->byte_size != buffer.capacity)) {
      throw EngineError("input '" + desc.name + "' has " + std::to_string(view->byte_size) + " bytes but the model takes " +
                        (gears_.empty() ? "exactly " : "at most ") + std::to_string(buffer.capacity));
    }
    acl::Check(api_.aclrtMemcpy(buffer.data, buffer.capacity, view->data, view->byte_size, acl::kHostToDevice), "aclrtMemcpy",
               "host to device, input '" + desc.name + "'");
  }
  if (!gears_.empty()) {
    CheckBatch(batch);
    acl::Check(api_.aclmdlSetDynamicBatchSize(model_id_, input_dataset_, gear_input_index_, static_cast<uint64_t>(batch)),
               "aclmdlSetDynamicBatchSize", "batch " + std::to_string(batch));
  }
  acl::Check(api_.aclmdlExecuteAsync(model_id_, input_dataset_, output_dataset_, stream_), "aclmdlExecuteAsync", path_);
  acl::Check(api_.aclrtSynchronizeStream(stream_), "aclrtSynchronizeStream", path_);
  outputs.clear();
  for (size_t o = 0; o < outputs_.size(); ++o) {
    aclmdlIODims dims;
    if (gears_.empty()) {
      acl::Check(api_.aclmdlGetOutputDims(desc_, o, &dims), "aclmdlGetOutputDims");
    } else {
      acl::Check(api_.aclmdlGetCurOutputDims(desc_, o, &dims), "aclmdlGetCurOutputDims");
    }
    Tensor t;
    t.name = outputs_[o].name;
    t.dtype = outputs_[o].dtype;
    t.shape = Dims(dims);
    const size_t element = ElementSize(t.dtype);
    size_t bytes = element == 0 ? output_buffers_[o].capacity : static_cast<size_t>(ElementCount(t.shape)) * element;
    if (bytes > output_buffers_[o].capacity) {
      throw EngineError("output '" + t.name + "' of shape [" + JoinInts(t.shape) + "] exceeds its " +
                        std::to_string(output_buffers_[o].capacity) + "-byte device buffer");
    }
    t.buffer = AlignedBuffer(bytes);
    if (bytes > 0) {
      acl::Check(api_.aclrtMemcpy(t.buffer.data(), bytes, output_buffers_[o].data, bytes, acl::kDeviceToHost), "aclrtMemcpy",
                 "device to host, output '" + t.name + "'");
    }
    outputs.push_back(std::move(t));
  }
}

void AscendSession::Release() noexcept {
  // Teardown mirrors load in reverse; errors here cannot be reported to anyone, so they are ignored.
  if (context_) api_.aclrtSetCurrentContext(context_);
  // A dataset does not own its data buffers: both are destroyed explicitly.
  for (aclmdlDataset** ds : {&input_dataset_, &output_dataset_}) {
    if (*ds) api_.aclmdlDestroyDataset(*ds);
    *ds = nullptr;
  }
  for (aclDataBuffer* db : data_buffers_) api_.aclDestroyDataBuffer(db);
  data_buffers_.clear();
  for (auto* buffers : {&input_buffers_, &output_buffers_}) {
    for (auto& b : *buffers) {
      if (b.data) api_.aclrtFree(b.data);
      b.data = nullptr;
    }
  }
  if (desc_) api_.aclmdlDestroyDesc(desc_);
  desc_ = nullptr;
  if (model_loaded_) api_.aclmdlUnload(model_id_);
  model_loaded_ = false;
  if (stream_) api_.aclrtDestroyStream(stream_);
  stream_ = nullptr;
  if (context_) api_.aclrtDestroyContext(context_);
  context_ = nullptr;
  // aclrtResetDevice is reference-counted per aclrtSetDevice, so each session resets its own.
  if (device_set_) api_.aclrtResetDevice(device_);
  device_set_ = false;
}

}  // namespace gebe
