// The binary infer route's front-end work: the URL, the request headers, and the read JSON header
// decoded into a DecodedRequest for Normalize (which checks it against the model, in the one
// wording every path shares). What the route does not decode itself (JSON tensor data, a body
// whose binary part does not add up) or cannot answer plainly is declined here (the functions
// return false), and the JS server answers it.
// No N-API and no scheduler: unit-tested on its own (native/test/fast_infer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "executor/decoded_request.h"
#include "executor/normalize.h"
#include "http/infer_header.h"

namespace gebe {

// /v2/models/{model}/infer or /v2/models/{model}/versions/{version}/infer. Refuses anything the
// JS router would treat specially (percent-escapes, a query, a trailing slash, empty or extra
// segments, a non-numeric version, bytes outside printable ASCII).
struct InferUrl {
  std::string_view model;
  std::string_view version;  // empty when the URL names none
  bool versioned = false;
};
bool MatchInferUrl(std::string_view url, InferUrl* out);

// The Inference-Header-Content-Length of a request, when the request may take the native route:
// exactly one such header, plain digits, no Content-Encoding header at all.
bool BinaryHeaderLength(const std::vector<std::pair<std::string, std::string>>& headers, size_t* length);

// Decodes a read header and the binary part after it (`binary_bytes` bytes at `binary`) into the
// request the core normalizes: byte views into the body, parameters as sent. False: decline,
// when the request is not all-binary (an input carries JSON `data`), has no inputs, or its
// binary_data_size values do not describe the binary part exactly; the JS codec words those.
bool DecodeBinaryInfer(const InferHeader& header, const uint8_t* binary, size_t binary_bytes, DecodedRequest* out);

// Whether the route writes the answer of a normalized request itself: every answered output
// travels binary and has a datatype the JS codec would send plainly. False: decline (the JS path
// answers with JSON `data`).
bool NativeRouteAnswers(const NormalizedRequest& request, const RequestContract& contract);

// Datatypes the native route answers: fixed-size ones the JS codec treats plainly (not BYTES,
// whose sizes live in the data, nor FP16/BF16, which the codec always sends binary).
bool NativeRouteDatatype(DataType dtype);

}  // namespace gebe
