// One .om model loaded through AscendCL on one device: the `ascend` engine's Session. Each
// instance gets its own context, stream, model copy and device buffers, so instances run
// concurrently. Dynamic-batch models (converted with --dynamic_batch_size) expose their gears;
// the scheduler pads every batch to one, and run() sets it with aclmdlSetDynamicBatchSize.
#pragma once

#include <string>
#include <vector>

#include "ascend/acl_api.h"
#include "engine/engine.h"

namespace gebe {

class AscendSession : public Session {
 public:
  AscendSession(const std::string& path, const SessionOptions& options);
  ~AscendSession() override;
  AscendSession(const AscendSession&) = delete;
  AscendSession& operator=(const AscendSession&) = delete;

  const std::vector<TensorDesc>& inputs() const override { return inputs_; }
  const std::vector<TensorDesc>& outputs() const override { return outputs_; }
  std::vector<int64_t> gears() const override { return gears_; }
  CompileReport compile(const std::vector<NamedShape>& shapes) override;
  void run(const std::vector<TensorView>& inputs, std::vector<Tensor>& outputs, const RunStop* stop = nullptr) override;
  const char* engine_name() const override { return "ascend"; }

 private:
  struct DeviceBuffer {
    void* data = nullptr;
    size_t capacity = 0;
  };
  void Load(const std::string& path, const SessionOptions& options);
  void DescribeInputs();
  void DescribeOutputs();
  aclmdlDataset* BuildDataset(const std::vector<DeviceBuffer>& buffers, const char* what);
  void CheckBatch(int64_t batch) const;
  void Release() noexcept;

  const acl::Api& api_;
  std::string path_;
  int device_ = 0;
  aclrtContext context_ = nullptr;
  aclrtStream stream_ = nullptr;
  uint32_t model_id_ = 0;
  bool model_loaded_ = false;
  bool device_set_ = false;
  aclmdlDesc* desc_ = nullptr;
  aclmdlDataset* input_dataset_ = nullptr;
  aclmdlDataset* output_dataset_ = nullptr;
  std::vector<DeviceBuffer> input_buffers_;   // by model input index (includes the gear input)
  std::vector<DeviceBuffer> output_buffers_;
  std::vector<aclDataBuffer*> data_buffers_;  // owned; referenced by the datasets
  std::vector<size_t> input_model_index_;     // inputs_[i] -> model input index
  size_t gear_input_index_ = SIZE_MAX;
  std::vector<TensorDesc> inputs_, outputs_;
  std::vector<int64_t> gears_;
};

}  // namespace gebe
