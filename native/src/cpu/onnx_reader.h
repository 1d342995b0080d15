// Decodes an ONNX ModelProto (protobuf wire format) into the engine's graph IR.
#pragma once

#include <string>

#include "cpu/graph.h"

namespace gebe::cpu {

struct ReadOptions {
  size_t max_tensor_bytes = size_t(4) << 30;
};

// Reads `path`; external tensor data is resolved inside the model's directory only.
Model ReadOnnxFile(const std::string& path, const ReadOptions& options);
// Decodes an in-memory model; `base_dir` resolves external data ("" refuses external data).
Model ReadOnnxBytes(const uint8_t* data, size_t size, const std::string& what, const std::string& base_dir,
                    const ReadOptions& options);
// Decodes one TensorProto (the conformance data's input_*.pb / output_*.pb files).
ConstTensor ReadTensorProtoFile(const std::string& path, std::string* name);

}  // namespace gebe::cpu
