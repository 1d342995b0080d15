// The AVX-512 (F/BW/DQ/VL) kernels: tiles of up to 12 rows × 32 columns (two A panels × two B
// panels of the shared layout, 24 zmm accumulators), every row count 1..12 its own unrolled tile
// and column edges stored through masks, so no edge goes through a scratch tile. Compiled with
// per-function target attributes (not -mavx512f) and used only when ActiveIsa() is avx512.
#include "cpu/gemm/sgemm_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include "cpu/avx512_lanes.h"

#include <algorithm>
#include <cstring>
#include <limits>

// GCC 12 implements _mm512_undefined_ps as a self-initialised variable, which -Wuninitialized reports.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GEBE_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

namespace gebe::cpu::gemm_detail {

namespace {

// kCompact: implicit im2col over a convolution's output plane with no throw-away columns; each
// vector of B is assembled from one or two output rows (CompactVector). kCompactRow: a tile whose
// vectors are all 16 positions of one row, one plain load apiece (masked loads cost more even
// under a full or an empty mask: on the 112-wide ResNet stem, where every vector is such, two
// masked loads made the layer 8% slower than the wide rows, one 3%).
enum class BSource { kPacked, kStrided, kIndirect, kCompact, kCompactRow };

// One vector of 16 output positions of a plane at least 16 wide: lanes m1 from one output row
// (input offset o1 for lane 0), the rest, m2, from the next (o2 + lane). Masked-off lanes are not
// read, so nothing outside the two rows is touched.
struct CompactVector {
  int64_t o1 = 0, o2 = 0;
  __mmask16 m1 = 0, m2 = 0;
};

using avx512::FirstLanes;

// The epilogue on one vector: bias, then Relu as x > lo ? x : lo (NaN gives lo, as the Relu pass
// does) or Clip as min(max(x, lo), hi) with NaN kept (std::min/std::max in the Clip pass).
// EpilogueLanes takes one bias per lane (a channels-last row), EpilogueVector one for all lanes.
GEBE_AVX512 __attribute__((always_inline)) inline __m512 EpilogueClamp(__m512 x, const TileEpilogue& ep) {
  if (ep.clamp == TileEpilogue::kRelu) return _mm512_max_ps(x, _mm512_set1_ps(ep.lo));
  if (ep.clamp == TileEpilogue::kClip) return _mm512_min_ps(_mm512_set1_ps(ep.hi), _mm512_max_ps(_mm512_set1_ps(ep.lo), x));
  return x;
}

GEBE_AVX512 __attribute__((always_inline)) inline __m512 EpilogueLanes(__m512 x, __m512 bias, const TileEpilogue& ep) {
  return EpilogueClamp(_mm512_add_ps(x, bias), ep);
}

// The residual value of the output at `out` (TileEpilogue::residual_bytes: another allocation, so
// the distance is taken between addresses).
inline const float* ResidualOf(const float* out, std::uintptr_t residual_bytes) {
  return reinterpret_cast<const float*>(reinterpret_cast<std::uintptr_t>(out) + residual_bytes);
}

GEBE_AVX512 __attribute__((always_inline)) inline __m512 EpilogueVector(__m512 x, float bias, const TileEpilogue& ep) {
  return EpilogueLanes(x, _mm512_set1_ps(bias), ep);
}

// Packed B panels are streamed once per row group of A; prefetching four k steps ahead into L1
// keeps their loads off the L2 latency (a 1024³ MatMul on Ice Lake-SP: 95 → 115 GFLOP/s).
constexpr int64_t kPrefetchAhead = 4 * kNR;

// R rows (1..12: panel 0 holds rows 0..5, panel 1 rows 6..11, a_stride floats later) × V zmm
// column vectors of 16 (0..2), then with kHalf one ymm vector of 8: an edge of at most 8 columns
// costs half a zmm FMA per row (on CPUs that split 512-bit work in two, exactly half). The last
// vector is loaded and stored through `last`. B: kPacked, columns 16·v.. at b + v·b_stride (the
// next panel) with rows kNR apart; kStrided, rows b_stride apart; kIndirect, row q at b + offs[q];
// kCompact, row q of vector v at b + offs[q] through cv[v].
template <int R, int V, bool kHalf, BSource S>
GEBE_AVX512 __attribute__((always_inline)) inline void Tile(int64_t kc, const float* a, int64_t a_stride,
                                                            const float* b, int64_t b_stride, const int64_t* offs,
                                                            const CompactVector* cv, float* c, int64_t ldc,
                                                            __mmask16 last, bool accumulate, const TileEpilogue* ep) {
  constexpr int VZ = V > 0 ? V : 1;  // array extent (unused when V == 0)
  __m512 acc[R][VZ];
  __m256 acc_half[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
    if (kHalf) acc_half[r] = _mm256_setzero_ps();
  }
  if (ep && ep->residual) {
    // The residual was written layers ago: its lines are requested now and arrive while the
    // products run, instead of stalling the stores after them.
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
      for (int v = 0; v < V + (kHalf ? 1 : 0); ++v)
        _mm_prefetch(reinterpret_cast<const char*>(ResidualOf(c + r * ldc + 16 * v, ep->residual_bytes)), _MM_HINT_T0);
  }
  const float* a0 = a;
  const float* a1 = a + a_stride;
  for (int64_t q = 0; q < kc; ++q) {
    const float* bq = S == BSource::kPacked ? b + q * kNR : S == BSource::kStrided ? b + q * b_stride : b + offs[q];
    __m512 bv[VZ];
    __m256 bh = _mm256_setzero_ps();
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      if (S == BSource::kCompact) {
        bv[v] = _mm512_mask_loadu_ps(_mm512_maskz_loadu_ps(cv[v].m1, bq + cv[v].o1), cv[v].m2, bq + cv[v].o2);
      } else if (S == BSource::kCompactRow) {
        bv[v] = _mm512_loadu_ps(bq + cv[v].o1);
      } else {
        bv[v] = _mm512_loadu_ps(S == BSource::kPacked ? bq + v * b_stride : bq + 16 * v);
      }
    }
    if (kHalf) bh = _mm256_loadu_ps(S == BSource::kPacked ? bq + V * b_stride : bq + 16 * V);
    if (S == BSource::kPacked) {
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) _mm_prefetch(reinterpret_cast<const char*>(bq + v * b_stride + kPrefetchAhead), _MM_HINT_T0);
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const float* ar = r < kMR ? a0 + r : a1 + (r - kMR);
      __m512 av = _mm512_set1_ps(*ar);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
      if (kHalf) acc_half[r] = _mm256_fmadd_ps(_mm512_castps512_ps256(av), bh, acc_half[r]);
    }
    a0 += kMR;
    a1 += kMR;
  }
  const bool relu = ep && ep->clamp == TileEpilogue::kRelu, clip = ep && ep->clamp == TileEpilogue::kClip;
  const float lo = ep ? ep->lo : 0.f, hi = ep ? ep->hi : 0.f;
  const bool residual = ep && ep->residual;
  // RowEpilogue's order per value: bias (none added when absent: +0 would turn -0 into +0), the
  // residual, the clamp.
  const bool bias_first = residual && ep->bias;
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    float* row = c + r * ldc;
    const float bias = ep && ep->bias ? ep->bias[r] : 0.f;
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      __mmask16 m = v == V - 1 && !kHalf ? last : __mmask16(0xFFFF);
      __m512 x = acc[r][v];
      if (accumulate) x = _mm512_add_ps(_mm512_maskz_loadu_ps(m, row + 16 * v), x);
      if (residual) {
        if (bias_first) x = _mm512_add_ps(x, _mm512_set1_ps(bias));
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, ResidualOf(row + 16 * v, ep->residual_bytes)));
        x = EpilogueClamp(x, *ep);
      } else if (ep) {
        x = EpilogueVector(x, bias, *ep);
      }
      _mm512_mask_storeu_ps(row + 16 * v, m, x);
    }
    if (kHalf) {
      __mmask8 m = __mmask8(last);
      __m256 x = acc_half[r];
      if (accumulate) x = _mm256_add_ps(_mm256_maskz_loadu_ps(m, row + 16 * V), x);
      if (ep) {  // EpilogueVector's steps on the ymm half
        if (!residual || bias_first) x = _mm256_add_ps(x, _mm256_set1_ps(bias));
        if (residual) x = _mm256_add_ps(x, _mm256_maskz_loadu_ps(m, ResidualOf(row + 16 * V, ep->residual_bytes)));
        if (relu) x = _mm256_max_ps(x, _mm256_set1_ps(lo));
        else if (clip) x = _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), x));
      }
      _mm256_mask_storeu_ps(row + 16 * V, m, x);
    }
  }
}

