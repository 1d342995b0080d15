#include "cpu/ops/conv_small_plane.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu/gemm/sgemm_kernels.h"
#include "cpu/gemm/sgemm_pack.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

using gemm_detail::kMR;
using gemm_detail::kNR;
using gemm_detail::PadTo;

// Measured at 1 thread against the default path. With A panels packed (AVX2, portable; AVX-512
// on a Zen 4 before the direct kernel): 3×3 convs 512 → 512 at 7², 256 → 256 at 14² and
// 256 → 512 at 14² stride 2 gain 15-20%; 128 → 128 at 28² loses 10%, and pointwise convs (no
// im2col to save; two transposes to pay) break even at best. With the AVX-512 direct kernel
// (Ice Lake-SP): ResNet-18's 3×3 convs gain at every plane size up to 56² (28²: 20%, 56²: 10%).
// Grouped convolutions take it from one 16-column panel of output channels a group: each group's
// product is too small for the default path's packing and tiles (RegNetX-400MF's 25 groups of 16
// channels at 7²: 10.4-14.0 → 7.7-9.6 ms a run, alternating). Ungrouped ones need two panels:
// with one, the FP16 CNN export's 8 → 16 at 16² lost (26-29 → 28-34 µs a run).
// Pointwise convs (stride 1 or 2) into planes up to 7×7 where the direct kernel reads the
// channels-last input in place (a Zen 5, 2026-12-06): 49 positions fill a quarter of the default
// path's last 16-column vectors with nothing, channels never do. gebe/ORT, alternating with the
// addon without it, 1 and 2 threads: MobileNetV3-small 1.09 → 0.98, 1.20-1.25 → 1.09-1.10;
// MobileNetV2 1.17-1.19 → 1.12-1.14, 1.20-1.29 → 1.18-1.21; ResNet-50 1.21-1.23 → 1.17-1.19,
// 1.27-1.30 → 1.24-1.28; RegNetY-400MF 1.07-1.08 → 1.03-1.04. At 14×14 they lost (chains of
// pointwise convs 112 ↔ 672: 1.02×, 40 ↔ 240: 1.15× per node), so the limit is 7×7.
bool SmallPlanePays(const Geo2& g, int64_t cg, int64_t mg, int64_t groups) {
  const bool direct = gemm_detail::ActiveKernels().block_direct != nullptr;
  const int64_t max_positions = direct ? 56 * 56 : 14 * 14;
  const bool taps_or_small = g.kh * g.kw > 1 || (direct && g.oh * g.ow <= 7 * 7);
  return g.oh * g.ow <= max_positions && taps_or_small && mg >= (groups > 1 ? kNR : 2 * kNR) && cg * g.kh * g.kw >= 64;
}

PackedB PackSmallPlaneWeights(const float* w, int64_t mg, int64_t cg, const Geo2& g) {
  int64_t taps = g.kh * g.kw, k = taps * cg, n_padded = PadTo(mg, kNR);
  PackedB packed;
  packed.k = k;
  packed.n = mg;
  packed.source = w;
  packed.kc = gemm_detail::BalancedKc(k);
  packed.data.assign(size_t(k * n_padded), 0.f);
  // Row q = (tap, c) of Wᵀ, column m: W[m][c][tap]; per kc block of rows, kNR-column panels.
  for (int64_t k0 = 0; k0 < k; k0 += packed.kc) {
    int64_t kc = std::min(packed.kc, k - k0);
    float* block = packed.data.data() + k0 * n_padded;
    for (int64_t q = 0; q < kc; ++q) {
      int64_t tap = (k0 + q) / cg, c = (k0 + q) % cg;
      for (int64_t m = 0; m < mg; ++m) block[(m / kNR) * kc * kNR + q * kNR + m % kNR] = w[(m * cg + c) * taps + tap];
    }
  }
  return packed;
}

