// What the native infer route checks before it takes a request: the URL, the request headers,
// and the decoded JSON header against the model, exactly as the JS path would (the executor's
// validate-request.ts, the service's checkNames, the HTTP codec). Whatever the JS path would
// refuse, or would answer differently from a plain all-binary response, is declined here (the
// functions return false) so that the JS server answers it with its own wording.
// No N-API and no scheduler: unit-tested on its own (native/test/http).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.h"
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

// One tensor as clients see it.
struct ContractTensor {
  std::string name;
  DataType dtype = DataType::kInvalid;
  std::vector<int64_t> shape;  // inputs: client dims, -1 = any (the batch dimension included)
};

// One model version as the infer route serves it.
struct InferContract {
  std::string model_name;  // as responses name it
  std::string version;
  bool batched = false;            // max_batch_size > 0: shapes start with the batch dimension
  int64_t max_request_batch = 0;   // the largest batch one request may carry
  std::vector<ContractTensor> inputs;   // in the engine's order
  std::vector<ContractTensor> outputs;  // in the engine's order
};

// Datatypes the native route serves: fixed-size ones the JS codec treats plainly (not BYTES,
// whose sizes live in the data, nor FP16/BF16, which the codec always sends binary).
bool NativeRouteDatatype(DataType dtype);

// A checked request, ready to build a ScheduledRequest from.
struct InferPlan {
  struct Input {
    size_t model_index = 0;   // position in the model's inputs
    size_t body_offset = 0;   // of its bytes, from the start of the binary part
    size_t byte_size = 0;
    std::vector<int64_t> shape;
  };
  std::vector<Input> inputs;        // in the model's input order
  std::vector<size_t> outputs;      // model output indexes, in response order
  uint64_t output_mask = 0;         // as the JS path computes it
  int64_t rows = 1;
  uint32_t priority = 0;
  uint64_t timeout_us = 0;
};

// Checks `header` (with `binary_bytes` bytes after the JSON) against `contract`. False: decline.
bool PlanInfer(const InferHeader& header, const InferContract& contract, size_t binary_bytes, InferPlan* plan);

}  // namespace gebe
