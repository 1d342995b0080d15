// The depthwise rows for AVX-512 (16 lanes, masked tails instead of scalar remainders), used only
// when ActiveIsa() is avx512. The loops the compiler vectorises are compiled preferring 512-bit vectors.
#include "cpu/ops/conv_depthwise_rows.h"

#if defined(__x86_64__) || defined(_M_X64)

// GCC vectorises loops with 256-bit vectors even for AVX-512 unless told otherwise; clang's
// target attribute has no such option (it uses 512-bit vectors where profitable).
#if defined(__clang__)
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"
#else
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,prefer-vector-width=512"
#endif

#include <immintrin.h>

namespace gebe::cpu {

namespace {

using namespace depthwise_detail;

#define GEBE_AVX512 __attribute__((target(GEBE_AVX512_LOOPS)))

// Stride 2 (compiler-vectorised: even lanes of two loads per tap).
GEBE_AVX512 void Row9Stride2(float* __restrict y, const float* const* p, int64_t n, const float* w, float b) {
  Row9Body<2>(y, p, n, w, b);
}

// The nine taps at offset k of each row pointer, on three accumulators so the FMAs overlap, plus b.
GEBE_AVX512 inline __m512 Taps9(const __m512* wv, const float* const* p, int64_t k, __mmask16 m, __m512 bv) {
  __m512 acc0 = _mm512_fmadd_ps(wv[0], _mm512_maskz_loadu_ps(m, p[0] + k), bv);
  __m512 acc1 = _mm512_mul_ps(wv[1], _mm512_maskz_loadu_ps(m, p[1] + k));
  __m512 acc2 = _mm512_mul_ps(wv[2], _mm512_maskz_loadu_ps(m, p[2] + k));
  acc0 = _mm512_fmadd_ps(wv[3], _mm512_maskz_loadu_ps(m, p[3] + k), acc0);
  acc1 = _mm512_fmadd_ps(wv[4], _mm512_maskz_loadu_ps(m, p[4] + k), acc1);
  acc2 = _mm512_fmadd_ps(wv[5], _mm512_maskz_loadu_ps(m, p[5] + k), acc2);
  acc0 = _mm512_fmadd_ps(wv[6], _mm512_maskz_loadu_ps(m, p[6] + k), acc0);
  acc1 = _mm512_fmadd_ps(wv[7], _mm512_maskz_loadu_ps(m, p[7] + k), acc1);
  acc2 = _mm512_fmadd_ps(wv[8], _mm512_maskz_loadu_ps(m, p[8] + k), acc2);
  return _mm512_add_ps(acc0, _mm512_add_ps(acc1, acc2));
}

// Stride 1 with explicit FMAs, 16 outputs per step and one masked step for the rest.
GEBE_AVX512 void Row9Fma(float* __restrict y, const float* const* p, int64_t n, const float* w, float b) {
  __m512 wv[9];
  for (int t = 0; t < 9; ++t) wv[t] = _mm512_set1_ps(w[t]);
  const __m512 bv = _mm512_set1_ps(b);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << unsigned(n - i)) - 1u);
    _mm512_mask_storeu_ps(y + i, m, Taps9(wv, p, i, m, bv));
  }
}

template <int S>
GEBE_AVX512 void Row3(float* y, const float* x0, const float* x1, const float* x2, int64_t n, float w0, float w1,
                      float w2) {
  Row3Body<S>(y, x0, x1, x2, n, w0, w1, w2);
}

// A whole plane, the weights in registers across its rows and the clamp applied before each store
// (one masked step per row end: no compaction pass, no slack reads).
GEBE_AVX512 void Plane9(float* y, const float* const* p, int64_t rows, int64_t n, int64_t p_stride, const float* w,
                        float b, const RowClamp& c) {
  __m512 wv[9];
  for (int t = 0; t < 9; ++t) wv[t] = _mm512_set1_ps(w[t]);
  const __m512 bv = _mm512_set1_ps(b), lo = _mm512_set1_ps(c.lo), hi = _mm512_set1_ps(c.hi);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t o = r * p_stride;
    float* yr = y + r * n;
    for (int64_t i = 0; i < n; i += 16) {
      __mmask16 m = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << unsigned(n - i)) - 1u);
      const int64_t k = o + i;
      __m512 v = Taps9(wv, p, k, m, bv);
      // max_ps/min_ps return their second operand where either is NaN: Relu's NaN gives lo, Clip's is kept.
      if (c.kind == RowClamp::kRelu) v = _mm512_max_ps(v, lo);
      else if (c.kind == RowClamp::kClip) v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
      _mm512_mask_storeu_ps(yr + i, m, v);
    }
  }
}

GEBE_AVX512 void CopyRow(float* dst, const float* src, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << unsigned(n - i)) - 1u);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_maskz_loadu_ps(m, src + i));
  }
}

// 32 inputs a step (two masked loads), their even and odd lanes gathered by two permutes.
GEBE_AVX512 void SplitRow(float* even, float* odd, const float* src, int64_t n) {
  const __m512i even_idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd_idx = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  auto lanes = [](int64_t k) { return k >= 16 ? __mmask16(0xFFFF) : k <= 0 ? __mmask16(0) : __mmask16((1u << unsigned(k)) - 1u); };
  for (int64_t i = 0; i < n; i += 32) {
    int64_t rest = n - i;
    __m512 lo = _mm512_maskz_loadu_ps(lanes(rest), src + i);
    __m512 hi = _mm512_maskz_loadu_ps(lanes(rest - 16), src + i + 16);
    _mm512_mask_storeu_ps(even + i / 2, lanes((rest + 1) / 2), _mm512_permutex2var_ps(lo, even_idx, hi));
    _mm512_mask_storeu_ps(odd + i / 2, lanes(rest / 2), _mm512_permutex2var_ps(lo, odd_idx, hi));
  }
}

}  // namespace

const DepthwiseRows* Avx512DepthwiseRows() {
  static const DepthwiseRows rows{Row9Fma, Row9Stride2, Row3<1>, Row3<2>, Plane9, CopyRow, SplitRow};
  return &rows;
}

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
const DepthwiseRows* Avx512DepthwiseRows() { return nullptr; }
}  // namespace gebe::cpu

#endif
