// A plan: the program specialised for one input-shape signature. Shape inference has run for
// every node, nodes whose values became known (Shape→Gather→Concat chains) were folded, and
// every intermediate tensor of a statically shaped node has an offset in one arena, assigned from
// value lifetimes so tensors that are never alive at the same time share memory.
#pragma once

#include <memory>
#include <vector>

#include "cpu/program.h"

namespace gebe::cpu {

enum class StepMode : uint8_t {
  kFolded,   // value known at compile time; not run
  kStatic,   // shapes known; outputs in the arena (or in the caller's output tensors)
  kDynamic,  // an output shape depends on runtime values; shapes inferred and memory allocated per run
  kAlias,    // a view (Reshape, Flatten, ...) whose output shares its input's arena bytes; not run
};

struct Plan {
  std::vector<TensorRef> values;         // by value id: dtype/shape where known; data set for constants
  std::vector<bool> known;               // shape known at compile time
  std::vector<int64_t> arena_offset;     // by value id; -1 when not in the arena
  std::vector<StepMode> modes;           // by step
  std::vector<ConstTensor> folded;       // keeps values folded for this signature alive
  size_t arena_bytes = 0;
  double compile_ms = 0;
};

// Builds the plan for `input_shapes` (by position of program.input_ids).
std::unique_ptr<Plan> BuildPlan(const Program& program, const std::vector<Shape>& input_shapes,
                                size_t max_tensor_bytes, const RunContext& ctx);

}  // namespace gebe::cpu