namespace {

// The input, channels last, inside a zero border: element (r, col, c) at (r · wp + col) · cg + c
// for padded row r and column col.
struct ChannelsLast {
  int64_t hp = 0, wp = 0;
  const float* data = nullptr;
};

// Copies padded rows [r_begin, r_end) of xg into the layout of `xl` (whose data is `d`).
void CopyChannelsLast(const float* x, int64_t cg, const Geo2& g, const ChannelsLast& xl, float* d, int64_t r_begin,
                      int64_t r_end) {
  // The input's rows and columns that land inside the buffer; everything else is border.
  int64_t r0 = std::max<int64_t>(0, g.ph), r1 = std::min(xl.hp, g.ih + g.ph);
  int64_t c0 = std::max<int64_t>(0, g.pw), c1 = std::min(xl.wp, g.iw + g.pw);
  int64_t ihw = g.ih * g.iw;
  const auto transpose = gemm_detail::ActiveKernels().transpose_block;
  for (int64_t r = r_begin; r < r_end; ++r) {
    bool inside = r >= r0 && r < r1;
    if (inside && transpose) {
      // The border columns zeroed, the inside transposed 16 channels × 16 columns at a time.
      float* row = d + r * xl.wp * cg;
      std::memset(row, 0, sizeof(float) * size_t(c0 * cg));
      std::memset(row + c1 * cg, 0, sizeof(float) * size_t((xl.wp - c1) * cg));
      const float* src_row = x + (r - g.ph) * g.iw - g.pw;
      for (int64_t col = c0; col < c1; col += 16)
        for (int64_t c = 0; c < cg; c += 16)
          transpose(src_row + c * ihw + col, ihw, std::min<int64_t>(16, cg - c), std::min<int64_t>(16, c1 - col),
                    row + col * cg + c, cg, nullptr);
      continue;
    }
    for (int64_t col = 0; col < xl.wp; ++col) {
      float* dst = d + (r * xl.wp + col) * cg;
      if (!inside || col < c0 || col >= c1) {
        std::memset(dst, 0, sizeof(float) * size_t(cg));
        continue;
      }
      // Eight channels at a time: their eight source rows stay in L1 across the row's columns.
      const float* src = x + (r - g.ph) * g.iw + (col - g.pw);
      int64_t c = 0;
      for (; c + 8 <= cg; c += 8)
        for (int64_t j = 0; j < 8; ++j) dst[c + j] = src[(c + j) * ihw];
      for (; c < cg; ++c) dst[c] = src[c * ihw];
    }
  }
}

// A panel of kMR output positions (from p0; rows past n are zero) for k in [k0, k0 + kc):
// out[q · kMR + y] = im2colᵀ[p0 + y][k0 + q], run by run of one tap's channels.
void PackPositions(const ChannelsLast& xl, int64_t cg, const Geo2& g, int64_t p0, int64_t n, int64_t k0, int64_t kc,
                   float* out) {
  const float* x = xl.data;
  int64_t base[kMR];
  int64_t rows = std::min<int64_t>(kMR, n - p0);
  for (int64_t y = 0; y < rows; ++y) {
    int64_t p = p0 + y, oh = p / g.ow, ow = p % g.ow;
    base[y] = (oh * g.sh * xl.wp + ow * g.sw) * cg;
  }
  bool strided = rows == kMR;
  for (int64_t y = 2; strided && y < kMR; ++y) strided = base[y] - base[y - 1] == base[1] - base[0];
  auto pack_rows = gemm_detail::ActiveKernels().pack_rows_a;
  for (int64_t q = 0; q < kc;) {
    int64_t k = k0 + q, tap = k / cg, c = k % cg, run = std::min(kc - q, cg - c);
    int64_t off = ((tap / g.kw) * g.dh * xl.wp + (tap % g.kw) * g.dw) * cg + c;
    float* dst = out + q * kMR;
    if (strided && pack_rows) {
      pack_rows(run, x + base[0] + off, base[1] - base[0], 1.f, dst);
    } else {
      for (int64_t y = 0; y < kMR; ++y) {
        const float* src = y < rows ? x + base[y] + off : nullptr;
        for (int64_t i = 0; i < run; ++i) dst[i * kMR + y] = src ? src[i] : 0.f;
      }
    }
    q += run;
  }
}

// Product rows for positions [p0, p0 + rows) (row r at pr + r·ld, channel m at column m − c0) →
// channels [c0, c1) of yg's planes (c0 a multiple of kNR), in 16 × 16 blocks (16 channels: one
// cache line of each product row), then the GEMM's own epilogue over those rows while they are
// in cache: bias and clamp as a tile's, any other activation over each row.
void WriteProductBlock(const float* pr, int64_t ld, int64_t p0, int64_t rows, int64_t c0, int64_t c1, int64_t n,
                       const RowEpilogue& ep, float* yg) {
  gemm_detail::TileEpilogue tile;
  const bool fused = gemm_detail::FusableEpilogue(ep, &tile);
  const auto transpose = gemm_detail::ActiveKernels().transpose_block;
  for (int64_t m0 = c0; m0 < c1; m0 += kNR) {
    const int64_t m1 = std::min(c1, m0 + kNR);
    const float* src = pr + (m0 - c0);
    float* dst = yg + m0 * n + p0;
    gemm_detail::TileEpilogue te = tile;
    if (te.bias) te.bias += m0;
    if (transpose) {
      // 16 × 16 blocks in registers, the bias and clamp applied on the way out.
      for (int64_t r = 0; r < rows; r += 16)
        transpose(src + r * ld, ld, std::min<int64_t>(16, rows - r), m1 - m0, dst + r, n, fused ? &te : nullptr);
    } else {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t m = m0; m < m1; ++m) dst[(m - m0) * n + r] = src[r * ld + (m - m0)];
      if (fused) gemm_detail::ApplyTileEpilogue(te, dst, n, m1 - m0, rows);
    }
    if (!fused && !ep.empty()) {  // an activation that is not a clamp, over each row
      RowEpilogue act = ep;
      if (act.bias) act.bias += m0;
      gemm_detail::ApplyRowEpilogue(act, dst, n, m1 - m0, rows);
    }
  }
}

