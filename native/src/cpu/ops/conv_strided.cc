// The direct stride-2 convolution's driver (conv_strided.h): when it pays, the weights packed per
// block of 16 output channels, and the output rows spread over the threads.
#include "cpu/ops/conv_strided.h"

#include <algorithm>

#include "cpu/ops/conv_depthwise.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

// Taps (cg · kh · kw) up to which the direct kernel beats im2col into the GEMM. Measured at 1
// thread, a Conv + Relu alone, direct against the paths before it (µs, alternating blocks):
// 3 → 16 channels, 3×3 at 224² 178 against 255, at 256² 239 against 333; 3 → 32 at 224² 358
// against 424; 16 → 32 at 128² 429 against 567, at 112² 405 against 421 (rows of 56: the last
// vector half empty); 32 → 32 in two groups at 112² 374 against 446 (144 taps). Even or worse:
// 32 → 64 at 64² 450 against 444 and 64 → 128 at 56² 1168 against 1166 (288 and 576 taps),
// 32 → 64 at 112² 1462 against 1279, ResNet's 7×7 3 → 64 stem (147 taps) 2604 against 2502, and a
// 1×1 stride-2 conv, 32 → 32 at 112², 150 against 137.
constexpr int64_t kStridedMaxTaps = 144;

}  // namespace

bool StridedDirectPays(const Geo2& g, int64_t cg, int64_t mg) {
  if (Avx512StridedRow() == nullptr) return false;
  if (g.sh != 2 || g.sw != 2 || mg % 8 != 0 || g.kh > kStridedMaxKernel || g.kw > kStridedMaxKernel) return false;
  // Rows that leave more than one lane in eight idle (7×7 or 14×14 planes: most of the last
  // vector) keep the small-plane path, whose positions run on across rows.
  const int64_t lanes = (g.ow + 15) / 16 * 16;
  if (g.ow < 28 || lanes * 7 > g.ow * 8) return false;
  return g.kh * g.kw > 1 && cg * g.kh * g.kw <= kStridedMaxTaps;
}

const float* StridedWeights::For(const float* w, int64_t groups, int64_t mg, int64_t cg, int64_t taps) {
  const int64_t k = cg * taps, size = groups * mg * k;
  if (w == source_ && size == size_) return packed_.data();
  packed_.resize(size_t(size));
  float* d = packed_.data();
  // Block (group, 16 channels or a last 8), then tap t = input channel · taps + kernel position,
  // then channel: a block starting at output channel `first` starts at first · k.
  for (int64_t gi = 0; gi < groups; ++gi)
    for (int64_t first = gi * mg; first < (gi + 1) * mg; first += kStridedChannels) {
      const int64_t width = std::min(kStridedChannels, (gi + 1) * mg - first);
      for (int64_t t = 0; t < k; ++t)
        for (int64_t j = 0; j < width; ++j) *d++ = w[(first + j) * k + t];
    }
  source_ = w;
  size_ = size;
  return packed_.data();
}

void RunStridedDirect(const PrepackedConvArgs& args, const float* w, StridedWeights* weights, const RunContext& ctx) {
  const StridedRowFn row = Avx512StridedRow();
  const Geo2& g = args.g;
  const int64_t cg = args.c / args.groups, mg = args.m / args.groups, k = cg * g.kh * g.kw;
  const int64_t ohw = g.oh * g.ow, ihw = g.ih * g.iw;
  const float* packed = weights->For(w, args.groups, mg, cg, g.kh * g.kw);
  const Activation& act = *args.act;
  const RowClamp clamp = ClampOf(act);
  const bool apply_after = act.kind != Activation::Kind::kNone && clamp.kind == RowClamp::kNone;
  // One item: an output row of one group of one image, every block of its channels (the blocks
  // read the same input rows).
  const int64_t rows = args.n * args.groups * g.oh;
  ThreadPool* pool = PoolForProduct(rows * mg * g.ow * k, ctx.pool);
  const int64_t threads = pool ? pool->size() : 1;
  ParallelForOrInline(pool, rows, std::max<int64_t>(1, rows / (threads * 8)), [&](int64_t r0, int64_t r1) {
    StridedRowArgs a;
    a.cg = cg;
    a.ohw = ohw;
    a.g = g;
    a.clamp = clamp;
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t oh = r % g.oh, gi = (r / g.oh) % args.groups, img = r / (g.oh * args.groups);
      a.x = args.x + (img * args.c + gi * cg) * ihw;
      for (int64_t b0 = 0; b0 < mg; b0 += kStridedChannels) {
        const int64_t first = gi * mg + b0;  // the block's first output channel
        const int64_t at = (img * args.m + first) * ohw + oh * g.ow;
        a.channels = std::min(kStridedChannels, mg - b0);
        a.w = packed + first * k;
        a.bias = args.bias ? args.bias + first : nullptr;
        a.residual = args.residual ? args.residual + at : nullptr;
        a.y = args.y + at;
        row(a, oh);
        if (apply_after)
          for (int64_t j = 0; j < a.channels; ++j) act.Apply(a.y + j * ohw, g.ow);
      }
    }
  });
}

}  // namespace gebe::cpu
