// The model the infer route tests decode against: batched, two inputs of different datatypes
// (A: FP32 [-1, 4], B: INT64 [-1, 2, -1]) and two outputs (X: FP32 [-1, 4], Y: INT32 [-1]).
#pragma once

#include "executor/normalize.h"

namespace gebe {

inline RequestContract TwoInputContract() {
  RequestContract c;
  c.model_name = "simple";
  c.version = "1";
  c.batched = true;
  c.max_request_batch = 8;
  c.inputs = {{"A", DataType::kFloat32, {-1, 4}}, {"B", DataType::kInt64, {-1, 2, -1}}};
  c.outputs = {{"X", DataType::kFloat32, {-1, 4}}, {"Y", DataType::kInt32, {-1}}};
  return c;
}

}  // namespace gebe
