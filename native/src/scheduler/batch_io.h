// Batch gather and output slicing in native memory. Gather copies the requests' rows into one
// contiguous tensor per input (plus zeroed gear padding rows); a lone request that needs no
// padding is passed through without a copy, except an input whose bytes start at an address its
// element size does not divide (a protobuf field, a binary part after a JSON header): engines read
// elements in place, so that one is copied into the instance's reused buffer. Outputs are never
// copied: each request gets the byte range of its rows inside the batch's output tensors.
// A model with ragged inputs, batch inputs or batch outputs (batch_layout.h) gets its ragged
// inputs as one dimension, its batch inputs computed from the batch, and its batch outputs split
// by each request's source input shape.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "scheduler/batch_layout.h"
#include "scheduler/scheduled_request.h"

namespace gebe {

// Reused gather buffers of one instance (grown, never shrunk).
class GatherArena {
 public:
  void* Buffer(size_t index, size_t bytes);

 private:
  std::vector<AlignedBuffer> buffers_;
};

// Builds the engine inputs for `requests` (all with identical non-batch shapes, ragged inputs
// aside) padded to `padded_rows`. batched=false: the model has no batch dimension (exactly one
// request). Sets each request's row_offset.
std::vector<TensorView> GatherInputs(std::vector<std::unique_ptr<ScheduledRequest>>& requests, int64_t padded_rows,
                                     bool batched, const BatchLayout& layout, GatherArena& arena);

// Fills each request's output slices from the batch outputs; throws EngineError when an output
// does not have the batch's rows as its first dimension, or a batch output is too short for the
// shapes its requests' source inputs give it.
void SliceOutputs(const std::vector<Tensor>& outputs, std::vector<std::unique_ptr<ScheduledRequest>>& requests,
                  int64_t padded_rows, bool batched, const BatchLayout& layout);

}  // namespace gebe
