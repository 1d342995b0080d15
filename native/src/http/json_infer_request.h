// Decodes the JSON of a KServe v2 HTTP infer request (a JSON-only body, or the JSON header before
// binary tensor data) with simdjson into the front-end-neutral DecodedRequest: binary inputs become
// views over the body, JSON `data` (flat or nested; numbers, booleans, BYTES strings) is written once
// into buffers the result owns. No checks against the model: Normalize does those.
//
// What it cannot take as the JS codec would take it, it declines (returns false), and the request
// goes to the JS handler, whose codec answers with its wording: JSON simdjson refuses (including the
// NaN/Infinity tokens the JS reader allows), a duplicate key, a field of the wrong type, an element
// that is not what the datatype needs, an element count that differs from the shape, FP16/BF16
// tensors in JSON, binary sizes that do not add up, a classification k that is not a positive
// safe integer.
// No N-API: unit-tested in native/test/fast_infer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "executor/decoded_request.h"

namespace gebe {

struct DecodedHttpInfer {
  DecodedRequest request;
  // The bytes of inputs that came as JSON `data` (the request's byte views point into them).
  std::vector<std::vector<uint8_t>> owned;
};

// `json` is the JSON text (`json_size` bytes); `binary` the `binary_size` bytes after it.
bool DecodeHttpInferJson(const uint8_t* json, size_t json_size, const uint8_t* binary, size_t binary_size, DecodedHttpInfer* out);

}  // namespace gebe
