// Triton's sequence batcher request parameters, read once for every path: `sequence_id` (an
// unsigned 64-bit integer or a string), `sequence_start` and `sequence_end` (booleans), as the
// HTTP, gRPC and in-process front ends decoded them (DecodedRequest). Normalize calls it for every
// model, so a bad value reads the same on every path; models without sequence_batching then
// ignore what was sent, as Triton does.
//
// No N-API: unit-tested with Normalize (native/test/normalize).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "executor/decoded_request.h"
#include "executor/request_failure.h"
#include "scheduler/sequence_id.h"

namespace gebe {

// A longer string id is refused: ids are map keys and travel in CORRID tensors, so the bound is
// on their UTF-8 bytes.
constexpr size_t kMaxSequenceIdBytes = 1024;

struct SequenceParameters {
  SequenceId id;        // kNone when not sent (the sequence batcher refuses that)
  uint8_t flags = 0;    // kSequenceStart | kSequenceEnd
};

RequestFailure ReadSequenceParameters(const DecodedRequest& decoded, SequenceParameters* out);

// What a sequence model asks of every request before its sequence is looked up: a batch of one row
// (when the model batches) and an id. The native sequence batcher and the JS-run models (Python
// backend, through the request check) both ask it here.
RequestFailure CheckSequenceRequest(const std::string& model, bool batched, int64_t rows, const SequenceId& id);

}  // namespace gebe
