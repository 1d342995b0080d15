// Convolution and transposed convolution over any number of spatial dims (the 3-D and higher
// cases; 1-D and 2-D have their own tuned paths in conv.cc and conv_transpose.cc): im2col / col2im
// over N-D windows around the shared sgemm driver.
#pragma once

#include <cstdint>

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
};

// Y = W ⋆ X (+ B, then the fused activation): im2col of each image and group, then one GEMM.
void ConvNd(const ConvNdArgs& a, const RunContext& ctx);
// Y = col2im(W^T · X) + B.
void ConvTransposeNd(const ConvNdArgs& a, const RunContext& ctx);

}  // namespace gebe::cpu
