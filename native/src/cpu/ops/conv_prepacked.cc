#include "cpu/ops/conv_prepacked.h"

#include <algorithm>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cpu/ops/conv_small_plane.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

RowEpilogue EpilogueFor(const Activation& act) {
  RowEpilogue ep;
  if (act.kind == Activation::Kind::kRelu) {
    ep.clamp = RowEpilogue::kRelu;
  } else if (act.kind == Activation::Kind::kClip) {
    ep.clamp = RowEpilogue::kClip;
    ep.lo = act.alpha;
    ep.hi = act.beta;
  } else if (act.kind != Activation::Kind::kNone) {
    ep.activation = [](const void* a, float* row, int64_t len) { static_cast<const Activation*>(a)->Apply(row, len); };
    ep.ctx = &act;
  }
  return ep;
}

namespace {

// Implicit im2col: the GEMM reads the input itself through each tap's offset, computing "wide"
// output rows of ws columns (the input extent the windows span, padding included) of which ow are
// kept. With padding the image is first copied into a zeroed hp × wp buffer per channel (a pass
// over the input instead of over the k-times larger im2col matrix). Worth it while the throw-away
// columns stay within a tenth (measured: 56/58 and 24/26 gain, 14/16 loses) and k is deep enough
// for per-row offsets (the MNIST stem, k = 9, 32 channels, is faster packed). With at most 16
// output channels packing B is shared by too few rows to pay: any k, and a fifth thrown away
// (measured on the FP16 CNN export, 3→8 and 8→16 channels at 32² and 16²: 70 → 46 µs a run).
// Stride 2 works the same way over the four row/column parity sub-planes of the padded input
// (tap (kh, kw) of output (oh, ow) is sub-plane (kh % 2, kw % 2) at (oh + kh / 2, ow + kw / 2)),
// but only pays for its copy of the whole input with big kernels (measured on ResNet-18: the
// 7×7 stem gains; 3×3 and 1×1 stride-2 convs lose, as their im2col is only ~2× the input).
//
// Where the ISA has the kernel (AVX-512), rows of at least 16 outputs run compact instead
// (SgemmImplicitCompact): each vector of B is put together from the ends of two output rows by
// masked loads, so there are no throw-away columns and no copy out of a wide buffer, and any such
// width qualifies, and k down to 8 (measured at 1 thread: MNIST's conv2, 24 wide, 212 → 195 µs;
// its stem, k = 9, 26 wide, at batch 16 112 → 93 µs; ResNet-18's 3×3 convs at 56² and 28², 4-5%
// faster).
struct ImplicitLayout {
  bool use = false, copy = false, compact = false;
  int64_t s = 1, hp = 0, wp = 0, ws = 0, n_wide = 0, hwp = 0, sub = 0;
  std::vector<int64_t> offs;  // per row of k: the tap's offset into the (padded) input