// The product Yᵀ = im2col(X)ᵀ · Wᵀ (n positions × mg channels, row stride mg) with the A rows read
// in place from the channels-last input by kernels.block_direct: no A panels are packed.
// With yg, each task writes its block to yg's planes (WriteProductBlock, epilogue ep) as soon as
// it is done, from a scratch tile of its own that stays in cache, and `product` is not used.
void DirectProduct(const ChannelsLast& xl, int64_t cg, const Geo2& g, const PackedB& w, int64_t n, int64_t mg,
                   float* product, const RowEpilogue& ep, float* yg, ThreadPool* pool) {
  const auto& kernels = gemm_detail::ActiveKernels();
  thread_local std::vector<int64_t> rows, run_offset, run_count, first_run;
  rows.resize(size_t(n));
  for (int64_t p = 0; p < n; ++p) rows[size_t(p)] = ((p / g.ow) * g.sh * xl.wp + (p % g.ow) * g.sw) * cg;
  // The runs of each k block: one tap's channels (or the part of them inside the block).
  run_offset.clear();
  run_count.clear();
  first_run.clear();
  for (int64_t k0 = 0; k0 < w.k; k0 += w.kc) {
    first_run.push_back(int64_t(run_offset.size()));
    for (int64_t k = k0, end = std::min(w.k, k0 + w.kc); k < end;) {
      int64_t tap = k / cg, c = k % cg, count = std::min(end - k, cg - c);
      run_offset.push_back(((tap / g.kw) * g.dh * xl.wp + (tap % g.kw) * g.dw) * cg + c);
      run_count.push_back(count);
      k += count;
    }
  }
  first_run.push_back(int64_t(run_offset.size()));
  int64_t n_padded = PadTo(mg, kNR);
  // Whole six-position tiles, channel blocks of at least 64 (one direct tile).
  const int threads = pool ? pool->size() : 1;
  const gemm_detail::TaskBlocks tasks = gemm_detail::SplitForThreads(n, mg, threads, kMR, 4 * kNR);
  // With one block of positions (a small plane) and several threads, each thread takes one
  // channel block of whole 16-channel panels, as even as they divide: blocks of 64 with the
  // remainder last gave one thread 256 of 400 channels (RegNetX's 7x7 pointwise convs ran only
  // 1.4x faster at 2 threads than at 1). Otherwise blocks of nc, whose 64-column tiles are the
  // kernel's fastest.
  const int64_t panels = (mg + kNR - 1) / kNR;
  const bool per_thread = threads > 1 && tasks.m_blocks == 1;
  const int64_t n_blocks = per_thread ? std::min<int64_t>(panels, threads) : tasks.n_blocks;
  const int64_t mc = tasks.mc, nc = per_thread ? (panels + n_blocks - 1) / n_blocks * kNR : tasks.nc;
  auto block_start = [per_thread, panels, n_blocks, nc](int64_t jb) {
    return per_thread ? gemm_detail::EvenPanelBlockStart(jb, panels, n_blocks) : jb * nc;
  };
  // Plain pointers for the lambda: a thread_local named inside it is the running thread's own.
  const int64_t* row_at = rows.data();
  const int64_t* run_at = run_offset.data();
  const int64_t* count_at = run_count.data();
  const int64_t* first_at = first_run.data();
  // Position blocks in order, one contiguous run per thread: the rows CopyChannelsLast wrote on
  // the same thread (ParallelForContiguous), and the columns of yg's planes the next convolution's
  // CopyChannelsLast will read there.
  ParallelForContiguous(pool, tasks.m_blocks * n_blocks, 1, [&](int64_t t0, int64_t t1) {
    thread_local std::vector<float> tile;
    if (yg != nullptr && tile.size() < size_t(mc * nc)) tile.resize(size_t(mc * nc));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t i0 = (t / n_blocks) * mc, j0 = block_start(t % n_blocks);
      const int64_t mh = std::min(mc, n - i0), nw = std::min(block_start(t % n_blocks + 1), mg) - j0;
      float* c = yg != nullptr ? tile.data() : product + i0 * mg + j0;
      const int64_t ldc = yg != nullptr ? nc : mg;
      int64_t block = 0;
      for (int64_t k0 = 0; k0 < w.k; k0 += w.kc, ++block) {
        int64_t kc = std::min(w.kc, w.k - k0);
        gemm_detail::DirectRows a;
        a.x = xl.data;
        a.row_offset = row_at + i0;
        a.run_offset = run_at + first_at[block];
        a.run_count = count_at + first_at[block];
        a.runs = first_at[block + 1] - first_at[block];
        const float* bp = w.data.data() + k0 * n_padded + (j0 / kNR) * kc * kNR;
        kernels.block_direct(a, mh, bp, kc, nw, c, ldc, k0 > 0);
      }
      if (yg != nullptr) WriteProductBlock(c, ldc, i0, mh, j0, j0 + nw, n, ep, yg);
    }
  });
}

