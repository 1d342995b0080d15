#include "cpu/ops/conv_tap_products.h"

#include <algorithm>
#include <cstring>

#include "cpu/gemm/sgemm_kernels.h"
#include "cpu/gemm/sgemm_pack.h"
#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

// The output rectangle each tap reads inside the image for, from the per-dim ranges.
struct TapRects {
  TapRanges rows, cols;
  explicit TapRects(const Geo2& g)
      : rows(g.ih, g.oh, g.kh, g.sh, g.dh, g.ph), cols(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw) {}
  int64_t Positions(int64_t a, int64_t b) const {
    return (rows.hi[size_t(a)] - rows.lo[size_t(a)]) * (cols.hi[size_t(b)] - cols.lo[size_t(b)]);
  }
};

}  // namespace

// Measured at 1 thread on DeepLabV3-MobileNetV3's rate-12 ASPP conv (960 → 256 channels, 14×14):
// the taps read 324 of im2col's 1764 positions.
bool TapProductsPay(const Geo2& g, int64_t cg, int64_t mg) {
  if (cg < 16 || mg < gemm_detail::kMR || g.kh * g.kw < 2) return false;
  const TapRects rects(g);
  // Each product is at most oh · ow; taps · oh · ow stays in range for any geometry the planner let
  // through (the output alone is allocated), so the sums cannot wrap.
  int64_t reached = 0;
  for (int64_t a = 0; a < g.kh; ++a)
    for (int64_t b = 0; b < g.kw; ++b) reached += rects.Positions(a, b);
  return reached * 3 <= g.kh * g.kw * g.oh * g.ow;
}

const std::vector<PackedA>& TapWeights::For(const float* w, int64_t groups, int64_t mg, int64_t cg, int64_t taps) {
  if (w == source_ && taps == taps_ && !packed_.empty()) return packed_;
  packed_.clear();
  std::vector<float> tap_w(size_t(mg * cg));
  for (int64_t gi = 0; gi < groups; ++gi) {
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t r = 0; r < mg * cg; ++r) tap_w[size_t(r)] = w[(gi * mg * cg + r) * taps + t];
      packed_.push_back(PackA(mg, cg, tap_w.data(), cg));
    }
  }
  source_ = w;
  taps_ = taps;
  return packed_;
}

void RunTapProducts(const PrepackedConvArgs& args, const float* w, TapWeights* weights, const RunContext& ctx) {
  const Geo2& g = args.g;
  const int64_t cg = args.c / args.groups, mg = args.m / args.groups, taps = g.kh * g.kw;
  const int64_t ohw = g.oh * g.ow, ihw = g.ih * g.iw;
  const std::vector<PackedA>& packed = weights->For(w, args.groups, mg, cg, taps);
  const TapRects rects(g);
  int64_t most = 0;
  for (int64_t a = 0; a < g.kh; ++a)
    for (int64_t b = 0; b < g.kw; ++b) most = std::max(most, rects.Positions(a, b));
  // One tap's input positions (cg rows) and its product (mg rows), reused tap after tap.
  float* gathered = ctx.scratch->Floats(size_t((cg + mg) * most));
  float* product = gathered + cg * most;
  RowEpilogue ep = EpilogueFor(*args.act);
  if (args.residual) {
    ep.has_residual = true;
    ep.residual_bytes = reinterpret_cast<std::uintptr_t>(args.residual) - reinterpret_cast<std::uintptr_t>(args.y);
  }
  for (int64_t b = 0; b < args.n; ++b) {
    for (int64_t gi = 0; gi < args.groups; ++gi) {
      const float* xg = args.x + (b * args.c + gi * cg) * ihw;
      float* yg = args.y + (b * args.m + gi * mg) * ohw;
      std::memset(yg, 0, sizeof(float) * size_t(mg * ohw));
      for (int64_t ka = 0; ka < g.kh; ++ka) {
        for (int64_t kb = 0; kb < g.kw; ++kb) {
          const int64_t positions = rects.Positions(ka, kb);
          if (positions == 0) continue;
          const int64_t r0 = rects.rows.lo[size_t(ka)], r1 = rects.rows.hi[size_t(ka)];
          const int64_t c0 = rects.cols.lo[size_t(kb)], width = rects.cols.hi[size_t(kb)] - c0;
          // The input this tap reads for its rectangle, channel by channel (row oh reads input row
          // oh·sh − ph + ka·dh from column c0·sw − pw + kb·dw on, every sw-th).
          ParallelForOrInline(ctx.pool, cg, std::max<int64_t>(1, kParallelGrain / positions), [&](int64_t ch0, int64_t ch1) {
            for (int64_t ch = ch0; ch < ch1; ++ch) {
              float* dst = gathered + ch * positions;
              for (int64_t oh = r0; oh < r1; ++oh) {
                const float* src = xg + ch * ihw + (oh * g.sh - g.ph + ka * g.dh) * g.iw + c0 * g.sw - g.pw + kb * g.dw;
                for (int64_t j = 0; j < width; ++j) *dst++ = src[j * g.sw];
              }
            }
          });
          SgemmPackedA(packed[size_t(gi * taps + ka * g.kw + kb)], positions, gathered, positions, 0.f, product, positions,
                       ctx.pool);
          // Added into the rectangle's outputs.
          ParallelForOrInline(ctx.pool, mg, std::max<int64_t>(1, kParallelGrain / positions), [&](int64_t m0, int64_t m1) {
            for (int64_t mm = m0; mm < m1; ++mm) {
              const float* src = product + mm * positions;
              for (int64_t oh = r0; oh < r1; ++oh, src += width) {
                float* dst = yg + mm * ohw + oh * g.ow + c0;
                for (int64_t j = 0; j < width; ++j) dst[j] += src[j];
              }
            }
          });
        }
      }
      // Bias, residual and activation over the finished rows.
      RowEpilogue gep = ep;
      gep.bias = args.bias ? args.bias + gi * mg : nullptr;
      if (!gep.empty()) {
        ParallelForOrInline(ctx.pool, mg, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, ohw)), [&](int64_t m0, int64_t m1) {
          RowEpilogue rows = gep;
          if (rows.bias) rows.bias += m0;
          gemm_detail::ApplyRowEpilogue(rows, yg + m0 * ohw, ohw, m1 - m0, ohw);
        });
      }
    }
  }
}

}  // namespace gebe::cpu