  ImplicitLayout(const Geo2& g, int64_t kdim, int64_t mg, bool pointwise) {
    s = g.sh;
    hp = (g.oh - 1) * s + (g.kh - 1) * g.dh + 1;
    wp = (g.ow - 1) * s + (g.kw - 1) * g.dw + 1;
    if (s == 2) hp = (hp + 1) / 2 * 2, wp = (wp + 1) / 2 * 2;
    ws = wp / std::max<int64_t>(1, s);
    bool few_rows = mg <= 16;
    bool shape_ok = !pointwise && g.sh == g.sw && (s == 1 || (s == 2 && g.kh * g.kw >= 25));
    bool wide = shape_ok && (few_rows ? g.ow * 10 >= ws * 8 : kdim >= 32 && g.ow * 10 >= ws * 9);
    compact = shape_ok && kdim >= 8 && g.ow >= 16 && SgemmHasImplicitCompact();
    use = wide || compact;
    if (!use) return;
    copy = s == 2 || !(g.ph == 0 && g.pw == 0 && hp == g.ih && wp == g.iw);
    n_wide = (g.oh - 1) * ws + g.ow;
    hwp = hp * wp;
    sub = (hp / 2) * (wp / 2);
    offs.resize(size_t(kdim));
    for (int64_t r = 0; r < kdim; ++r) {
      int64_t kw = r % g.kw, kh = (r / g.kw) % g.kh, ch = r / (g.kw * g.kh);
      offs[size_t(r)] = ch * hwp + At(kh * g.dh, kw * g.dw);
    }
  }
  // Offset of padded element (r, col) within one channel's buffer.
  int64_t At(int64_t r, int64_t col) const {
    return s == 1 ? r * wp + col : ((r % 2) * 2 + col % 2) * sub + (r / 2) * (wp / 2) + col / 2;
  }
};

// One channel of the input into its zeroed, padded buffer (stride 2: its parity sub-planes).
void PadChannel(const float* xc, const Geo2& g, const ImplicitLayout& L, float* d) {
  if (L.s == 2) {
    std::memset(d, 0, sizeof(float) * size_t(L.hwp));
    for (int64_t ih = 0; ih < g.ih && ih + g.ph < L.hp; ++ih) {
      const float* src = xc + ih * g.iw;
      int64_t r = ih + g.ph;
      // Input columns x land on padded column x + pw: even ones, then odd ones.
      for (int64_t par = 0; par < 2; ++par) {
        int64_t x0 = ((par - g.pw) % 2 + 2) % 2;  // first x with (x + pw) % 2 == par
        float* __restrict out = d + L.At(r, x0 + g.pw);
        for (int64_t j = 0; x0 + 2 * j < g.iw && x0 + 2 * j + g.pw < L.wp; ++j) out[j] = src[x0 + 2 * j];
      }
    }
    return;
  }
  for (int64_t r = 0; r < L.hp; ++r) {
    int64_t ih = r - g.ph;
    float* row = d + r * L.wp;
    if (ih < 0 || ih >= g.ih) {
      std::memset(row, 0, sizeof(float) * size_t(L.wp));
      continue;
    }
    int64_t lo = std::min(L.wp, g.pw), hi = std::min(L.wp, g.pw + g.iw);
    for (int64_t x0 = 0; x0 < lo; ++x0) row[x0] = 0.f;
    CopyFloats(row + lo, xc + ih * g.iw + (lo - g.pw), hi - lo);
    for (int64_t x0 = hi; x0 < L.wp; ++x0) row[x0] = 0.f;
  }
}

// One group of one image through implicit im2col; false when this ISA has no kernel for it.
bool ImplicitGroup(const float* xg, int64_t cg, int64_t mg, const Geo2& g, const ImplicitLayout& L, const PackedA& a,
                   const RowEpilogue& ep, float* yg, ThreadPool* pool) {
  thread_local std::vector<float> wide, padded;
  const float* src_x = xg;
  if (L.copy) {
    if (padded.size() < size_t(cg * L.hwp)) padded.resize(size_t(cg * L.hwp));
    float* dst = padded.data();
    int64_t ihw = g.ih * g.iw;
    ParallelForOrInline(pool, cg, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, L.hwp)), [&](int64_t c0, int64_t c1) {
      for (int64_t ch = c0; ch < c1; ++ch) PadChannel(xg + ch * ihw, g, L, dst + ch * L.hwp);
    });
    src_x = dst;
  }
  int64_t ohw = g.oh * g.ow;
  if (L.compact) {
    SgemmImplicitCompact(a, ohw, g.ow, L.ws, src_x, L.offs.data(), yg, ohw, ep, pool);
    return true;
  }
  if (wide.size() < size_t(mg * L.n_wide)) wide.resize(size_t(mg * L.n_wide));
  if (!SgemmImplicit(a, L.n_wide, src_x, L.offs.data(), wide.data(), L.n_wide, ep, pool)) return false;
  // The kept ow columns of every wide row.
  const float* src = wide.data();
  ParallelForOrInline(pool, mg, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, ohw)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t oh = 0; oh < g.oh; ++oh) CopyFloats(yg + r * ohw + oh * g.ow, src + r * L.n_wide + oh * L.ws, g.ow);
  });
  return true;
}

// One group of one image with im2col rows generated into the packed panels (or, pointwise, the
// input read as B).
void PackedRowsGroup(const float* xg, const Geo2& g, bool pointwise, const PackedA& a, const RowEpilogue& ep, float* yg,
                     float* panels, ThreadPool* pool) {
  Im2ColSource im2col{xg, &g};
  BRowSource src;
  if (pointwise) {
    src.direct = xg;
  } else {
    src.fill = Im2ColSource::Fill;
    src.ctx = &im2col;
  }
  SgemmPrepackedRows(a, g.oh * g.ow, src, yg, g.oh * g.ow, ep, panels, pool);
}

}  // namespace

void ConvWeights::Prepare(const float* w, int64_t groups, int64_t mg, int64_t kdim) {
  source_ = w;
  groups_ = groups;
  mg_ = mg;
  kdim_ = kdim;
  PackPanels();
}

void ConvWeights::PackPanels() {
  panels_.clear();
  for (int64_t gi = 0; gi < groups_; ++gi) panels_.push_back(PackA(mg_, kdim_, source_ + gi * mg_ * kdim_, kdim_));
}

const std::vector<PackedA>& ConvWeights::Panels() {
  if (panels_.empty()) {
    PackPanels();
    keep_both_ = true;
  }
  return panels_;
}