template <int V, bool kHalf, BSource S>
GEBE_AVX512 void TileRows(int64_t h, int64_t kc, const float* a, int64_t a_stride, const float* b, int64_t b_stride,
                          const int64_t* offs, const CompactVector* cv, float* c, int64_t ldc, __mmask16 last,
                          bool accumulate, const TileEpilogue* ep) {
  switch (h) {
#define GEBE_TILE_CASE(R) \
  case R: return Tile<R, V, kHalf, S>(kc, a, a_stride, b, b_stride, offs, cv, c, ldc, last, accumulate, ep);
    GEBE_TILE_CASE(1) GEBE_TILE_CASE(2) GEBE_TILE_CASE(3) GEBE_TILE_CASE(4) GEBE_TILE_CASE(5) GEBE_TILE_CASE(6)
    GEBE_TILE_CASE(7) GEBE_TILE_CASE(8) GEBE_TILE_CASE(9) GEBE_TILE_CASE(10) GEBE_TILE_CASE(11) GEBE_TILE_CASE(12)
#undef GEBE_TILE_CASE
    default: return;
  }
}

// The tile for w (1..32) columns: whole zmm vectors, the last one masked, or a ymm for the last ≤ 8.
template <BSource S>
GEBE_AVX512 inline void TileColumns(int64_t w, int64_t h, int64_t kc, const float* a, int64_t a_stride, const float* b,
                                    int64_t b_stride, const int64_t* offs, float* c, int64_t ldc, bool accumulate,
                                    const TileEpilogue* ep) {
  __mmask16 last = FirstLanes(w > kNR ? w - kNR : w);
  if (w > 24) TileRows<2, false, S>(h, kc, a, a_stride, b, b_stride, offs, nullptr, c, ldc, last, accumulate, ep);
  else if (w > 16) TileRows<1, true, S>(h, kc, a, a_stride, b, b_stride, offs, nullptr, c, ldc, last, accumulate, ep);
  else if (w > 8) TileRows<1, false, S>(h, kc, a, a_stride, b, b_stride, offs, nullptr, c, ldc, last, accumulate, ep);
  else TileRows<0, true, S>(h, kc, a, a_stride, b, b_stride, offs, nullptr, c, ldc, last, accumulate, ep);
}

