// The convolution driver for constant (pre-packed) weights (conv_prepacked.cc): per image and
// group, small output planes transposed (conv_small_plane.h), implicit im2col for stride-1 convs
// (and stride-2 ones with big kernels), im2col rows generated into the packed panels for the rest,
// the input read in place for pointwise ones; bias and Relu/Clip in the GEMM's registers; a batch
// spread over threads image by image.
#pragma once

#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/conv_im2col.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

// A convolution's constant weights, packed for the path a run's geometry takes: as GEMM panels
// (one PackedA per group) at load, and in the small-plane form (conv_small_plane.h) on the first
// run that goes that way, which then releases the panels: the late layers of a CNN, which hold
// most of its weights, would otherwise keep them three times over. Runs that need the panels
// again (spatial sizes that change between runs) repack them and from then on keep both. A
// session runs on one thread at a time, so the swap needs no lock.
class ConvWeights {
 public:
  // At load: W (groups · mg rows of kdim), which must outlive this.
  void Prepare(const float* w, int64_t groups, int64_t mg, int64_t kdim);
  // Whether w is the constant the packing was made from.
  bool Holds(const float* w) const { return w != nullptr && w == source_; }
  const std::vector<PackedA>& Panels();
  const std::vector<PackedB>& SmallPlane(const Geo2& g, int64_t cg);

 private:
  void PackPanels();

  const float* source_ = nullptr;
  int64_t groups_ = 0, mg_ = 0, kdim_ = 0;
  std::vector<PackedA> panels_;
  std::vector<PackedB> small_plane_;
  bool keep_both_ = false;
};

struct PrepackedConvArgs {
  const float* x = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
  int64_t n = 0, c = 0, m = 0, groups = 1;
  Geo2 g{};
  bool pointwise = false;
  const Activation* act = nullptr;
  ConvWeights* weights = nullptr;  // holding W
  // y is the 2×2 stride-2 max pool of the convolution (n × m × oh / 2 × ow / 2); only for
  // geometries that take the small-plane path (SmallPlanePays).
  bool pool_2x2 = false;
  // Added to the output before the activation (a Conv that absorbed the residual Add after it): a
  // tensor of y's shape. Not with pool_2x2.
  const float* residual = nullptr;
};

void RunPrepackedConv(const PrepackedConvArgs& args, const RunContext& ctx);

// A convolution's fused activation as the GEMM epilogue (Relu and Clip in registers, the others
// over finished rows); also used by the N-D convolution (conv_nd.cc).
RowEpilogue EpilogueFor(const Activation& act);

}  // namespace gebe::cpu