const std::vector<PackedB>& ConvWeights::SmallPlane(const Geo2& g, int64_t cg) {
  if (!small_plane_.empty()) return small_plane_;
  // The panels go first, so the weights are never held three times at once.
  if (!keep_both_) {
    std::vector<PackedA>().swap(panels_);
#if defined(__GLIBC__)
    // They were allocated at load, usually on another thread than this run's, whose arena glibc
    // would otherwise keep their pages in.
    malloc_trim(0);
#endif
  }
  for (int64_t gi = 0; gi < groups_; ++gi) small_plane_.push_back(PackSmallPlaneWeights(source_ + gi * mg_ * kdim_, mg_, cg, g));
  return small_plane_;
}

// The threads share a batch image by image (each image's GEMM on one thread, its own panels), as
// many images as fill every thread, or all of them when an image is under kSingleThreadMacs (a
// batch of one then runs on the calling thread alone); the images left over, fewer than the
// threads, each use all threads.
// (Dynamic batching makes any batch size, odd ones as often as even: before, a batch that did not
// divide evenly, under four images a thread, ran every image across all threads, and MNIST's
// batches of 5 and 7 took longer than 6 and 8.)
void RunPrepackedConv(const PrepackedConvArgs& args, const RunContext& ctx) {
  const Geo2& g = args.g;
  int64_t cg = args.c / args.groups, mg = args.m / args.groups, ohw = g.oh * g.ow, ihw = g.ih * g.iw;
  int64_t kdim = cg * g.kh * g.kw;
  bool small_plane = SmallPlanePays(g, cg, mg, args.groups);
  if (args.pool_2x2 && !small_plane) throw EngineError("internal: a pooled convolution outside the small-plane path");
  const int64_t y_plane = args.pool_2x2 ? (g.oh / 2) * (g.ow / 2) : ohw;
  const std::vector<PackedB>* transposed = small_plane ? &args.weights->SmallPlane(g, cg) : nullptr;
  const std::vector<PackedA>* packed = small_plane ? nullptr : &args.weights->Panels();
  int threads = ctx.pool->size();
  int64_t by_image = 0;  // images 0 .. by_image - 1 are claimed whole by the threads
  if (threads > 1) by_image = args.groups * mg * kdim * ohw < kSingleThreadMacs ? args.n : args.n - args.n % threads;
  // Only a multi-threaded GEMM over a narrow output packs all of B at once (single-threaded ones
  // pack per column block into per-thread buffers).
  float* b_buffer = by_image == args.n || threads == 1 ? nullptr : ctx.scratch->Floats(size_t(PackedBFloats(kdim, ohw)));
  RowEpilogue ep = EpilogueFor(*args.act);
  if (args.residual) {
    // The residual has y's layout, so every output value's residual is the same distance away.
    ep.has_residual = true;
    ep.residual_bytes = reinterpret_cast<std::uintptr_t>(args.residual) - reinterpret_cast<std::uintptr_t>(args.y);
  }
  ImplicitLayout layout(g, kdim, mg, args.pointwise);
  auto group = [&](int64_t b, int64_t gi, float* panels, ThreadPool* pool) {
    const float* xg = args.x + (b * args.c + gi * cg) * ihw;
    float* yg = args.y + (b * args.m + gi * mg) * y_plane;
    RowEpilogue gep = ep;
    gep.bias = args.bias ? args.bias + gi * mg : nullptr;
    if (small_plane) {
      SmallPlaneConv(xg, cg, mg, g, (*transposed)[size_t(gi)], gep, args.pool_2x2, yg, pool);
      return;
    }
    const PackedA& a = (*packed)[size_t(gi)];
    // The wide implicit form runs its epilogue on a scratch copy, where no residual lines up.
    if (layout.use && !(args.residual && !layout.compact) && ImplicitGroup(xg, cg, mg, g, layout, a, gep, yg, pool)) return;
    PackedRowsGroup(xg, g, args.pointwise, a, gep, yg, panels, pool);
  };
  // A grouped convolution whose groups are each under kSingleThreadMacs, with a group or more a
  // thread, shares them out whole (each group's buffers are its thread's own) instead of
  // splitting every small product across the threads: ResNeXt's and RegNet's 32 and 25 groups.
  const bool by_group = threads > 1 && args.groups >= threads && mg * kdim * ohw < kSingleThreadMacs;
  auto image = [&](int64_t b, float* panels, ThreadPool* pool) {
    if (by_group && pool != nullptr) {
      ForEachClaimed(pool, args.groups, [&](int64_t gi) { group(b, gi, nullptr, nullptr); });
      return;
    }
    for (int64_t gi = 0; gi < args.groups; ++gi) group(b, gi, panels, pool);
  };
  // Each thread claims whole images (single-threaded GEMMs) until none are left; the rest use all threads.
  if (by_image > 0) ForEachClaimed(ctx.pool, by_image, [&](int64_t b) { image(b, nullptr, nullptr); });
  for (int64_t b = by_image; b < args.n; ++b) image(b, b_buffer, ctx.pool);
}

}  // namespace gebe::cpu