// Rows outer (12 at a time: their A panels stay in L1 while B streams past), 32 columns inner:
// tile(h, a of the row group, j, w, the group's epilogue: bias from its first row) per tile.
template <typename TileFn>
GEBE_AVX512 __attribute__((always_inline)) inline void ForEachTile(int64_t kc, const float* a, int64_t mh, int64_t nw,
                                                                   const TileEpilogue* ep, TileFn&& tile) {
  const int64_t a_stride = kc * kMR;
  for (int64_t i = 0; i < mh; i += 2 * kMR) {
    TileEpilogue te;
    if (ep) {
      te = *ep;
      if (te.bias) te.bias += i;
    }
    for (int64_t j = 0; j < nw; j += 2 * kNR)
      tile(std::min<int64_t>(2 * kMR, mh - i), a + (i / kMR) * a_stride, i, j, std::min<int64_t>(2 * kNR, nw - j),
           ep ? &te : nullptr);
  }
}

template <BSource S>
GEBE_AVX512 void Block(int64_t kc, const float* a, int64_t mh, const float* b, int64_t ldb, const int64_t* offs,
                       int64_t nw, float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  const int64_t a_stride = kc * kMR, panel = kc * kNR;
  auto each = [&](int64_t h, const float* ai, int64_t i, int64_t j, int64_t w, const TileEpilogue* tep) GEBE_AVX512 {
    const float* bj = S == BSource::kPacked ? b + (j / kNR) * panel : b + j;
    int64_t bs = S == BSource::kPacked ? panel : ldb;
    TileColumns<S>(w, h, kc, ai, a_stride, bj, bs, offs, c + i * ldc + j, ldc, accumulate, tep);
  };
  ForEachTile(kc, a, mh, nw, ep, each);
}

