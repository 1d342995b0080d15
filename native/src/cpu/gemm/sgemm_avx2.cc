// The AVX2+FMA kernels (6×16 tiles, 6×8 edges). Compiled with per-function target attributes
// (not -mavx2) so the rest of the addon stays baseline x86-64; only used when ActiveIsa() is avx2.
#include "cpu/gemm/sgemm_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <algorithm>

#include "cpu/gemm/tile_blocks.h"

namespace gebe::cpu::gemm_detail {

namespace {

// The 6×16 tile; with kEpi, the finished tile also gets its rows' bias and clamp (Relu/Clip)
// while still in registers, instead of in another pass over C.
// B rows are ldb floats apart (kNR in packed panels; the source row length when B is read in place).
// With kIndirect, row k of B is at b + offs[k] (an implicit im2col: offs are the kernel taps' input offsets).
template <bool kEpi, bool kIndirect = false>
__attribute__((target("avx2,fma"), always_inline)) inline void Tile6x16(int64_t kc, const float* a, const float* b,
                                                                       int64_t ldb, float* c, int64_t ldc,
                                                                       bool accumulate, const TileEpilogue* ep,
                                                                       const int64_t* offs = nullptr) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    const float* bk = kIndirect ? b + offs[k] : b;
    __m256 b0 = _mm256_loadu_ps(bk);
    __m256 b1 = _mm256_loadu_ps(bk + 8);
    __m256 av;
    av = _mm256_broadcast_ss(a + 0); c00 = _mm256_fmadd_ps(av, b0, c00); c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a + 1); c10 = _mm256_fmadd_ps(av, b0, c10); c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a + 2); c20 = _mm256_fmadd_ps(av, b0, c20); c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a + 3); c30 = _mm256_fmadd_ps(av, b0, c30); c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a + 4); c40 = _mm256_fmadd_ps(av, b0, c40); c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a + 5); c50 = _mm256_fmadd_ps(av, b0, c50); c51 = _mm256_fmadd_ps(av, b1, c51);
    a += kMR;
    if (!kIndirect) b += ldb;
  }
  __m256 rows[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  for (int i = 0; i < 6; ++i) {
    float* row = c + i * ldc;
    __m256 v0 = rows[i][0], v1 = rows[i][1];
    if (accumulate) {
      v0 = _mm256_add_ps(_mm256_loadu_ps(row), v0);
      v1 = _mm256_add_ps(_mm256_loadu_ps(row + 8), v1);
    }
    if (kEpi) {
      if (ep->bias) {
        __m256 bv = _mm256_set1_ps(ep->bias[i]);
        v0 = _mm256_add_ps(v0, bv);
        v1 = _mm256_add_ps(v1, bv);
      }
      __m256 lo = _mm256_set1_ps(ep->lo), hi = _mm256_set1_ps(ep->hi);
      if (ep->clamp == TileEpilogue::kRelu) {
        // x > lo ? x : lo (NaN gives lo), as the Relu pass does.
        v0 = _mm256_max_ps(v0, lo);
        v1 = _mm256_max_ps(v1, lo);
      } else if (ep->clamp == TileEpilogue::kClip) {
        // min(max(x, lo), hi) with NaN kept, as std::min/std::max in the Clip pass.
        v0 = _mm256_min_ps(hi, _mm256_max_ps(lo, v0));
        v1 = _mm256_min_ps(hi, _mm256_max_ps(lo, v1));
      }
    }
    _mm256_storeu_ps(row, v0);
    _mm256_storeu_ps(row + 8, v1);
  }
}

__attribute__((target("avx2,fma"))) void MicroKernel6x16(int64_t kc, const float* a, const float* b, float* c,
                                                           int64_t ldc, bool accumulate) {
  Tile6x16<false>(kc, a, b, kNR, c, ldc, accumulate, nullptr);
}

__attribute__((target("avx2,fma"))) void MicroKernel6x16Epi(int64_t kc, const float* a, const float* b, float* c,
                                                              int64_t ldc, bool accumulate, const TileEpilogue& ep) {
  Tile6x16<true>(kc, a, b, kNR, c, ldc, accumulate, &ep);
}

__attribute__((target("avx2,fma"))) void MicroKernel6x16Strided(int64_t kc, const float* a, const float* b, int64_t ldb,
                                                                  float* c, int64_t ldc, bool accumulate,
                                                                  const TileEpilogue* ep) {
  if (ep) Tile6x16<true>(kc, a, b, ldb, c, ldc, accumulate, ep);
  else Tile6x16<false>(kc, a, b, ldb, c, ldc, accumulate, nullptr);
}