// The whole product (n positions × mg channels, row stride mg) → yg's planes, split by positions
// contiguously per thread, as DirectProduct and the next convolution's CopyChannelsLast split them.
void WriteChannelPlanes(const float* pr, int64_t n, int64_t mg, const RowEpilogue& ep, float* yg, ThreadPool* pool) {
  const int64_t position_blocks = (n + 15) / 16;
  ParallelForContiguous(pool, position_blocks, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, 16 * mg)), [&](int64_t q0, int64_t q1) {
    const int64_t p0 = 16 * q0, p1 = std::min(n, 16 * q1);
    WriteProductBlock(pr + p0 * mg, mg, p0, p1 - p0, 0, mg, n, ep, yg);
  });
}

// Pool2x2RowKernel's portable loop: the epilogue as ApplyTileEpilogue applies it, the maximum as
// pool.cc's portable row takes it.
void Pool2x2RowPortable(const float* top, const float* bottom, int64_t ld, int64_t cols, int64_t channels,
                        const gemm_detail::TileEpilogue* ep, float* dst) {
  for (int64_t q = 0; q < cols; ++q) {
    const float* window[4] = {top + 2 * q * ld, top + (2 * q + 1) * ld, bottom + 2 * q * ld, bottom + (2 * q + 1) * ld};
    for (int64_t c = 0; c < channels; ++c) {
      float m = -std::numeric_limits<float>::infinity();
      for (const float* position : window) {
        float x = position[c];
        if (ep) x = gemm_detail::ClampValue(*ep, ep->bias ? x + ep->bias[c] : x);
        m = x > m ? x : m;
      }
      dst[q * channels + c] = m;
    }
  }
}

