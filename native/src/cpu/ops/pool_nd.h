// MaxPool (with optional Indices) and AveragePool over 3 or more spatial dims (1-D and 2-D have
// their own path in pool.cc). 3-D without Indices: per output row, MaxPool's interior through the
// vectorised row of pool_rows.h once per depth tap; everything else tap by tap.
#pragma once

#include <cstdint>

#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

struct PoolNdArgs {
  const float* x = nullptr;  // [planes, in...]
  float* y = nullptr;        // [planes, out...]
  int64_t* indices = nullptr;  // MaxPool's optional Indices, or nullptr
  int64_t planes = 0;
  const ConvGeometry* g = nullptr;
  bool max = true, count_include_pad = false, column_major = false;
};

void PoolNd(const PoolNdArgs& a, const RunContext& ctx);

}  // namespace gebe::cpu
