// The MaxPool row and AveragePool's planes compiled for AVX-512 (16 lanes); used only when ActiveIsa() is avx512.
#include "cpu/ops/pool_rows.h"

#if defined(__x86_64__) || defined(_M_X64)

// GCC vectorises loops with 256-bit vectors even for AVX-512 unless told otherwise; clang's
// target attribute has no such option (it uses 512-bit vectors where profitable).
#if defined(__clang__)
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"
#else
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,prefer-vector-width=512"
#endif

#include <immintrin.h>

#include "cpu/avx512_lanes.h"

#include <limits>
#include <vector>

namespace gebe::cpu {

namespace {

using avx512::FirstLanes;

// The 2×2 stride-2 window over two input rows, 16 outputs a vector: the even and odd columns of
// 32 inputs split by two permutes, then max(v, m) in the scalar loop's order (v > m ? v : m, which
// is what vmaxps(v, m) computes, NaN included). A tail of fewer than 16 outputs reads its inputs
// through masks, so nothing past the row's last window is touched.
__attribute__((target(GEBE_AVX512_LOOPS))) void Max2x2Stride2(const float* r0, const float* r1, float* dst, int64_t n) {
  const __m512i even = avx512::EvenLanes(), odd = avx512::OddLanes();
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t i = 0; i < n; i += 16) {
    int64_t rem = n - i < 16 ? n - i : 16;
    __mmask16 lo = FirstLanes(2 * rem), hi = FirstLanes(2 * rem - 16);  // the vectors holding the 2·rem inputs
    __m512 a0 = _mm512_maskz_loadu_ps(lo, r0 + 2 * i), a1 = _mm512_maskz_loadu_ps(hi, r0 + 2 * i + 16);
    __m512 b0 = _mm512_maskz_loadu_ps(lo, r1 + 2 * i), b1 = _mm512_maskz_loadu_ps(hi, r1 + 2 * i + 16);
    __m512 m = _mm512_max_ps(_mm512_permutex2var_ps(a0, even, a1), lowest);
    m = _mm512_max_ps(_mm512_permutex2var_ps(a0, odd, a1), m);
    m = _mm512_max_ps(_mm512_permutex2var_ps(b0, even, b1), m);
    m = _mm512_max_ps(_mm512_permutex2var_ps(b0, odd, b1), m);
    _mm512_mask_storeu_ps(dst + i, FirstLanes(rem), m);
  }
}

// Stride 1 or 2 with any other window: the maxima of the window's rows per input column first
// (one unit-stride pass per row), then for each window column b the 16 column maxima from
// i + b·dw on (stride 2: the even lanes of the 32 from 2i + b·dw), through masks that stop at the
// last column a window reads. Both steps compute max(v, m) as the scalar loops do (v > m ? v : m:
// a NaN input is skipped), so the result is the portable one bit for bit.
template <int S>
__attribute__((target(GEBE_AVX512_LOOPS))) void MaxStrided(const float* xc, int64_t iw, int64_t y0, int64_t a0,
                                                           int64_t a1, int64_t dh, int64_t kw, int64_t dw, int64_t x0,
                                                           float* dst, int64_t n) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const int64_t span = (n - 1) * S + (kw - 1) * dw + 1;
  thread_local std::vector<float> column;
  if (column.size() < size_t(span)) column.resize(size_t(span));
  float* v = column.data();
  for (int64_t x = 0; x < span; x += 16) {
    __mmask16 m = FirstLanes(span - x);
    __m512 c = lowest;
    for (int64_t a = a0; a < a1; ++a) c = _mm512_max_ps(_mm512_maskz_loadu_ps(m, xc + (y0 + a * dh) * iw + x0 + x), c);
    _mm512_mask_storeu_ps(v + x, m, c);
  }
  const __m512i even = avx512::EvenLanes();
  for (int64_t i = 0; i < n; i += 16) {
    int64_t rem = n - i < 16 ? n - i : 16;
    __m512 out = lowest;
    for (int64_t b = 0; b < kw; ++b) {
      const float* col = v + S * i + b * dw;
      if (S == 1) {
        out = _mm512_max_ps(_mm512_maskz_loadu_ps(FirstLanes(rem), col), out);
      } else {
        int64_t need = 2 * rem - 1;  // column maxima the outputs read
        __m512 lo = _mm512_maskz_loadu_ps(FirstLanes(need), col), hi = _mm512_maskz_loadu_ps(FirstLanes(need - 16), col + 16);
        out = _mm512_max_ps(_mm512_permutex2var_ps(lo, even, hi), out);
      }
    }
    _mm512_mask_storeu_ps(dst + i, FirstLanes(rem), out);
  }
}