__attribute__((target("avx2,fma"))) void MicroKernel6x16Indirect(int64_t kc, const float* a, const float* b,
                                                                   const int64_t* offs, float* c, int64_t ldc,
                                                                   bool accumulate, const TileEpilogue* ep) {
  if (ep) Tile6x16<true, true>(kc, a, b, 0, c, ldc, accumulate, ep, offs);
  else Tile6x16<false, true>(kc, a, b, 0, c, ldc, accumulate, nullptr, offs);
}

// The left 8 columns of a 6×16 tile (B panels keep their 16-float row stride): output edges of
// at most 8 columns (a 7×7 layer's 49 = 3·16 + 1) cost half a full tile instead of a whole one.
__attribute__((target("avx2,fma"))) void MicroKernel6x8(int64_t kc, const float* a, const float* b, float* c,
                                                          int64_t ldc, bool accumulate) {
  __m256 c0 = _mm256_setzero_ps(), c1 = _mm256_setzero_ps(), c2 = _mm256_setzero_ps();
  __m256 c3 = _mm256_setzero_ps(), c4 = _mm256_setzero_ps(), c5 = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    __m256 b0 = _mm256_loadu_ps(b);
    c0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 0), b0, c0);
    c1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 1), b0, c1);
    c2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 2), b0, c2);
    c3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 3), b0, c3);
    c4 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 4), b0, c4);
    c5 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + 5), b0, c5);
    a += kMR;
    b += kNR;
  }
  __m256 rows[6] = {c0, c1, c2, c3, c4, c5};
  for (int i = 0; i < 6; ++i) {
    float* row = c + i * ldc;
    _mm256_storeu_ps(row, accumulate ? _mm256_add_ps(_mm256_loadu_ps(row), rows[i]) : rows[i]);
  }
}

__attribute__((target("avx2,fma"))) float DotAvx2Impl(const float* a, const float* b, int64_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
  __m128 lo = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_shuffle_ps(lo, lo, 1));
  float sum = _mm_cvtss_f32(lo);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// M rows of A against one packed panel; M is a template parameter so the 2·M accumulators stay in registers.
template <int M>
__attribute__((target("avx2,fma"))) void PanelRowsM(int64_t kc, const float* a, int64_t a_row, int64_t a_col,
                                                    const float* panel, float* acc) {
  __m256 c0[M], c1[M];
  for (int i = 0; i < M; ++i) {
    c0[i] = _mm256_loadu_ps(acc + i * kNR);
    c1[i] = _mm256_loadu_ps(acc + i * kNR + 8);
  }
  for (int64_t q = 0; q < kc; ++q) {
    __m256 b0 = _mm256_loadu_ps(panel + q * kNR), b1 = _mm256_loadu_ps(panel + q * kNR + 8);
    for (int i = 0; i < M; ++i) {
      __m256 av = _mm256_broadcast_ss(a + i * a_row + q * a_col);
      c0[i] = _mm256_fmadd_ps(av, b0, c0[i]);
      c1[i] = _mm256_fmadd_ps(av, b1, c1[i]);
    }
  }
  for (int i = 0; i < M; ++i) {
    _mm256_storeu_ps(acc + i * kNR, c0[i]);
    _mm256_storeu_ps(acc + i * kNR + 8, c1[i]);
  }
}

// One row of A (a fully connected layer at batch 1): the loop only streams the weight panel, so it
// keeps four accumulators, two k steps apart, instead of two; with two, every FMA waited on the
// previous one's latency and the stream ran at half the speed the caches deliver.
__attribute__((target("avx2,fma"))) void PanelRow1(int64_t kc, const float* a, int64_t a_col, const float* panel,
                                                   float* acc) {
  __m256 c0 = _mm256_loadu_ps(acc), c1 = _mm256_loadu_ps(acc + 8);
  __m256 d0 = _mm256_setzero_ps(), d1 = _mm256_setzero_ps();
  int64_t q = 0;
  for (; q + 2 <= kc; q += 2) {
    const float* p = panel + q * kNR;
    __m256 a0 = _mm256_broadcast_ss(a + q * a_col), a1 = _mm256_broadcast_ss(a + (q + 1) * a_col);
    c0 = _mm256_fmadd_ps(a0, _mm256_loadu_ps(p), c0);
    c1 = _mm256_fmadd_ps(a0, _mm256_loadu_ps(p + 8), c1);
    d0 = _mm256_fmadd_ps(a1, _mm256_loadu_ps(p + kNR), d0);
    d1 = _mm256_fmadd_ps(a1, _mm256_loadu_ps(p + kNR + 8), d1);
  }
  if (q < kc) {
    __m256 a0 = _mm256_broadcast_ss(a + q * a_col);
    c0 = _mm256_fmadd_ps(a0, _mm256_loadu_ps(panel + q * kNR), c0);
    c1 = _mm256_fmadd_ps(a0, _mm256_loadu_ps(panel + q * kNR + 8), c1);
  }
  _mm256_storeu_ps(acc, _mm256_add_ps(c0, d0));
  _mm256_storeu_ps(acc + 8, _mm256_add_ps(c1, d1));
}

