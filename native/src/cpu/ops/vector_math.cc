#include "cpu/ops/vector_math.h"

#include <cmath>
#include <cstring>

#include "cpu/gemm/sgemm.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#endif

namespace gebe::cpu {

namespace {

void ErfPortable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::erf(x[i]);
}

void GeluPortable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.f + std::erf(x[i] * 0.70710678118654752f));
}

#if defined(__x86_64__) || defined(_M_X64)

// exp(x) for x in [-87, 0] (Cephes expf: range reduction by ln 2 split in two parts, degree-5
// polynomial, exponent built directly).
__attribute__((target("avx2,fma"))) inline __m256 ExpNonPositive(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.f));
  __m256 fx = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
  p = _mm256_add_ps(p, _mm256_set1_ps(1.f));
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

// erf on 8 lanes. |x| < 1: x·P(x²) (Cephes erff, relative error ~1e-7, so tiny inputs keep
// their precision); |x| >= 1: 1 - t·Q(t)·exp(-x²), t = 1/(1 + p|x|) (Abramowitz–Stegun 7.1.26,
// absolute error 1.5e-7 where erf >= 0.84). NaN passes through.
__attribute__((target("avx2,fma"))) inline __m256 Erf8(__m256 x) {
  const __m256 sign_mask = _mm256_set1_ps(-0.f);
  __m256 ax = _mm256_andnot_ps(sign_mask, x);
  __m256 z = _mm256_mul_ps(ax, ax);
  __m256 s = _mm256_set1_ps(7.853861353153693e-5f);
  s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(-8.010193625184903e-4f));
  s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(5.188327685732524e-3f));
  s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(-2.685381193529856e-2f));
  s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(1.128358514861418e-1f));
  s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(-3.761262582423300e-1f));
  s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(1.128379165726710f));
  s = _mm256_mul_ps(s, ax);

  __m256 al = _mm256_min_ps(ax, _mm256_set1_ps(4.f));  // erf(4) == 1 in float
  __m256 t = _mm256_div_ps(_mm256_set1_ps(1.f), _mm256_fmadd_ps(al, _mm256_set1_ps(0.3275911f), _mm256_set1_ps(1.f)));
  __m256 q = _mm256_set1_ps(1.061405429f);
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(-1.453152027f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(1.421413741f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(-0.284496736f));
  q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(0.254829592f));
  q = _mm256_mul_ps(q, t);
  __m256 e = ExpNonPositive(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_mul_ps(al, al)));
  __m256 l = _mm256_fnmadd_ps(q, e, _mm256_set1_ps(1.f));

  __m256 r = _mm256_blendv_ps(l, s, _mm256_cmp_ps(ax, _mm256_set1_ps(1.f), _CMP_LT_OQ));
  r = _mm256_or_ps(r, _mm256_and_ps(x, sign_mask));
  return _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

template <bool kGelu>
__attribute__((target("avx2,fma"))) inline __m256 Apply8(__m256 v) {
  if (!kGelu) return Erf8(v);
  __m256 erf = Erf8(_mm256_mul_ps(v, _mm256_set1_ps(0.70710678118654752f)));
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), _mm256_add_ps(_mm256_set1_ps(1.f), erf));
}

template <bool kGelu>
__attribute__((target("avx2,fma"))) void Avx2Loop(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Apply8<kGelu>(_mm256_loadu_ps(x + i)));
  if (i < n) {
    // The last few elements through a padded buffer (never reading past the array).
    alignas(32) float buf[8] = {};
    std::memcpy(buf, x + i, sizeof(float) * size_t(n - i));
    _mm256_store_ps(buf, Apply8<kGelu>(_mm256_load_ps(buf)));
    std::memcpy(y + i, buf, sizeof(float) * size_t(n - i));
  }
}

__attribute__((target("avx2,fma"))) inline __m256 ExpShifted8(__m256 d, __m256 lo) {
  __m256 e = ExpNonPositive(d);
  e = _mm256_andnot_ps(_mm256_cmp_ps(d, lo, _CMP_LT_OQ), e);  // underflow (and -inf) gives 0
  return _mm256_blendv_ps(e, d, _mm256_cmp_ps(d, d, _CMP_UNORD_Q));
}

__attribute__((target("avx2,fma"))) float ExpShiftedSumAvx2(const float* x, float* y, int64_t n, float shift) {
  const __m256 sh = _mm256_set1_ps(shift), low = _mm256_set1_ps(-87.3f);
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 e = ExpShifted8(_mm256_sub_ps(_mm256_loadu_ps(x + i), sh), low);
    _mm256_storeu_ps(y + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (; i < n; ++i) {
    y[i] = std::exp(x[i] - shift);
    sum += y[i];
  }
  return sum;
}

#endif

float ExpShiftedSumPortable(const float* x, float* y, int64_t n, float shift) {
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - shift);
    sum += y[i];
  }
  return sum;
}

using ArrayFn = void (*)(const float*, float*, int64_t);

ArrayFn Pick(bool gelu) {
#if defined(__x86_64__) || defined(_M_X64)
  if (gemm_detail::CpuHasAvx2Fma()) return gelu ? Avx2Loop<true> : Avx2Loop<false>;
#endif
  return gelu ? GeluPortable : ErfPortable;
}

}  // namespace

void ErfArray(const float* x, float* y, int64_t n) {
  static const ArrayFn fn = Pick(false);
  fn(x, y, n);
}

float ExpShiftedSum(const float* x, float* y, int64_t n, float shift) {
#if defined(__x86_64__) || defined(_M_X64)
  static const bool avx2 = gemm_detail::CpuHasAvx2Fma();
  if (avx2) return ExpShiftedSumAvx2(x, y, n, shift);
#endif
  return ExpShiftedSumPortable(x, y, n, shift);
}

void GeluArray(const float* x, float* y, int64_t n) {
  static const ArrayFn fn = Pick(true);
  fn(x, y, n);
}

}  // namespace gebe::cpu
