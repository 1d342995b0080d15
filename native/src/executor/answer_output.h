// The bytes a finished request answers for one of its model's client outputs, for the native
// routes that write their answers themselves (HTTP, gRPC). Routes name outputs by their contract
// index (what Normalize resolved); a batch holds every engine output, a sequence model's state
// outputs included, so the contract maps one to the other here, once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "executor/normalize.h"
#include "scheduler/scheduled_request.h"

namespace gebe {

struct AnsweredOutput {
  const ContractTensor* meta = nullptr;
  const OutputSlice* slice = nullptr;
  const uint8_t* data = nullptr;  // slice->byte_size bytes
};

// False when the batch does not hold the output (a bug, answered as an internal error).
inline bool AnswerOutput(const RequestContract& contract, const ScheduledRequest& request, const BatchOutputs& batch,
                         size_t output, AnsweredOutput* out) {
  if (output >= contract.outputs.size() || output >= contract.engine_outputs.size()) return false;
  const size_t e = contract.engine_outputs[output];
  if (e >= request.outputs.size() || e >= batch.tensors.size()) return false;
  const OutputSlice& slice = request.outputs[e];
  const Tensor& tensor = batch.tensors[e];
  if (slice.offset + slice.byte_size > tensor.buffer.size()) return false;
  *out = {&contract.outputs[output], &slice, static_cast<const uint8_t*>(tensor.buffer.data()) + slice.offset};
  return true;
}

}  // namespace gebe