GEBE_AVX512 void PackedBlock(int64_t kc, const float* a, int64_t mh, const float* b, int64_t nw, float* c, int64_t ldc,
                             bool accumulate, const TileEpilogue* ep) {
  Block<BSource::kPacked>(kc, a, mh, b, 0, nullptr, nw, c, ldc, accumulate, ep);
}

GEBE_AVX512 void StridedBlock(int64_t kc, const float* a, int64_t mh, const float* b, int64_t ldb, int64_t nw, float* c,
                              int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  Block<BSource::kStrided>(kc, a, mh, b, ldb, nullptr, nw, c, ldc, accumulate, ep);
}

GEBE_AVX512 void IndirectBlock(int64_t kc, const float* a, int64_t mh, const float* b, const int64_t* offs, int64_t nw,
                               float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  Block<BSource::kIndirect>(kc, a, mh, b, 0, offs, nw, c, ldc, accumulate, ep);
}

// Output position f of a plane `width` wide (row f / width), up to 16 of them (n) from f on.
GEBE_AVX512 inline CompactVector CompactAt(int64_t f, int64_t n, int64_t width, int64_t row_stride) {
  int64_t row = f / width, col = f % width, first = std::min(n, width - col);
  CompactVector v;
  v.o1 = row * row_stride + col;
  v.o2 = (row + 1) * row_stride - first;
  v.m1 = FirstLanes(first);
  v.m2 = __mmask16(FirstLanes(n) & ~v.m1);
  return v;
}

// Tiles as in Block; each tile's vectors are worked out from its output positions.
GEBE_AVX512 void CompactBlock(int64_t kc, const float* a, int64_t mh, const float* x, const int64_t* offs, int64_t j0,
                              int64_t nw, int64_t width, int64_t row_stride, float* c, int64_t ldc, bool accumulate,
                              const TileEpilogue* ep) {
  const int64_t a_stride = kc * kMR;
  auto each = [&](int64_t h, const float* ai, int64_t i, int64_t j, int64_t w, const TileEpilogue* tep) GEBE_AVX512 {
    CompactVector cv[2];
    bool two = w > kNR;
    cv[0] = CompactAt(j0 + j, std::min<int64_t>(kNR, w), width, row_stride);
    if (two) cv[1] = CompactAt(j0 + j + kNR, w - kNR, width, row_stride);
    bool one_row = cv[0].m1 == 0xFFFF && (!two || cv[1].m1 == 0xFFFF);
    __mmask16 last = two ? __mmask16(cv[1].m1 | cv[1].m2) : __mmask16(cv[0].m1 | cv[0].m2);
    auto tile = two ? (one_row ? TileRows<2, false, BSource::kCompactRow> : TileRows<2, false, BSource::kCompact>)
                    : (one_row ? TileRows<1, false, BSource::kCompactRow> : TileRows<1, false, BSource::kCompact>);
    tile(h, kc, ai, a_stride, x, 0, offs, cv, c + i * ldc + j, ldc, last, accumulate, tep);
  };
  ForEachTile(kc, a, mh, nw, ep, each);
}

