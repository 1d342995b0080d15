// Convolutions whose im2col would be mostly padding (conv_tap_products.cc): a dilation near the
// size of the map, as DeepLab's ASPP has (rate 12 over a 14×14 map: of a 3×3 kernel's nine taps
// only the centre reads the image for every output; the others for a band of two rows or
// columns, the corners for a 2×2 block). im2col multiplies every tap's zeros; here each tap is
// one GEMM, its weights (output channels × input channels) times the input positions it reads
// for the outputs where it reads inside the image, a rectangle, and the products are added into
// those outputs. The taps that never reach the image cost nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/conv_im2col.h"
#include "cpu/ops/conv_prepacked.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

// Whether g's taps together read the image for at most a third of what im2col would hold (their
// rectangles' positions against taps · outputs), with input channels enough for a GEMM each.
bool TapProductsPay(const Geo2& g, int64_t cg, int64_t mg);

// Per group and tap, that tap's weights (mg × cg) packed as A, from W (groups · mg × cg × taps);
// packed on first use and kept while W is the same.
class TapWeights {
 public:
  const std::vector<PackedA>& For(const float* w, int64_t groups, int64_t mg, int64_t cg, int64_t taps);

 private:
  const float* source_ = nullptr;
  int64_t taps_ = 0;
  std::vector<PackedA> packed_;  // group-major, then tap
};

// The convolution args describes (its weights, g's W: groups · mg × cg × kh × kw, from `w`; not
// pooled) tap by tap, with bias, residual and activation over the finished output.
void RunTapProducts(const PrepackedConvArgs& args, const float* w, TapWeights* weights, const RunContext& ctx);

}  // namespace gebe::cpu
