// What the cpu engine can run, checked once per model before anything is built: the loader
// refuses a model with any finding (one error listing them all) and introspection returns them,
// which is what `gebe validate`'s ENGINE_UNSUPPORTED rule reports. One place for the facts.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cpu/graph.h"

namespace gebe::cpu {

// Finding ("Conv: only 1-D and 2-D convolutions are supported", "LSTM", "element type STRING")
// → the nodes or tensors it concerns.
using UnsupportedMap = std::map<std::string, std::vector<std::string>>;

UnsupportedMap FindUnsupported(const Model& model);
// "the cpu engine cannot run 2 things this model uses: ...". Empty map: "".
std::string DescribeUnsupported(const UnsupportedMap& unsupported);

}  // namespace gebe::cpu
