// Builds ModelInferRequest bytes for the tests with the same writer primitives the encoder uses
// (grpc_wire.h), field by field as protobuf encoders (protobufjs, grpcio) write them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "grpc/grpc_wire.h"

namespace grpc_test {

using gebe::ProtoWire;

inline std::string Field(uint32_t field, const std::string& bytes) {
  std::string out;
  gebe::PutBytesField(&out, field, bytes);
  return out;
}

inline std::string VarintField(uint32_t field, uint64_t v) {
  std::string out;
  gebe::PutKey(&out, field, ProtoWire::kVarint);
  gebe::PutVarint(&out, v);
  return out;
}

inline std::string PackedVarints(const std::vector<int64_t>& values) {
  std::string out;
  for (int64_t v : values) gebe::PutVarint(&out, uint64_t(v));
  return out;
}

// map<string, InferParameter> entry with an int64_param.
inline std::string Int64Parameter(uint32_t field, const std::string& key, int64_t value) {
  return Field(field, Field(1, key) + Field(2, VarintField(2, uint64_t(value))));
}

inline std::string Input(const std::string& name, const std::string& datatype, const std::vector<int64_t>& shape,
                         const std::string& contents = "") {
  std::string out = Field(1, name) + Field(2, datatype) + Field(3, PackedVarints(shape));
  if (!contents.empty()) out += Field(5, contents);
  return out;
}

inline std::string Floats(const std::vector<float>& v) {
  std::string bytes(v.size() * 4, '\0');
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

// A request for a model with FP32 inputs INPUT0 and INPUT1 of shape [1, 4], raw contents.
inline std::string SimpleRequest() {
  std::string out = Field(1, "simple") + Field(2, "1") + Field(3, "req-7") + Int64Parameter(4, "priority", 2);
  out += Field(5, Input("INPUT0", "FP32", {1, 4}));
  out += Field(5, Input("INPUT1", "FP32", {1, 4}));
  out += Field(6, Field(1, "OUTPUT0"));
  out += Field(7, Floats({1, 2, 3, 4}));
  out += Field(7, Floats({5, 6, 7, 8}));
  return out;
}

}  // namespace grpc_test