// The direct tile: R (1..6) output positions × V (1..4) vectors of 16 output channels. Per k step
// R broadcasts and V aligned panel loads feed R·V FMAs; a 6 × 64 tile issues 10 loads for its 24
// FMAs where the packed kernel's 12 × 32 issues 14, which on cores with two 512-bit FMA ports
// (Ice Lake-SP) is what limits the packed kernel.
template <int R, int V>
GEBE_AVX512 __attribute__((always_inline)) inline void DirectTile(const DirectRows& a, const int64_t* rows,
                                                                  const float* b, int64_t b_stride, float* c,
                                                                  int64_t ldc, __mmask16 last, bool accumulate) {
  __m512 acc[R][V];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  const float* x[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) x[r] = a.x + rows[r];
  for (int64_t t = 0; t < a.runs; ++t) {
    const int64_t off = a.run_offset[t], count = a.run_count[t];
    for (int64_t q = 0; q < count; ++q, b += kNR) {
      __m512 bv[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        bv[v] = _mm512_loadu_ps(b + v * b_stride);
        _mm_prefetch(reinterpret_cast<const char*>(b + v * b_stride + kPrefetchAhead), _MM_HINT_T0);
      }
#pragma GCC unroll 6
      for (int r = 0; r < R; ++r) {
        __m512 av = _mm512_set1_ps(x[r][off + q]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    float* row = c + r * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      __mmask16 m = v == V - 1 ? last : __mmask16(0xFFFF);
      __m512 y = acc[r][v];
      if (accumulate) y = _mm512_add_ps(_mm512_maskz_loadu_ps(m, row + 16 * v), y);
      _mm512_mask_storeu_ps(row + 16 * v, m, y);
    }
  }
}

template <int V>
GEBE_AVX512 void DirectTileRows(int64_t h, const DirectRows& a, const int64_t* rows, const float* b, int64_t b_stride,
                                float* c, int64_t ldc, __mmask16 last, bool accumulate) {
  switch (h) {
#define GEBE_DIRECT_CASE(R) \
  case R: return DirectTile<R, V>(a, rows, b, b_stride, c, ldc, last, accumulate);
    GEBE_DIRECT_CASE(1) GEBE_DIRECT_CASE(2) GEBE_DIRECT_CASE(3) GEBE_DIRECT_CASE(4) GEBE_DIRECT_CASE(5)
    GEBE_DIRECT_CASE(6)
#undef GEBE_DIRECT_CASE
    default: return;
  }
}

// Rows outer (up to six positions: their input runs stay in L1 while the weight panels stream
// past), 64 channels inner. The rows are spread evenly over the tiles (49 positions: 5 × 5 + 4 × 6,
// not 8 × 6 + 1), because a one-row tile streams all of B for a sixth of the work.
GEBE_AVX512 void DirectBlock(const DirectRows& a, int64_t mh, const float* b, int64_t kc, int64_t nw, float* c,
                             int64_t ldc, bool accumulate) {
  constexpr int64_t kRows = kMR, kCols = 4 * kNR;
  const int64_t panel = kc * kNR, tiles = (mh + kRows - 1) / kRows;
  for (int64_t i = 0, t = 0; i < mh; i += (mh - i + tiles - t - 1) / (tiles - t), ++t) {
    int64_t h = (mh - i + tiles - t - 1) / (tiles - t);
    for (int64_t j = 0; j < nw; j += kCols) {
      int64_t w = std::min(kCols, nw - j), vectors = (w + kNR - 1) / kNR;
      __mmask16 last = FirstLanes(w - (vectors - 1) * kNR);
      const float* bj = b + (j / kNR) * panel;
      float* cij = c + i * ldc + j;
      const int64_t* rows = a.row_offset + i;
      switch (vectors) {
        case 1: DirectTileRows<1>(h, a, rows, bj, panel, cij, ldc, last, accumulate); break;
        case 2: DirectTileRows<2>(h, a, rows, bj, panel, cij, ldc, last, accumulate); break;
        case 3: DirectTileRows<3>(h, a, rows, bj, panel, cij, ldc, last, accumulate); break;
        default: DirectTileRows<4>(h, a, rows, bj, panel, cij, ldc, last, accumulate); break;
      }
    }
  }
}

// 16 × 16 in registers (Transpose16), the epilogue on each row on the way out.
GEBE_AVX512 void TransposeBlock(const float* src, int64_t ld_src, int64_t rows, int64_t cols, float* dst,
                                int64_t ld_dst, const TileEpilogue* ep) {
  __m512 r[16];
  const __mmask16 col_mask = FirstLanes(cols), row_mask = FirstLanes(rows);
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) r[i] = i < rows ? _mm512_maskz_loadu_ps(col_mask, src + i * ld_src) : _mm512_setzero_ps();
  avx512::Transpose16(r);
  for (int64_t j = 0; j < cols; ++j) {
    __m512 x = ep ? EpilogueVector(r[j], ep->bias ? ep->bias[j] : 0.f, *ep) : r[j];
    _mm512_mask_storeu_ps(dst + j * ld_dst, row_mask, x);
  }
}

// 16 channels a step; the four positions' vectors through EpilogueLanes, then vmaxps(v, m) from
// -inf in MaxPool's order (top 2q, top 2q + 1, bottom 2q, bottom 2q + 1), as Max2x2Stride2 of
// pool_avx512.cc takes them from the written planes.
GEBE_AVX512 void Pool2x2Row(const float* top, const float* bottom, int64_t ld, int64_t cols, int64_t channels,
                            const TileEpilogue* ep, float* dst) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t c = 0; c < channels; c += 16) {
    const __mmask16 m = FirstLanes(channels - c);
    // EpilogueVector adds its bias even when there is none (0.f), so this does too.
    const __m512 bias = ep && ep->bias ? _mm512_maskz_loadu_ps(m, ep->bias + c) : _mm512_setzero_ps();
    for (int64_t q = 0; q < cols; ++q) {
      const float* t = top + 2 * q * ld + c;
      const float* b = bottom + 2 * q * ld + c;
      __m512 v[4] = {_mm512_maskz_loadu_ps(m, t), _mm512_maskz_loadu_ps(m, t + ld), _mm512_maskz_loadu_ps(m, b),
                     _mm512_maskz_loadu_ps(m, b + ld)};
      __m512 out = lowest;
      for (__m512 x : v) out = _mm512_max_ps(ep ? EpilogueLanes(x, bias, *ep) : x, out);
      _mm512_mask_storeu_ps(dst + q * channels + c, m, out);
    }
  }
}