// The product (g.oh · g.ow positions × mg channels) pooled 2×2 with stride 2 into `pooled`
// ((g.oh / 2) · (g.ow / 2) positions × mg), the epilogue applied to each position first.
void PoolProduct(const float* pr, const Geo2& g, int64_t mg, const gemm_detail::TileEpilogue* ep, float* pooled, ThreadPool* pool) {
  const int64_t ph = g.oh / 2, pw = g.ow / 2, row = g.ow * mg;
  const gemm_detail::Pool2x2RowKernel pool_row =
      gemm_detail::ActiveKernels().pool_2x2_row ? gemm_detail::ActiveKernels().pool_2x2_row : Pool2x2RowPortable;
  ParallelForOrInline(pool, ph, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, 4 * pw * mg)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) pool_row(pr + 2 * r * row, pr + (2 * r + 1) * row, mg, pw, mg, ep, pooled + r * pw * mg);
  });
}

}  // namespace

void SmallPlaneConv(const float* xg, int64_t cg, int64_t mg, const Geo2& g, const PackedB& w, const RowEpilogue& ep,
                    bool pool_2x2, float* yg, ThreadPool* pool) {
  thread_local std::vector<float> channels_last, panels, product, pooled;
  int64_t n = g.oh * g.ow, k = w.k, kc = w.kc, n_padded = PadTo(n, kMR);
  ChannelsLast xl;
  xl.hp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  xl.wp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  if (channels_last.size() < size_t(xl.hp * xl.wp * cg)) channels_last.resize(size_t(xl.hp * xl.wp * cg));
  // Plain pointers for the lambdas: a thread_local named inside one is the running thread's own.
  float* cl = channels_last.data();
  xl.data = cl;
  // Split finer than kParallelGrain: the product after it keeps every thread busy anyway, and
  // RegNetX's 400 channels at 7x7 (20k floats) left the copy to one thread while the other waited.
  ParallelForContiguous(pool, xl.hp, std::max<int64_t>(1, kParallelGrain / 8 / std::max<int64_t>(1, xl.wp * cg)), [&](int64_t r0, int64_t r1) {
    CopyChannelsLast(xg, cg, g, xl, cl, r0, r1);
  });
  const bool direct = gemm_detail::ActiveKernels().block_direct != nullptr;
  if (direct && !pool_2x2) return DirectProduct(xl, cg, g, w, n, mg, nullptr, ep, yg, pool);
  // 16 floats of slack so the product starts on a cache line: threads write column blocks of its
  // rows, and a line shared across a block edge would bounce between them on every k slice.
  if (product.size() < size_t(n * mg + 16)) product.resize(size_t(n * mg + 16));
  float* pr_out = product.data() + (16 - (reinterpret_cast<uintptr_t>(product.data()) / sizeof(float)) % 16) % 16;
  if (direct) {
    DirectProduct(xl, cg, g, w, n, mg, pr_out, RowEpilogue{}, nullptr, pool);
  } else {
    if (panels.size() < size_t(k * n_padded)) panels.resize(size_t(k * n_padded));
    float* pa = panels.data();
    int64_t panel_count = n_padded / kMR;
    ParallelForOrInline(pool, panel_count, 1, [&](int64_t i0, int64_t i1) {
      for (int64_t k0 = 0; k0 < k; k0 += kc) {
        int64_t kb = std::min(kc, k - k0);
        for (int64_t i = i0; i < i1; ++i) PackPositions(xl, cg, g, i * kMR, n, k0, kb, pa + k0 * n_padded + i * kb * kMR);
      }
    });
    SgemmPrepackedPanels(pa, n, k, kc, mg, w.data.data(), pr_out, mg, RowEpilogue{}, pool);
  }
  if (!pool_2x2) return WriteChannelPlanes(pr_out, n, mg, ep, yg, pool);
  // Pooled before the write-back, which then moves a quarter of the data: the epilogue (bias and
  // clamp only: ConvKernel takes a MaxPool only after those) goes with the pooling.
  gemm_detail::TileEpilogue tile;
  const bool fused = gemm_detail::FusableEpilogue(ep, &tile);
  const int64_t pn = (g.oh / 2) * (g.ow / 2);
  if (pooled.size() < size_t(pn * mg)) pooled.resize(size_t(pn * mg));
  float* po = pooled.data();
  PoolProduct(pr_out, g, mg, fused ? &tile : nullptr, po, pool);
  WriteChannelPlanes(po, pn, mg, RowEpilogue{}, yg, pool);
}

}  // namespace gebe::cpu
