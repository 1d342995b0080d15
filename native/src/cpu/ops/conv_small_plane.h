// Convolutions with a small output plane (the last stages of a CNN: 7×7, 14×14), computed
// transposed: the GEMM's rows are the output positions and its vector columns the output
// channels, Yᵀ = im2col(X)ᵀ · Wᵀ. Vectors of 16 positions leave a 7×7 plane's 49 positions a
// nearly empty last vector (and each vector a gather across output rows); 16 channels of 512
// never do. ONNX Runtime's NCHWc convolutions vectorise over channels for the same reason.
//
// The input is copied once into a zero-bordered channels-last buffer, so that one output
// position's im2col row is, tap by tap, a contiguous run of its input channels (k ordered
// tap-major: (kh, kw, c)); the weights, reordered to match, are packed once as B. On AVX-512 the
// GEMM reads those runs in place (gemm_detail::DirectBlockKernel: tiles of 6 positions × 64
// channels, no A panels), which pays on planes up to 56×56; elsewhere positions are packed six
// at a time into A panels and the path is kept to 14×14. The product (positions × channels) is
// transposed into the NCHW output with the bias and activation (16 × 16 register transposes on
// AVX-512, which also build the channels-last copy). A Conv that absorbed a 2×2 stride-2 MaxPool
// pools the product while it is still channels last (a vector max over 16 channels), so only the
// pooled quarter is transposed and the pool never reads the full-size output.
#pragma once

#include <cstdint>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/conv_im2col.h"

namespace gebe::cpu {

// Whether a group of cg → mg channels over geometry g (one of `groups`) goes this way.
bool SmallPlanePays(const Geo2& g, int64_t cg, int64_t mg, int64_t groups);

// Wᵀ of one group (mg × cg × kh × kw, row-major) with k in (kh, kw, c) order, packed as B.
PackedB PackSmallPlaneWeights(const float* w, int64_t mg, int64_t cg, const Geo2& g);

// One group of one image: xg (cg × ih × iw) → yg (mg × oh × ow), bias and activation from ep.
// With pool_2x2, yg is the 2×2 stride-2 max pool of that (mg × oh / 2 × ow / 2); ep then has no
// activation but a clamp.
void SmallPlaneConv(const float* xg, int64_t cg, int64_t mg, const Geo2& g, const PackedB& w, const RowEpilogue& ep,
                    bool pool_2x2, float* yg, ThreadPool* pool);

}  // namespace gebe::cpu