__attribute__((target(GEBE_AVX512_LOOPS))) void MaxInterior(const float* xc, int64_t iw, int64_t y0, int64_t a0,
                                                            int64_t a1, int64_t dh, int64_t kw, int64_t dw, int64_t sw,
                                                            int64_t x0, float* dst, int64_t n) {
  if (a1 - a0 == 2 && kw == 2 && sw == 2 && dw == 1) {
    const float* r0 = xc + (y0 + a0 * dh) * iw + x0;
    return Max2x2Stride2(r0, r0 + dh * iw, dst, n);
  }
  if (sw == 1) return MaxStrided<1>(xc, iw, y0, a0, a1, dh, kw, dw, x0, dst, n);
  if (sw == 2) return MaxStrided<2>(xc, iw, y0, a0, a1, dh, kw, dw, x0, dst, n);
  pool_detail::MaxInteriorBody(xc, iw, y0, a0, a1, dh, kw, dw, sw, x0, dst, n);
}

__attribute__((target(GEBE_AVX512_LOOPS))) void MaxPool2x2Planes(const float* x, int64_t planes, int64_t ih,
                                                                 int64_t iw, float* y, int64_t oh, int64_t ow) {
  for (int64_t p = 0; p < planes; ++p, x += ih * iw, y += oh * ow)
    for (int64_t r = 0; r < oh; ++r) Max2x2Stride2(x + 2 * r * iw, x + (2 * r + 1) * iw, y + r * ow, ow);
}

__attribute__((target(GEBE_AVX512_LOOPS))) void AveragePlanes(const float* x, float* y, int64_t planes,
                                                              const AveragePlaneGeometry& g, float* row_sums) {
  pool_detail::AveragePlanesBody(x, y, planes, g, row_sums);
}

// MaxStride1PlanesBody with masked vectors: its rows are often shorter than a vector (14, 7), and
// the compiler's loops run those as scalar tails. Each step computes max(v, m) in the body's order
// (vmaxps(v, m) is v > m ? v : m, so a NaN input is skipped), and gives its values bit for bit.
__attribute__((target(GEBE_AVX512_LOOPS))) void MaxStride1Planes(const float* x, float* y, int64_t planes,
                                                                 const MaxStride1Geometry& g, float* padded) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const int64_t ih = g.ih, iw = g.iw, oh = g.oh, ow = g.ow;
  for (int64_t c = 0; c < g.span; c += 16) _mm512_mask_storeu_ps(padded + c, FirstLanes(g.span - c), lowest);
  float* v = padded + g.pw;
  for (int64_t p = 0; p < planes; ++p) {
    const float* xc = x + p * ih * iw;
    float* yc = y + p * oh * ow;
    for (int64_t yo = 0; yo < oh; ++yo) {
      const int64_t a0 = g.row_a0[yo], a1 = g.row_a1[yo];
      for (int64_t c = 0; c < iw; c += 16) {
        const __mmask16 m = FirstLanes(iw - c);
        __m512 acc = lowest;
        for (int64_t a = a0; a < a1; ++a) acc = _mm512_max_ps(_mm512_maskz_loadu_ps(m, xc + (g.row_start[yo] + a * g.dh) * iw + c), acc);
        _mm512_mask_storeu_ps(v + c, m, acc);
      }
      float* out = yc + yo * ow;
      for (int64_t xo = 0; xo < ow; xo += 16) {
        const __mmask16 m = FirstLanes(ow - xo);
        __m512 acc = lowest;
        for (int64_t b = 0; b < g.kw; ++b) acc = _mm512_max_ps(_mm512_maskz_loadu_ps(m, padded + b * g.dw + xo), acc);
        _mm512_mask_storeu_ps(out + xo, m, acc);
      }
    }
  }
}

}  // namespace

MaxInteriorFn Avx512MaxInterior() { return MaxInterior; }
MaxStride1PlanesFn Avx512MaxStride1Planes() { return MaxStride1Planes; }
AveragePlanesFn Avx512AveragePlanes() { return AveragePlanes; }
MaxPool2x2PlanesFn Avx512MaxPool2x2Planes() { return MaxPool2x2Planes; }

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
MaxInteriorFn Avx512MaxInterior() { return nullptr; }
MaxPool2x2PlanesFn Avx512MaxPool2x2Planes() { return nullptr; }
AveragePlanesFn Avx512AveragePlanes() { return nullptr; }
MaxStride1PlanesFn Avx512MaxStride1Planes() { return nullptr; }
}  // namespace gebe::cpu

#endif