GEBE_AVX512 float Dot(const float* a, const float* b, int64_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps(), s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
    s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32), s2);
    s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48), s3);
  }
  for (; i < n; i += 16) {
    __mmask16 m = FirstLanes(n - i);
    s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s0);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

// M rows of A against one packed panel (one zmm per row); M is a template parameter so the
// accumulators stay in registers. Two k steps in flight per row so the FMAs do not wait on each other.
template <int M>
GEBE_AVX512 void PanelRowsM(int64_t kc, const float* a, int64_t a_row, int64_t a_col, const float* panel, float* acc) {
  __m512 c0[M], c1[M];
#pragma GCC unroll 5
  for (int i = 0; i < M; ++i) {
    c0[i] = _mm512_loadu_ps(acc + i * kNR);
    c1[i] = _mm512_setzero_ps();
  }
  int64_t q = 0;
  for (; q + 2 <= kc; q += 2) {
    __m512 b0 = _mm512_loadu_ps(panel + q * kNR), b1 = _mm512_loadu_ps(panel + (q + 1) * kNR);
#pragma GCC unroll 5
    for (int i = 0; i < M; ++i) {
      c0[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[i * a_row + q * a_col]), b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[i * a_row + (q + 1) * a_col]), b1, c1[i]);
    }
  }
  if (q < kc) {
    __m512 b0 = _mm512_loadu_ps(panel + q * kNR);
#pragma GCC unroll 5
    for (int i = 0; i < M; ++i) c0[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[i * a_row + q * a_col]), b0, c0[i]);
  }
#pragma GCC unroll 5
  for (int i = 0; i < M; ++i) _mm512_storeu_ps(acc + i * kNR, _mm512_add_ps(c0[i], c1[i]));
}

GEBE_AVX512 void PanelRows(int64_t m, int64_t kc, const float* a, int64_t a_row, int64_t a_col, const float* panel,
                           float* acc) {
  for (int64_t i = 0; i < m; i += 5) {
    const float* ai = a + i * a_row;
    float* ci = acc + i * kNR;
    switch (std::min<int64_t>(5, m - i)) {
      case 1: PanelRowsM<1>(kc, ai, a_row, a_col, panel, ci); break;
      case 2: PanelRowsM<2>(kc, ai, a_row, a_col, panel, ci); break;
      case 3: PanelRowsM<3>(kc, ai, a_row, a_col, panel, ci); break;
      case 4: PanelRowsM<4>(kc, ai, a_row, a_col, panel, ci); break;
      default: PanelRowsM<5>(kc, ai, a_row, a_col, panel, ci); break;
    }
  }
}

