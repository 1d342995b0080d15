// The JSON the JS server sends for binary infer responses and errors, byte for byte
// (src/core/server/codec/http-infer-response.ts, src/core/server/http/respond.ts), so a client
// cannot tell which route answered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gebe {

// Appends `text` (UTF-8, possibly malformed) as JSON.stringify writes the string Node decodes from
// it: malformed sequences become U+FFFD as Node's UTF-8 decoder makes them, `"` and `\` and
// control characters are escaped the way JSON.stringify escapes them, everything else stays.
void AppendJsonString(const std::string& text, std::string* out);

struct ResponseOutput {
  const std::string* name;
  const char* datatype;  // KServe name
  const std::vector<int64_t>* shape;
  size_t byte_size;
};

// {"model_name":..,"model_version":..[,"id":..],"outputs":[{"name":..,"datatype":..,"shape":[..],
// "parameters":{"binary_data_size":N}},..]}
std::string EncodeInferResponseHeader(const std::string& model_name, const std::string& version, const std::string* id,
                                      const std::vector<ResponseOutput>& outputs);

// {"error":"..."}
std::string EncodeErrorBody(const std::string& message);

}  // namespace gebe
