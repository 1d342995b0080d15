// The convolution driver for constant (pre-packed) weights (conv_prepacked.cc): per image and
// group, implicit im2col for stride-1 convs (and stride-2 ones with big kernels), im2col rows
// generated into the packed panels for the rest, the input read in place for pointwise ones; bias
// and Relu/Clip in the GEMM's registers; a batch spread over threads image by image.
#pragma once

#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/conv_im2col.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

struct PrepackedConvArgs {
  const float* x = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
  int64_t n = 0, c = 0, m = 0, groups = 1;
  Geo2 g{};
  bool pointwise = false;
  const Activation* act = nullptr;
  const std::vector<PackedA>* packed = nullptr;  // per group
  // The weights, and the kernel's cache of them packed for small output planes (per group;
  // filled on the first run whose geometry goes that way, conv_small_plane.h).
  const float* w = nullptr;
  std::vector<PackedB>* small_plane = nullptr;
};

void RunPrepackedConv(const PrepackedConvArgs& args, const RunContext& ctx);

// A convolution's fused activation as the GEMM epilogue (Relu and Clip in registers, the others
// over finished rows); also used by the N-D convolution (conv_nd.cc).
RowEpilogue EpilogueFor(const Activation& act);

}  // namespace gebe::cpu
