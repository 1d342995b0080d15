// How a batch's tensors are laid out beyond stacking the requests' rows: Triton's ragged
// batching. An input with allow_ragged_batch reaches the model as one dimension, the requests'
// elements one after another (so requests of different shapes batch together); a batch input is
// a model input the scheduler computes from the batch it formed (each request's element count,
// their running sums, the largest count as a shape, each item's shape); a batch output is split
// among the requests by the shape each one gave its source input, not by rows.
// Built once at load (ModelCore resolves the config's names to engine indices); read-only after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/engine.h"

namespace gebe {

// Triton's BatchInput.Kind, in its order.
enum class BatchInputKind {
  kElementCount = 0,                   // [requests]: each request's element count of the source
  kAccumulatedElementCount = 1,        // [requests]: the running sum of those counts
  kAccumulatedElementCountWithZero = 2,  // [requests + 1]: 0, then the running sum
  kMaxElementCountAsShape = 3,         // [largest count]: only the shape says something (zeros)
  kItemShape = 4,                      // [rows, source rank - 1]: each batch item's shape
  kItemShapeFlatten = 5,               // [rows * (source rank - 1)]: the same values, flat
};

struct BatchInputSpec {
  BatchInputKind kind = BatchInputKind::kElementCount;
  DataType dtype = DataType::kInt32;  // kInt32 or kFloat32 (Triton's choice)
  size_t source = 0;                  // engine input index of the request input it describes
  std::vector<size_t> targets;        // engine input indices that receive it
};

struct BatchOutputSpec {
  size_t output = 0;           // engine output index
  size_t source = 0;           // engine input index whose per-request shape splits the output
  std::vector<int64_t> shape;  // the output as clients see it (batch dimension first when batched);
                               // each -1 takes the source input's extent at the same position
};

struct BatchLayout {
  std::vector<bool> ragged;  // per engine input (batched models only)
  std::vector<BatchInputSpec> inputs;
  std::vector<BatchOutputSpec> outputs;

  bool IsRagged(size_t input) const { return input < ragged.size() && ragged[input]; }
  bool IsBatchInputTarget(size_t input) const {
    for (const auto& spec : inputs) {
      for (size_t t : spec.targets) {
        if (t == input) return true;
      }
    }
    return false;
  }
  const BatchOutputSpec* ScatterOf(size_t output) const {
    for (const auto& spec : outputs) {
      if (spec.output == output) return &spec;
    }
    return nullptr;
  }
  bool Plain() const {
    for (bool r : ragged) {
      if (r) return false;
    }
    return inputs.empty() && outputs.empty();
  }
};

}  // namespace gebe
