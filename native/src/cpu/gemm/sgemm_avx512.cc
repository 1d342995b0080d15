// The AVX-512 (F/BW/DQ/VL) kernels: tiles of up to 12 rows × 32 columns (two A panels × two B
// panels of the shared layout, 24 zmm accumulators), every row count 1..12 its own unrolled tile
// and column edges stored through masks, so no edge goes through a scratch tile. Compiled with
// per-function target attributes (not -mavx512f) and used only when ActiveIsa() is avx512.
#include "cpu/gemm/sgemm_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <algorithm>

// GCC 12 implements _mm512_undefined_ps as a self-initialised variable, which -Wuninitialized reports.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GEBE_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

namespace gebe::cpu::gemm_detail {

namespace {

enum class BSource { kPacked, kStrided, kIndirect };

// Mask of the first n (0..16) lanes.
GEBE_AVX512 inline __mmask16 FirstLanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << unsigned(n)) - 1u);
}

// R rows (1..12: panel 0 holds rows 0..5, panel 1 rows 6..11, a_stride floats later) × V zmm
// column vectors of 16 (0..2), then with kHalf one ymm vector of 8: an edge of at most 8 columns
// costs half a zmm FMA per row (on CPUs that split 512-bit work in two, exactly half). The last
// vector is loaded and stored through `last`. B: kPacked, columns 16·v.. at b + v·b_stride (the
// next panel) with rows kNR apart; kStrided, rows b_stride apart; kIndirect, row q at b + offs[q].
template <int R, int V, bool kHalf, BSource S>
GEBE_AVX512 __attribute__((always_inline)) inline void Tile(int64_t kc, const float* a, int64_t a_stride,
                                                            const float* b, int64_t b_stride, const int64_t* offs,
                                                            float* c, int64_t ldc, __mmask16 last, bool accumulate,
                                                            const TileEpilogue* ep) {
  constexpr int VZ = V > 0 ? V : 1;  // array extent (unused when V == 0)
  __m512 acc[R][VZ];
  __m256 acc_half[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
    if (kHalf) acc_half[r] = _mm256_setzero_ps();
  }
  const float* a0 = a;
  const float* a1 = a + a_stride;
  for (int64_t q = 0; q < kc; ++q) {
    const float* bq = S == BSource::kPacked ? b + q * kNR : S == BSource::kStrided ? b + q * b_stride : b + offs[q];
    __m512 bv[VZ];
    __m256 bh = _mm256_setzero_ps();
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) bv[v] = _mm512_loadu_ps(S == BSource::kPacked ? bq + v * b_stride : bq + 16 * v);
    if (kHalf) bh = _mm256_loadu_ps(S == BSource::kPacked ? bq + V * b_stride : bq + 16 * V);
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
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    float* row = c + r * ldc;
    const float bias = ep && ep->bias ? ep->bias[r] : 0.f;
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      __mmask16 m = v == V - 1 && !kHalf ? last : __mmask16(0xFFFF);
      __m512 x = acc[r][v];
      if (accumulate) x = _mm512_add_ps(_mm512_maskz_loadu_ps(m, row + 16 * v), x);
      if (ep) {
        x = _mm512_add_ps(x, _mm512_set1_ps(bias));
        // Relu: x > lo ? x : lo (NaN gives lo), as the Relu pass does. Clip: min(max(x, lo), hi)
        // with NaN kept, as std::min/std::max in the Clip pass.
        if (relu) x = _mm512_max_ps(x, _mm512_set1_ps(lo));
        else if (clip) x = _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), x));
      }
      _mm512_mask_storeu_ps(row + 16 * v, m, x);
    }
    if (kHalf) {
      __mmask8 m = __mmask8(last);
      __m256 x = acc_half[r];
      if (accumulate) x = _mm256_add_ps(_mm256_maskz_loadu_ps(m, row + 16 * V), x);
      if (ep) {
        x = _mm256_add_ps(x, _mm256_set1_ps(bias));
        if (relu) x = _mm256_max_ps(x, _mm256_set1_ps(lo));
        else if (clip) x = _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), x));
      }
      _mm256_mask_storeu_ps(row + 16 * V, m, x);
    }
  }
}

template <int V, bool kHalf, BSource S>
GEBE_AVX512 void TileRows(int64_t h, int64_t kc, const float* a, int64_t a_stride, const float* b, int64_t b_stride,
                          const int64_t* offs, float* c, int64_t ldc, __mmask16 last, bool accumulate,
                          const TileEpilogue* ep) {
  switch (h) {
#define GEBE_TILE_CASE(R) \
  case R: return Tile<R, V, kHalf, S>(kc, a, a_stride, b, b_stride, offs, c, ldc, last, accumulate, ep);
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
  if (w > 24) TileRows<2, false, S>(h, kc, a, a_stride, b, b_stride, offs, c, ldc, last, accumulate, ep);
  else if (w > 16) TileRows<1, true, S>(h, kc, a, a_stride, b, b_stride, offs, c, ldc, last, accumulate, ep);
  else if (w > 8) TileRows<1, false, S>(h, kc, a, a_stride, b, b_stride, offs, c, ldc, last, accumulate, ep);
  else TileRows<0, true, S>(h, kc, a, a_stride, b, b_stride, offs, c, ldc, last, accumulate, ep);
}

// Rows outer (12 at a time: their A panels stay in L1 while B streams past), 32 columns inner.
template <BSource S>
GEBE_AVX512 void Block(int64_t kc, const float* a, int64_t mh, const float* b, int64_t ldb, const int64_t* offs,
                       int64_t nw, float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  const int64_t a_stride = kc * kMR, panel = kc * kNR;
  for (int64_t i = 0; i < mh; i += 2 * kMR) {
    int64_t h = std::min<int64_t>(2 * kMR, mh - i);
    const float* ai = a + (i / kMR) * a_stride;
    TileEpilogue te;
    if (ep) {
      te = *ep;
      if (te.bias) te.bias += i;
    }
    const TileEpilogue* tep = ep ? &te : nullptr;
    for (int64_t j = 0; j < nw; j += 2 * kNR) {
      int64_t w = std::min<int64_t>(2 * kNR, nw - j);
      const float* bj = S == BSource::kPacked ? b + (j / kNR) * panel : b + j;
      int64_t bs = S == BSource::kPacked ? panel : ldb;
      float* cp = c + i * ldc + j;
      TileColumns<S>(w, h, kc, ai, a_stride, bj, bs, offs, cp, ldc, accumulate, tep);
    }
  }
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

}  // namespace

const Kernels* Avx512Kernels() {
  static const Kernels k = [] {
    Kernels t;
    t.isa = "avx512";
    t.block = PackedBlock;
    t.block_strided = StridedBlock;
    t.block_indirect = IndirectBlock;
    t.dot = Dot;
    t.panel_rows = PanelRows;
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
