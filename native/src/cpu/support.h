// What the cpu engine can run. CheckModel (program.h) gathers these findings once per model: the
// loader refuses a model with any (one error listing them all) and introspection returns them,
// which is what `gebe validate`'s ENGINE_UNSUPPORTED rule reports. One place for the facts.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cpu/graph.h"
#include "cpu/program.h"

namespace gebe::cpu {

// Finding ("Conv: only 1-D and 2-D convolutions are supported", "LSTM", "element type STRING",
// "MaxPool: input X ('r') must be FP32 or UINT8 or INT8 but is INT32") → the nodes or tensors it concerns.
using UnsupportedMap = std::map<std::string, std::vector<std::string>>;

// What the model as read uses that the engine lacks: operators, attribute values the kernels'
// constructors refuse, element types of graph edges and initializers, opset, control-flow bodies.
UnsupportedMap FindUnsupported(const Model& model);
// The element types the kernels refuse in the middle of the built program (INT32 into a MaxPool),
// which only their shape inference knows: one trial plan with every dynamic dim set to 1. Types
// flow the same whatever the shapes; the trial's other errors concern the shapes it made up and are
// left to real requests, and steps after a value-dependent one are checked when it runs. The
// trial stops at the first refusal, so this finds one at most.
UnsupportedMap FindUnsupportedTypes(const Program& program, size_t max_tensor_bytes);
// A kernel's refusal as a finding: "MaxPool: input X ('r') must be ... but is INT32" → its node.
UnsupportedMap TypeFinding(const TypeMismatch& refusal);

// One finding as the load error and validate word it: "what (node, node, ..., and 2 more)".
std::string DescribeFinding(const std::string& what, const std::vector<std::string>& where);
// "the cpu engine cannot run 2 things this model uses: ...". Empty map: "".
std::string DescribeUnsupported(const UnsupportedMap& unsupported);

}  // namespace gebe::cpu