// One whole 6-row panel of A, 16 columns at a time: the six rows are paired (r0 r1 interleaved, r2 r3,
// r4 r5) so each k becomes three 64-bit pairs, then each output vector (eight pairs, k-major) takes
// its pairs from the first two pair streams in one two-source permute and from the third through a
// masked permute. 16 columns are 96 floats: three vectors from columns 0..7, three from 8..15.
GEBE_AVX512 void PackRowsA(int64_t kc, const float* a, int64_t lda, float alpha, float* out) {
  static_assert(kMR == 6, "the pair permutes below are for 6-row panels");
  const __m512i pair_lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i pair_hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  // Output pair e of vector v (0..2) is pair stream j = (8v + e) % 3 at column (8v + e) / 3.
  const __m512i from01[3] = {_mm512_setr_epi64(0, 8, 0, 1, 9, 0, 2, 10), _mm512_setr_epi64(0, 3, 11, 0, 4, 12, 0, 5),
                             _mm512_setr_epi64(13, 0, 6, 14, 0, 7, 15, 0)};
  const __m512i from2[3] = {_mm512_setr_epi64(0, 0, 0, 0, 0, 1, 0, 0), _mm512_setr_epi64(2, 0, 0, 3, 0, 0, 4, 0),
                            _mm512_setr_epi64(0, 5, 0, 0, 6, 0, 0, 7)};
  const __mmask8 stream2[3] = {0x24, 0x49, 0x92};
  const __m512 va = _mm512_set1_ps(alpha);
  auto pack16 = [&](__mmask16 lanes, float* dst) GEBE_AVX512 {
    __m512 r[kMR];
    for (int y = 0; y < kMR; ++y) r[y] = _mm512_mul_ps(_mm512_maskz_loadu_ps(lanes, a + y * lda), va);
    for (int half = 0; half < 2; ++half) {
      const __m512i idx = half ? pair_hi : pair_lo;
      __m512i p0 = _mm512_castps_si512(_mm512_permutex2var_ps(r[0], idx, r[1]));
      __m512i p1 = _mm512_castps_si512(_mm512_permutex2var_ps(r[2], idx, r[3]));
      __m512i p2 = _mm512_castps_si512(_mm512_permutex2var_ps(r[4], idx, r[5]));
      for (int v = 0; v < 3; ++v) {
        __m512i o = _mm512_permutex2var_epi64(p0, from01[v], p1);
        o = _mm512_mask_permutexvar_epi64(o, stream2[v], from2[v], p2);
        _mm512_storeu_si512(dst + (half * 3 + v) * 16, o);
      }
    }
  };
  int64_t q = 0;
  for (; q + 16 <= kc; q += 16, a += 16) pack16(0xFFFF, out + q * kMR);
  if (q < kc) {
    alignas(64) float tail[16 * kMR];
    pack16(FirstLanes(kc - q), tail);
    std::memcpy(out + q * kMR, tail, sizeof(float) * size_t((kc - q) * kMR));
  }
}

}  // namespace

const Kernels* Avx512Kernels() {
  static const Kernels k = [] {
    Kernels t;
    t.isa = "avx512";
    t.block = PackedBlock;
    t.block_strided = StridedBlock;
    t.block_indirect = IndirectBlock;
    t.block_compact = CompactBlock;
    t.block_direct = DirectBlock;
    t.transpose_block = TransposeBlock;
    t.pool_2x2_row = Pool2x2Row;
    t.dot = Dot;
    t.panel_rows = PanelRows;
    t.pack_rows_a = PackRowsA;
    t.tiles_add_residual = true;
    return t;
  }();
  return &k;
}

}  // namespace gebe::cpu::gemm_detail

#else

namespace gebe::cpu::gemm_detail {
const Kernels* Avx512Kernels() { return nullptr; }
}  // namespace gebe::cpu::gemm_detail

#endif
