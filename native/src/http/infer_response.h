// The JSON the JS codec sends for infer responses and errors, byte for byte
// (src/core/kserve/codec/http-infer-response.ts and json-tensor.ts, src/core/server/http/respond.ts),
// so a client cannot tell which route answered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace gebe {

// Appends `text` (UTF-8, possibly malformed) as JSON.stringify writes the string Node decodes from
// it: malformed sequences become U+FFFD as Node's UTF-8 decoder makes them, `"` and `\` and
// control characters are escaped the way JSON.stringify escapes them, everything else stays.
void AppendJsonString(const std::string& text, std::string* out);

// `v` as JS's Number.prototype.toString writes it (shortest round trip; exponent past 1e21 and
// below 1e-6; NaN, Infinity, -Infinity as Triton writes them; -0 as 0).
void AppendJsNumber(double v, std::string* out);

// The JSON `data` array of a tensor as json-tensor.ts's bytesToJsonText writes it. False for
// FP16/BF16 (no JSON form) and for bytes that do not fit the datatype.
bool AppendJsonData(DataType dtype, const uint8_t* data, size_t byte_size, std::string* out);

struct ResponseOutput {
  const std::string* name;
  DataType dtype;
  const std::vector<int64_t>* shape;
  size_t byte_size;
  const uint8_t* data = nullptr;  // for an output sent as JSON `data`
  bool binary = true;
};

// {"model_name":..,"model_version":..[,"id":..],"outputs":[{"name":..,"datatype":..,"shape":[..],
// "parameters":{"binary_data_size":N}} or {..,"data":[..]},..]}. False when a JSON output cannot
// be written (AppendJsonData).
bool EncodeInferResponseJson(const std::string& model_name, const std::string& version, const std::string* id,
                             const std::vector<ResponseOutput>& outputs, std::string* json);
std::string EncodeInferResponseHeader(const std::string& model_name, const std::string& version, const std::string* id,
                                      const std::vector<ResponseOutput>& outputs);

// {"error":"..."}
std::string EncodeErrorBody(const std::string& message);

}  // namespace gebe
