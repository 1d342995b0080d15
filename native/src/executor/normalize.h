// The one check of an infer request: Normalize takes what a front end decoded (decoded_request.h)
// and the model's contract, and returns either a request ready for the scheduler or a typed
// failure with Triton's wording. Every entry point calls it (the JS `infer` binding, the native
// HTTP route, the native gRPC route), so a bad request reads the same on every path, and no
// other code checks names, datatypes, shapes, sizes, batch sizes, scheduling or sequence parameters.
//
// No N-API and no scheduler threads: unit-tested on its own (native/test/normalize).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "executor/decoded_request.h"
#include "executor/request_failure.h"
#include "executor/sequence_parameters.h"
#include "scheduler/scheduled_request.h"

namespace gebe {

// One tensor as clients see it.
struct ContractTensor {
  std::string name;
  DataType dtype = DataType::kInvalid;
  std::vector<int64_t> shape;  // client dims, -1 = any extent (the batch dimension included)
  bool optional = false;       // inputs only: config `optional: true`, the client may leave it out
};

// One model version as its clients may call it. Built once per loaded model (ModelCore holds
// it); immutable afterwards, so front end threads read it without locks.
struct RequestContract {
  std::string model_name;
  std::string version;
  bool batched = false;           // max_batch_size > 0: shapes start with the batch dimension
  int64_t max_request_batch = 0;  // the largest batch one request may carry (max_batch_size, capped by gears)
  std::vector<ContractTensor> inputs;   // in the engine's input order
  std::vector<ContractTensor> outputs;  // in the engine's output order
  // Per entry of `outputs`: its index among the engine's outputs, which also hold a sequence
  // model's state outputs (answer_output.h reads a batch with it). Set by ModelCore::SetContract.
  std::vector<size_t> engine_outputs;
};

// A request that passed the check.
struct NormalizedRequest {
  // Inputs in the engine's order (optional inputs the client left out are empty tensors),
  // info.rows and output_mask set; the caller sets token / native_call and enqueues it.
  std::unique_ptr<ScheduledRequest> request;
  // The outputs to answer with, model output indexes in the client's order (all outputs in the
  // model's order when the client named none).
  std::vector<size_t> outputs;
  // Per entry of `outputs`: HTTP binary_data resolved against binary_data_output (false when
  // neither says), and the classification extension's k (0: the tensor itself).
  std::vector<bool> binary;
  std::vector<int64_t> class_count;
  uint32_t priority = 0;
  uint64_t timeout_us = 0;
  // The sequence batcher's id and START/END flags (sequence models use them, others ignore them).
  SequenceParameters sequence;
};

// Checks `decoded` against `contract`. On success fills `out` and returns a failure whose ok()
// is true; otherwise `out` is left unspecified. Input byte views are referenced, never copied,
// except a fixed-size tensor whose bytes are not aligned to its element size: that one is
// copied once into memory the request owns (engines read elements in place).
RequestFailure Normalize(const RequestContract& contract, const DecodedRequest& decoded, NormalizedRequest* out);

}  // namespace gebe
