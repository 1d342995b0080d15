// The depthwise rows compiled for AVX2+FMA (8 lanes), used only when ActiveIsa() is avx2.
#include "cpu/ops/conv_depthwise_rows.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

namespace gebe::cpu {

namespace {

using namespace depthwise_detail;

#define GEBE_AVX2 __attribute__((target("avx2,fma")))

template <int S>
GEBE_AVX2 void Row9(float* __restrict y, const float* const* p, int64_t n, const float* w, float b) {
  Row9Body<S>(y, p, n, w, b);
}

// Stride 1 with explicit FMAs (the ISO build does not contract a*b+c, so the shared body costs a
// multiply and an add per tap): 8 outputs per step, the remainder through the shared body.
GEBE_AVX2 void Row9Fma(float* __restrict y, const float* const* p, int64_t n, const float* w, float b) {
  __m256 wv[9];
  for (int t = 0; t < 9; ++t) wv[t] = _mm256_set1_ps(w[t]);
  const __m256 bv = _mm256_set1_ps(b);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 acc0 = _mm256_fmadd_ps(wv[0], _mm256_loadu_ps(p[0] + i), bv);
    __m256 acc1 = _mm256_mul_ps(wv[1], _mm256_loadu_ps(p[1] + i));
    __m256 acc2 = _mm256_mul_ps(wv[2], _mm256_loadu_ps(p[2] + i));
    acc0 = _mm256_fmadd_ps(wv[3], _mm256_loadu_ps(p[3] + i), acc0);
    acc1 = _mm256_fmadd_ps(wv[4], _mm256_loadu_ps(p[4] + i), acc1);
    acc2 = _mm256_fmadd_ps(wv[5], _mm256_loadu_ps(p[5] + i), acc2);
    acc0 = _mm256_fmadd_ps(wv[6], _mm256_loadu_ps(p[6] + i), acc0);
    acc1 = _mm256_fmadd_ps(wv[7], _mm256_loadu_ps(p[7] + i), acc1);
    acc2 = _mm256_fmadd_ps(wv[8], _mm256_loadu_ps(p[8] + i), acc2);
    _mm256_storeu_ps(y + i, _mm256_add_ps(acc0, _mm256_add_ps(acc1, acc2)));
  }
  if (i < n) {
    const float* rest[9];
    for (int t = 0; t < 9; ++t) rest[t] = p[t] + i;
    Row9Body<1>(y + i, rest, n - i, w, b);
  }
}

template <int S>
GEBE_AVX2 void Row3(float* y, const float* x0, const float* x1, const float* x2, int64_t n, float w0, float w1, float w2) {
  Row3Body<S>(y, x0, x1, x2, n, w0, w1, w2);
}

GEBE_AVX2 void Plane9(float* y, const float* const* p, int64_t rows, int64_t n, int64_t p_stride, const float* w, float b,
                      const RowClamp& c) {
  Plane9Body<Row9Fma>(y, p, rows, n, p_stride, w, b, c);
}

GEBE_AVX2 void PlaneK(float* y, const float* const* p, int taps, int64_t rows, int64_t n, int64_t p_stride, const float* w,
                      float b, const RowClamp& c) {
  PlaneKBody(y, p, taps, rows, n, p_stride, w, b, c);
}

GEBE_AVX2 void CopyRow(float* dst, const float* src, int64_t n) { CopyRowBody(dst, src, n); }

GEBE_AVX2 void SplitRow(float* even, float* odd, const float* src, int64_t n) { SplitRowBody(even, odd, src, n); }

}  // namespace

const DepthwiseRows* Avx2DepthwiseRows() {
  static const DepthwiseRows rows{Row9Fma, Row9<2>, Row3<1>, Row3<2>, Plane9, PlaneK, CopyRow, SplitRow};
  return &rows;
}

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
const DepthwiseRows* Avx2DepthwiseRows() { return nullptr; }
}  // namespace gebe::cpu

#endif