void PanelRowsAvx2Impl(int64_t m, int64_t kc, const float* a, int64_t a_row, int64_t a_col, const float* panel,
                       float* acc) {
  switch (m) {
    case 1: return PanelRow1(kc, a, a_col, panel, acc);
    case 2: return PanelRowsM<2>(kc, a, a_row, a_col, panel, acc);
    case 3: return PanelRowsM<3>(kc, a, a_row, a_col, panel, acc);
    case 4: return PanelRowsM<4>(kc, a, a_row, a_col, panel, acc);
    default:
      for (int64_t i = 0; i < m; i += 5) {
        int64_t h = std::min<int64_t>(5, m - i);
        if (h == 5) PanelRowsM<5>(kc, a + i * a_row, a_row, a_col, panel, acc + i * kNR);
        else PanelRowsAvx2Impl(h, kc, a + i * a_row, a_row, a_col, panel, acc + i * kNR);
      }
  }
}

// One whole 6-row panel of A, 4 columns at a time: rows 0..3 are transposed as a 4 × 4 block (one
// 16-byte store per column) and rows 4, 5 interleaved (one 8-byte store per column).
__attribute__((target("avx2,fma"))) void PackRowsAAvx2(int64_t kc, const float* a, int64_t lda, float alpha,
                                                       float* out) {
  static_assert(kMR == 6, "rows 0..3 and 4..5 below are a 6-row panel");
  const __m128 va = _mm_set1_ps(alpha);
  int64_t q = 0;
  for (; q + 4 <= kc; q += 4) {
    __m128 r0 = _mm_mul_ps(_mm_loadu_ps(a + q), va), r1 = _mm_mul_ps(_mm_loadu_ps(a + lda + q), va);
    __m128 r2 = _mm_mul_ps(_mm_loadu_ps(a + 2 * lda + q), va), r3 = _mm_mul_ps(_mm_loadu_ps(a + 3 * lda + q), va);
    __m128 r4 = _mm_mul_ps(_mm_loadu_ps(a + 4 * lda + q), va), r5 = _mm_mul_ps(_mm_loadu_ps(a + 5 * lda + q), va);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    __m128 p01 = _mm_unpacklo_ps(r4, r5), p23 = _mm_unpackhi_ps(r4, r5);
    float* o = out + q * kMR;
    _mm_storeu_ps(o, r0);
    _mm_storel_pi(reinterpret_cast<__m64*>(o + 4), p01);
    _mm_storeu_ps(o + 6, r1);
    _mm_storeh_pi(reinterpret_cast<__m64*>(o + 10), p01);
    _mm_storeu_ps(o + 12, r2);
    _mm_storel_pi(reinterpret_cast<__m64*>(o + 16), p23);
    _mm_storeu_ps(o + 18, r3);
    _mm_storeh_pi(reinterpret_cast<__m64*>(o + 22), p23);
  }
  for (; q < kc; ++q)
    for (int64_t y = 0; y < kMR; ++y) out[q * kMR + y] = a[y * lda + q] * alpha;
}

}  // namespace

const Kernels* Avx2Kernels() {
  static const Kernels k = [] {
    Kernels t;
    t.isa = "avx2";
    t.block = PackedBlockFromTiles<MicroKernel6x16, MicroKernel6x8, MicroKernel6x16Epi>;
    t.block_strided = StridedBlockFromTiles<MicroKernel6x16Strided>;
    t.block_indirect = IndirectBlockFromTiles<MicroKernel6x16Indirect>;
    t.dot = DotAvx2Impl;
    t.panel_rows = PanelRowsAvx2Impl;
    t.pack_rows_a = PackRowsAAvx2;
    return t;
  }();
  return &k;
}

}  // namespace gebe::cpu::gemm_detail

#else

namespace gebe::cpu::gemm_detail {
const Kernels* Avx2Kernels() { return nullptr; }
}  // namespace gebe::cpu::gemm_detail

#endif
