// Depthwise convolution with the channels in the vector lanes. Per image and block of 16
// channels: the input planes are transposed into a zero-bordered channels-last buffer
// (position-major, 16 floats a position), every output position is the sum over the kernel's
// taps of a weight vector times the position's input vector (one FMA a tap for 16 channels), and
// the finished positions are transposed back into the 16 output planes, Relu or Clip applied on
// the way. The 16 × 16 register transposes are the GEMM's (sgemm_kernels.h); the row of outputs
// is the ISA's (conv_depthwise_rows.h).
#include "cpu/ops/conv_depthwise_channels_last.h"

#include <algorithm>
#include <cstring>

#include "cpu/aligned_vector.h"
#include "cpu/gemm/sgemm_kernels.h"
#include "cpu/ops/conv_depthwise_rows.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

constexpr int64_t kLanes = 16;

// The zero-bordered input plane: every position a tap of an output reads, and the whole input
// (-1: an extent above kChannelsLastMaxPlane).
struct BorderedPlane {
  int64_t hp, wp;
  explicit BorderedPlane(const Geo2& g)
      : hp(BorderedExtent(g.ih, g.oh, g.kh, g.sh, g.dh, g.ph, kChannelsLastMaxPlane)),
        wp(BorderedExtent(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw, kChannelsLastMaxPlane)) {}
};

}  // namespace

bool DepthwiseChannelsLastFits(const Geo2& g, int64_t multiplier) {
  if (ActiveDepthwiseRows().channels_last_row == nullptr || gemm_detail::ActiveKernels().transpose_block == nullptr)
    return false;
  // 3×3 kernels keep their plane kernels (flat9, rows9, wide2 and Plane9), which measured as fast
  // or faster at every size: the transposes in and out cost more than nine taps save.
  if (multiplier != 1 || g.kh * g.kw <= 9) return false;
  const BorderedPlane b(g);
  return b.hp > 0 && b.wp > 0 && b.hp <= kChannelsLastMaxPlane / b.wp;
}

void DepthwiseChannelsLast(const float* x, const float* w, const float* bias, float* y, int64_t images, int64_t channels,
                           const Geo2& g, const Activation& act, ThreadPool* pool) {
  const ChannelsLastRowFn row = ActiveDepthwiseRows().channels_last_row;
  const ChannelsLastFillFn fill = ActiveDepthwiseRows().channels_last_fill;
  const gemm_detail::TransposeBlockKernel transpose = gemm_detail::ActiveKernels().transpose_block;
  const BorderedPlane plane(g);
  const int64_t taps = g.kh * g.kw, ihw = g.ih * g.iw, ohw = g.oh * g.ow;
  const int64_t blocks = (channels + kLanes - 1) / kLanes;
  // Relu and Clip in the transpose out; any other activation over the finished planes.
  gemm_detail::TileEpilogue clamp;
  if (act.kind == Activation::Kind::kRelu) clamp.clamp = gemm_detail::TileEpilogue::kRelu;
  if (act.kind == Activation::Kind::kClip) {
    clamp.clamp = gemm_detail::TileEpilogue::kClip;
    clamp.lo = act.alpha;
    clamp.hi = act.beta;
  }
  const bool clamped = clamp.clamp != gemm_detail::TileEpilogue::kNone;
  const bool apply_after = act.kind != Activation::Kind::kNone && !clamped;
  const ChannelsLastGeometry geometry{g.kh, g.kw, g.dh * plane.wp * kLanes, g.dw * kLanes, g.sw * kLanes};
  pool->ParallelFor(images * blocks, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, taps * ohw * kLanes)),
                    [&](int64_t t0, int64_t t1) {
    thread_local AlignedVector<float> bordered, out, weights;
    // Borders are zeroed once per chunk: every block rewrites only the input's own positions.
    bordered.assign(size_t(plane.hp * plane.wp * kLanes), 0.f);
    if (out.size() < size_t(ohw * kLanes)) out.resize(size_t(ohw * kLanes));
    if (weights.size() < size_t((taps + 1) * kLanes)) weights.resize(size_t((taps + 1) * kLanes));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / blocks, c0 = (t % blocks) * kLanes, cn = std::min(kLanes, channels - c0);
      // The block's weights tap-major, 16 channels a tap, then its bias. Lanes past the last
      // channel are zero (so are its inputs there): they are computed, never written out.
      float* wv = weights.data();
      if (cn < kLanes) std::fill(wv, wv + (taps + 1) * kLanes, 0.f);
      for (int64_t tap = 0; tap < taps; tap += kLanes)
        transpose(w + c0 * taps + tap, taps, cn, std::min(kLanes, taps - tap), wv + tap * kLanes, kLanes, nullptr);
      float* bv = wv + taps * kLanes;
      if (bias) std::copy(bias + c0, bias + c0 + cn, bv);
      else std::fill(bv, bv + kLanes, 0.f);
      fill(x + (n * channels + c0) * ihw, cn, g, plane.wp, bordered.data());
      for (int64_t oh = 0; oh < g.oh; ++oh)
        row(out.data() + oh * g.ow * kLanes, bordered.data() + oh * g.sh * plane.wp * kLanes, g.ow, wv, bv, geometry);
      // Back into the planes, 16 positions at a time (positions run on across output rows).
      float* yc = y + (n * channels + c0) * ohw;
      for (int64_t p = 0; p < ohw; p += kLanes)
        transpose(out.data() + p * kLanes, kLanes, std::min(kLanes, ohw - p), cn, yc + p, ohw, clamped ? &clamp : nullptr);
      if (apply_after) act.Apply(yc, cn * ohw);
    }
  });
}

}  // namespace gebe::cpu
