// Convolution and transposed convolution over 3 or more spatial dims (1-D and 2-D have their own
// paths in conv.cc and conv_transpose.cc). 3-D Conv: vol2col rows generated straight into the
// panels of the pre-packed GEMM (constant weights, bias and activation fused; pointwise convs read
// the input in place), else a vol2col matrix and sgemm. Higher ranks and ConvTranspose: im2col /
// col2im over N-D windows around sgemm.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/gemm/sgemm.h"

#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

struct ConvNdArgs {
  const float* x = nullptr;     // [n, c, in...]
  const float* w = nullptr;     // Conv: [m, c/groups, k...]; ConvTranspose: [c, m/groups, k...]
  const float* bias = nullptr;  // [m] or nullptr
  float* y = nullptr;           // [n, m, out...]
  int64_t n = 0, c = 0, m = 0, groups = 1;
  const ConvGeometry* g = nullptr;  // ConvTranspose: in = X's dims, out = Y's dims, pad_begin used
  const Activation* act = nullptr;  // Conv only; nullptr for none
  const std::vector<PackedA>* packed = nullptr;  // Conv only: W per group, packed at load (3-D)
};

// Y = W ⋆ X (+ B, then the fused activation): im2col of each image and group, then one GEMM.
void ConvNd(const ConvNdArgs& a, const RunContext& ctx);
// Y = col2im(W^T · X) + B.
void ConvTransposeNd(const ConvNdArgs& a, const RunContext& ctx);

}  // namespace gebe::cpu
