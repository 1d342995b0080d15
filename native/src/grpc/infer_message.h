// inference.ModelInferRequest decoded from the protobuf wire format into views over the received
// message (grpc_service.proto), and inference.ModelInferResponse / ModelStreamInferResponse
// encoded with raw_output_contents, as Triton answers. No N-API, no scheduler: unit-tested and
// fuzzed on their own (native/test/grpc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "grpc/grpc_wire.h"

namespace gebe {

// inference.InferParameter: one of its oneof members (kNone when none is set).
struct GrpcParameter {
  enum class Kind { kNone, kBool, kInt64, kString, kDouble, kUInt64 } kind = Kind::kNone;
  bool bool_value = false;
  int64_t int64_value = 0;
  uint64_t uint64_value = 0;
  double double_value = 0;
  ByteView string_value;
};

struct GrpcNamedParameter {
  ByteView key;
  GrpcParameter value;
};

struct GrpcInferInput {
  ByteView name;
  ByteView datatype;
  std::vector<int64_t> shape;
  std::vector<GrpcNamedParameter> parameters;
  bool has_contents = false;
  ByteView contents;  // the InferTensorContents message, read by TypedContentsToBytes
};

struct GrpcRequestedOutput {
  ByteView name;
  std::vector<GrpcNamedParameter> parameters;
};

struct GrpcInferRequest {
  ByteView model_name;
  ByteView model_version;
  ByteView id;
  std::vector<GrpcNamedParameter> parameters;
  std::vector<GrpcInferInput> inputs;
  std::vector<GrpcRequestedOutput> outputs;
  std::vector<ByteView> raw_input_contents;
};

// Decodes a ModelInferRequest. False when the bytes are not a valid message of that type (the
// caller hands such a request to JS, whose protobufjs decoder words the refusal). Unknown fields
// are skipped, as protobuf readers do; every vector grows with bytes received.
bool DecodeModelInferRequest(const uint8_t* data, size_t size, GrpcInferRequest* out);

// The typed contents of an input of `dtype` as the tensor's bytes (little-endian, as raw). Only
// the contents field that belongs to `dtype` (as grpc-infer.ts maps them) may be set, with
// exactly `count` elements, each within the datatype's range; otherwise false (the request goes
// to JS, which words the refusal). BYTES, FP16 and BF16 are never converted here.
bool TypedContentsToBytes(ByteView contents, DataType dtype, uint64_t count, std::vector<uint8_t>* out);

// One output of a response.
struct GrpcResponseOutput {
  const std::string* name;
  const char* datatype;
  const std::vector<int64_t>* shape;
  const uint8_t* data;
  size_t byte_size;
};

// A ModelInferResponse, framed for gRPC (5-byte prefix included). With `stream`, it is wrapped in
// a ModelStreamInferResponse (error_message empty) for ModelStreamInfer, with the parameter
// `triton_final_response: true`, as Triton marks the last response of a request.
std::string EncodeModelInferResponse(std::string_view model_name, std::string_view model_version, std::string_view id,
                                     const std::vector<GrpcResponseOutput>& outputs, bool stream);

// A framed ModelStreamInferResponse carrying an error in band, with the request's identity and
// `triton_final_response: true`.
std::string EncodeStreamError(std::string_view message, std::string_view model_name, std::string_view model_version,
                              std::string_view id);

}  // namespace gebe
