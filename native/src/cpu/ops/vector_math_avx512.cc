#include "cpu/ops/vector_math_avx512.h"

#include "cpu/ops/vector_math.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include "cpu/avx512_lanes.h"

#include <cmath>
#include <limits>

// GCC 12 implements _mm512_undefined_ps as a self-initialised variable, which -Wuninitialized reports.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GEBE_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

namespace gebe::cpu::avx512 {

namespace {

GEBE_AVX512 inline __mmask16 IsNan(__m512 v) { return _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q); }

// exp(x) for x in [-87, 0] (Cephes expf, as the AVX2 code); as accurate up to 88 (ExpArray).
GEBE_AVX512 inline __m512 ExpNonPositive(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.f));
  __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
  p = _mm512_add_ps(p, _mm512_set1_ps(1.f));
  // p · 2^fx in one instruction: fx >= -126 here, so this rounds as the product with the
  // exponent built by hand (the AVX2 code) does.
  return _mm512_scalef_ps(p, fx);
}

// log(x) for positive normal x (Cephes logf, as the AVX2 code): x = m·2^e with m in [√½, √2),
// log(1 + (m − 1)) by its degree-9 polynomial, plus e·ln 2 split in two parts. getmant/getexp
// take m in [½, 1) and e directly.
GEBE_AVX512 inline __m512 LogPositiveNormal(__m512 v) {
  const __m512 m = _mm512_getmant_ps(v, _MM_MANT_NORM_p5_1, _MM_MANT_SIGN_zero);
  __m512 e = _mm512_add_ps(_mm512_getexp_ps(v), _mm512_set1_ps(1.f));
  // Below √½ the mantissa doubles (2m − 1, exact) and the exponent drops by one.
  const __mmask16 small = _mm512_cmp_ps_mask(m, _mm512_set1_ps(0.707106781186547524f), _CMP_LT_OQ);
  __m512 x = _mm512_sub_ps(m, _mm512_set1_ps(1.f));
  x = _mm512_mask_add_ps(x, small, x, m);
  e = _mm512_mask_sub_ps(e, small, e, _mm512_set1_ps(1.f));
  const __m512 z = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(7.0376836292e-2f);
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(-1.1514610310e-1f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(1.1676998740e-1f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(-1.2420140846e-1f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(1.4249322787e-1f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(-1.6668057665e-1f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(2.0000714765e-1f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(-2.4999993993e-1f));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(3.3333331174e-1f));
  __m512 y = _mm512_mul_ps(_mm512_mul_ps(p, x), z);
  y = _mm512_fmadd_ps(e, _mm512_set1_ps(-2.12194440e-4f), y);
  y = _mm512_fnmadd_ps(z, _mm512_set1_ps(0.5f), y);
  return _mm512_fmadd_ps(e, _mm512_set1_ps(0.693359375f), _mm512_add_ps(x, y));
}

// erf: x·P(x²)/Q(x²) on x clamped to [-4, 4] (as the AVX2 code); NaN passes through the clamps.
GEBE_AVX512 inline __m512 Erf16(__m512 a) {
  const __m512 x = _mm512_max_ps(_mm512_set1_ps(-4.f), _mm512_min_ps(_mm512_set1_ps(4.f), a));
  const __m512 x2 = _mm512_mul_ps(x, x);
  __m512 p = _mm512_fmadd_ps(x2, _mm512_set1_ps(-2.72614225801306e-10f), _mm512_set1_ps(2.77068142495902e-08f));
  p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(-2.10102402082508e-06f));
  p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(-5.69250639462346e-05f));
  p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(-7.34990630326855e-04f));
  p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(-2.95459980854025e-03f));
  p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(-1.60960333262415e-02f));
  p = _mm512_mul_ps(x, p);
  __m512 q = _mm512_fmadd_ps(x2, _mm512_set1_ps(-1.45660718464996e-05f), _mm512_set1_ps(-2.13374055278905e-04f));
  q = _mm512_fmadd_ps(x2, q, _mm512_set1_ps(-1.68282697438203e-03f));
  q = _mm512_fmadd_ps(x2, q, _mm512_set1_ps(-7.37332916720468e-03f));
  q = _mm512_fmadd_ps(x2, q, _mm512_set1_ps(-1.42647390514189e-02f));
  return _mm512_div_ps(p, q);
}

template <bool kGelu>
GEBE_AVX512 inline __m512 Apply16(__m512 v) {
  if (!kGelu) return Erf16(v);
  __m512 erf = Erf16(_mm512_mul_ps(v, _mm512_set1_ps(0.70710678118654752f)));
  return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), v), _mm512_add_ps(_mm512_set1_ps(1.f), erf));
}

// y[i] = f(x[i]) 16 lanes at a time, two vectors a step: the functions here end in a division
// (or a long polynomial), and a second independent vector keeps the pipes busy through it. The
// tail goes through a mask (its masked-off lanes compute on zeros and are not stored).
template <typename F>
GEBE_AVX512 __attribute__((always_inline)) inline void MapTwoAtATime(const float* x, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = f(_mm512_loadu_ps(x + i)), b = f(_mm512_loadu_ps(x + i + 16));
    _mm512_storeu_ps(y + i, a);
    _mm512_storeu_ps(y + i + 16, b);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = FirstLanes(n - i);
    _mm512_mask_storeu_ps(y + i, m, f(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

GEBE_AVX512 inline __m512 ExpShifted16(__m512 d, __m512 lo) {
  __m512 e = _mm512_maskz_mov_ps(__mmask16(~_mm512_cmp_ps_mask(d, lo, _CMP_LT_OQ)), ExpNonPositive(d));  // underflow gives 0
  return _mm512_mask_blend_ps(IsNan(d), e, d);
}

// 1 / (1 + e^-x) from e = exp(-|x|) <= 1: 1 / (1 + e) for x >= 0, e / (1 + e) below. NaN passes.
GEBE_AVX512 inline __m512 Sigmoid16(__m512 v) {
  const __m512 one = _mm512_set1_ps(1.f);
  __m512 e = ExpNonPositive(_mm512_or_ps(v, _mm512_set1_ps(-0.f)));  // exp(-|v|)
  __mmask16 negative = _mm512_movepi32_mask(_mm512_castps_si512(v));
  __m512 r = _mm512_div_ps(_mm512_mask_blend_ps(negative, one, e), _mm512_add_ps(one, e));
  return _mm512_mask_blend_ps(IsNan(v), r, v);
}

// x · sigmoid(x).
GEBE_AVX512 inline __m512 Silu16(__m512 v) { return _mm512_mul_ps(v, Sigmoid16(v)); }

// tanh (Cephes tanhf, as the AVX2 code). NaN passes.
GEBE_AVX512 inline __m512 Tanh16(__m512 v) {
  const __m512 sign_mask = _mm512_set1_ps(-0.f), one = _mm512_set1_ps(1.f);
  __m512 ax = _mm512_andnot_ps(sign_mask, v);
  __m512 z = _mm512_mul_ps(v, v);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(-5.70498872745e-3f), z, _mm512_set1_ps(2.06390887954e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-5.37397155531e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(1.33314422036e-1f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-3.33332819422e-1f));
  __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(p, z), v, v);
  __m512 e = ExpNonPositive(_mm512_mul_ps(ax, _mm512_set1_ps(-2.f)));
  __m512 large = _mm512_div_ps(_mm512_sub_ps(one, e), _mm512_add_ps(one, e));
  large = _mm512_or_ps(large, _mm512_and_ps(v, sign_mask));
  __m512 r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.625f), _CMP_LT_OQ), large, small);
  return _mm512_mask_blend_ps(IsNan(v), r, v);
}

}  // namespace

GEBE_AVX512 void ErfArray(const float* x, float* y, int64_t n) { MapTwoAtATime(x, y, n, Apply16<false>); }
GEBE_AVX512 void GeluArray(const float* x, float* y, int64_t n) { MapTwoAtATime(x, y, n, Apply16<true>); }

GEBE_AVX512 float ExpShiftedSum(const float* x, float* y, int64_t n, float shift) {
  const __m512 sh = _mm512_set1_ps(shift), low = _mm512_set1_ps(-87.3f);
  // Two vectors a step on two sums, so one's exponential overlaps the other's.
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 e0 = ExpShifted16(_mm512_sub_ps(_mm512_loadu_ps(x + i), sh), low);
    const __m512 e1 = ExpShifted16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), sh), low);
    if (y) {
      _mm512_storeu_ps(y + i, e0);
      _mm512_storeu_ps(y + i + 16, e1);
    }
    acc0 = _mm512_add_ps(acc0, e0);
    acc1 = _mm512_add_ps(acc1, e1);
  }
  for (; i < n; i += 16) {
    __mmask16 m = FirstLanes(n - i);
    __m512 e = _mm512_maskz_mov_ps(m, ExpShifted16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), sh), low));
    if (y) _mm512_mask_storeu_ps(y + i, m, e);
    acc0 = _mm512_add_ps(acc0, e);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

GEBE_AVX512 void ExpArray(const float* x, float* y, int64_t n) {
  const __m512 lo = _mm512_set1_ps(-87.f), hi = _mm512_set1_ps(88.f);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = FirstLanes(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    __m512 e = ExpNonPositive(v);
    // Outside [-87, 88] (subnormal results, overflow, NaN): the library's exp, value by value,
    // patched in before the store (y may be x).
    __mmask16 outside = m & ~(_mm512_cmp_ps_mask(v, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(v, hi, _CMP_LE_OQ));
    if (outside) {
      alignas(64) float in[16], out[16];
      _mm512_store_ps(in, v);
      _mm512_store_ps(out, e);
      for (; outside; outside &= __mmask16(outside - 1)) {
        const int lane = __builtin_ctz(outside);
        out[lane] = std::exp(in[lane]);
      }
      e = _mm512_load_ps(out);
    }
    _mm512_mask_storeu_ps(y + i, m, e);
  }
}

// Lanes of m in `special` replaced by scalar(x) for that lane's x (y may be x: patched before the store).
template <typename Scalar>
GEBE_AVX512 inline __m512 PatchLanes(__m512 v, __m512 r, __mmask16 special, Scalar scalar) {
  alignas(64) float in[16], out[16];
  _mm512_store_ps(in, v);
  _mm512_store_ps(out, r);
  for (; special; special &= __mmask16(special - 1)) {
    const int lane = __builtin_ctz(special);
    out[lane] = scalar(in[lane]);
  }
  return _mm512_load_ps(out);
}

GEBE_AVX512 void LogArray(const float* x, float* y, int64_t n) {
  const __m512 lo = _mm512_set1_ps(std::numeric_limits<float>::min()), hi = _mm512_set1_ps(std::numeric_limits<float>::max());
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = FirstLanes(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    __m512 r = LogPositiveNormal(v);
    const __mmask16 special = m & ~(_mm512_cmp_ps_mask(v, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(v, hi, _CMP_LE_OQ));
    if (special) r = PatchLanes(v, r, special, [](float a) { return std::log(a); });
    _mm512_mask_storeu_ps(y + i, m, r);
  }
}

// max(v, 0) + log1p(t), t = exp(-|v|) in (0, 1]: log1p(t) = log(u)·t/(u − 1) with u = 1 + t,
// which cancels u's rounding (t itself where u rounds to 1). Below -87 (exp's clamp) and NaN:
// SoftplusScalar.
GEBE_AVX512 void SoftplusArray(const float* x, float* y, int64_t n) {
  const __m512 one = _mm512_set1_ps(1.f), lo = _mm512_set1_ps(-87.f);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = FirstLanes(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    const __m512 t = ExpNonPositive(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_abs_ps(v)));
    const __m512 u = _mm512_add_ps(one, t);
    const __m512 d = _mm512_sub_ps(u, one);
    const __mmask16 rounded_away = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_EQ_OQ);
    __m512 l = _mm512_mul_ps(LogPositiveNormal(u), _mm512_div_ps(t, _mm512_mask_blend_ps(rounded_away, d, one)));
    l = _mm512_mask_blend_ps(rounded_away, l, t);
    __m512 r = _mm512_add_ps(_mm512_max_ps(v, _mm512_setzero_ps()), l);
    const __mmask16 special = m & ~_mm512_cmp_ps_mask(v, lo, _CMP_GE_OQ);
    if (special) r = PatchLanes(v, r, special, SoftplusScalar);
    _mm512_mask_storeu_ps(y + i, m, r);
  }
}

// x >= 0 ? x : x · slope lane by lane: the product where the compare fails (NaN included, whose
// product is NaN), the same bits as the portable select.
GEBE_AVX512 void LeakyArray(const float* x, const float* slope, int64_t step, float* y, int64_t n) {
  const __m512 zero = _mm512_setzero_ps(), one_slope = _mm512_set1_ps(slope[0]);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = FirstLanes(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    const __m512 s = step == 0 ? one_slope : _mm512_maskz_loadu_ps(m, slope + i);
    const __mmask16 negative = __mmask16(~_mm512_cmp_ps_mask(v, zero, _CMP_GE_OQ));
    _mm512_mask_storeu_ps(y + i, m, _mm512_mask_mul_ps(v, negative, v, s));
  }
}

GEBE_AVX512 void TanhArray(const float* x, float* y, int64_t n) { MapTwoAtATime(x, y, n, Tanh16); }

GEBE_AVX512 void SiluArray(const float* x, float* y, int64_t n) { MapTwoAtATime(x, y, n, Silu16); }

GEBE_AVX512 void SigmoidArray(const float* x, float* y, int64_t n) { MapTwoAtATime(x, y, n, Sigmoid16); }

// min(v, 1) gives 1 for a NaN v (the second operand), as fmin(1, v) does.
GEBE_AVX512 void HardSigmoidArray(const float* x, float* y, int64_t n, float alpha, float beta, bool times_x) {
  const __m512 a = _mm512_set1_ps(alpha), b = _mm512_set1_ps(beta), one = _mm512_set1_ps(1.f), zero = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = FirstLanes(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    __m512 product = _mm512_mul_ps(a, v);
    __asm__("" : "+v"(product));  // a rounding of its own: GCC would contract it and the add into an FMA
    __m512 h = _mm512_max_ps(_mm512_min_ps(_mm512_add_ps(product, b), one), zero);
    if (times_x) h = _mm512_mul_ps(v, h);
    _mm512_mask_storeu_ps(y + i, m, h);
  }
}

// Four accumulators of eight doubles (32 floats a step) and one masked step for the rest.
namespace {

// The sum of x[i] (kSquares: of (x[i] - mean)²) in double, four accumulators of eight lanes.
template <bool kSquares>
GEBE_AVX512 __attribute__((always_inline)) inline double SumInDouble(const float* x, int64_t n, double mean) {
  const __m512d m = _mm512_set1_pd(mean);
  auto add = [&](__m512d acc, __m256 v) GEBE_AVX512 {
    __m512d d = _mm512_cvtps_pd(v);
    if (!kSquares) return _mm512_add_pd(acc, d);
    d = _mm512_sub_pd(d, m);
    return _mm512_fmadd_pd(d, d, acc);
  };
  __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd(), a2 = _mm512_setzero_pd(), a3 = _mm512_setzero_pd();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = add(a0, _mm256_loadu_ps(x + i));
    a1 = add(a1, _mm256_loadu_ps(x + i + 8));
    a2 = add(a2, _mm256_loadu_ps(x + i + 16));
    a3 = add(a3, _mm256_loadu_ps(x + i + 24));
  }
  for (; i < n; i += 8) {
    const __mmask8 lanes = __mmask8(n - i >= 8 ? 0xff : (1u << (n - i)) - 1);
    // Masked-off lanes add nothing (a loaded zero; with kSquares the accumulator is kept there).
    const __m512d sum = add(a0, _mm256_maskz_loadu_ps(lanes, x + i));
    a0 = kSquares ? _mm512_mask_mov_pd(a0, lanes, sum) : sum;
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
}

}  // namespace

// vmaxps(v, m) (vminps): v > m ? v : m (<), a NaN v skipped.
template <bool kMax>
GEBE_AVX512 __attribute__((always_inline)) inline __m512 Pick16(__m512 v, __m512 m) {
  return kMax ? _mm512_max_ps(v, m) : _mm512_min_ps(v, m);
}

// Four chains of 16 lanes: vmaxps(v, m) is v > m ? v : m (vminps: <), NaN v included, so every
// lane is one chain of the scalar rule; a masked tail loads the start value.
template <bool kMax>
GEBE_AVX512 __attribute__((always_inline)) inline float ExtremeChains(const float* x, int64_t n) {
  const float start = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  const __m512 first = _mm512_set1_ps(start);
  auto pick = Pick16<kMax>;
  __m512 m0 = first, m1 = first, m2 = first, m3 = first;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    m0 = pick(_mm512_loadu_ps(x + i), m0);
    m1 = pick(_mm512_loadu_ps(x + i + 16), m1);
    m2 = pick(_mm512_loadu_ps(x + i + 32), m2);
    m3 = pick(_mm512_loadu_ps(x + i + 48), m3);
  }
  for (; i < n; i += 16) m0 = pick(_mm512_mask_loadu_ps(first, avx512::FirstLanes(n - i), x + i), m0);
  // The chains hold no NaN: combining them by the same rule keeps the extreme.
  m0 = pick(pick(m1, m0), pick(m3, m2));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, m0);
  float best = start;
  for (float v : lanes) best = (kMax ? v > best : v < best) ? v : best;
  return best;
}

GEBE_AVX512 float MaxChains(const float* x, int64_t n) { return ExtremeChains<true>(x, n); }
GEBE_AVX512 float MinChains(const float* x, int64_t n) { return ExtremeChains<false>(x, n); }

GEBE_AVX512 double SumRow(const float* x, int64_t n) { return SumInDouble<false>(x, n, 0.0); }
GEBE_AVX512 double SumSquaredDeviations(const float* x, int64_t n, double mean) { return SumInDouble<true>(x, n, mean); }

GEBE_AVX512 void SoftmaxRow(const float* x, const float* bias, float scale, float* y, int64_t n) {
  const __m512 vs = _mm512_set1_ps(scale), neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  // Pass 1: the maximum of the scaled, biased logits, which go to y on the way unless they are x
  // itself (scale 1, no bias: pass 2 then reads x, and y is written once less). NaN lanes are
  // skipped here and turn the sum, hence the row, into NaN in pass 2.
  const bool plain = scale == 1.f && bias == nullptr;
  __m512 mx0 = neg_inf, mx1 = neg_inf;
  int64_t i = 0;
  if (plain) {
    for (; i + 32 <= n; i += 32) {
      mx0 = _mm512_max_ps(_mm512_loadu_ps(x + i), mx0);
      mx1 = _mm512_max_ps(_mm512_loadu_ps(x + i + 16), mx1);
    }
  }
  for (; i < n; i += 16) {
    __mmask16 m = FirstLanes(n - i);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    if (!plain) {
      v = _mm512_mul_ps(v, vs);
      if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias + i));
      _mm512_mask_storeu_ps(y + i, m, v);
    }
    mx0 = _mm512_mask_max_ps(mx0, m, v, mx0);
  }
  const __m512 shift = _mm512_set1_ps(_mm512_reduce_max_ps(_mm512_max_ps(mx0, mx1))), low = _mm512_set1_ps(-87.3f);
  // Pass 2: exponentials and their sum, two vectors a step on two sums.
  const float* logits = plain ? x : y;
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 e0 = ExpShifted16(_mm512_sub_ps(_mm512_loadu_ps(logits + i), shift), low);
    const __m512 e1 = ExpShifted16(_mm512_sub_ps(_mm512_loadu_ps(logits + i + 16), shift), low);
    _mm512_storeu_ps(y + i, e0);
    _mm512_storeu_ps(y + i + 16, e1);
    acc0 = _mm512_add_ps(acc0, e0);
    acc1 = _mm512_add_ps(acc1, e1);
  }
  for (; i < n; i += 16) {
    __mmask16 m = FirstLanes(n - i);
    __m512 e = _mm512_maskz_mov_ps(m, ExpShifted16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, logits + i), shift), low));
    _mm512_mask_storeu_ps(y + i, m, e);
    acc0 = _mm512_add_ps(acc0, e);
  }
  // Pass 3: normalise.
  const __m512 inv = _mm512_set1_ps(1.f / _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1)));
  i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), inv));
  if (i < n) {
    __mmask16 m = FirstLanes(n - i);
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + i), inv));
  }
}

GEBE_AVX512 void LayerNormRow(const float* x, const float* gamma, const float* beta, float epsilon, float* y, int64_t n,
                              float* mean_out, float* inv_std_out) {
  // Two passes (mean, then squared deviations) keep the variance accurate for rows with a large
  // mean; the row is in L1 by the second pass.
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_add_ps(s0, _mm512_loadu_ps(x + i));
    s1 = _mm512_add_ps(s1, _mm512_loadu_ps(x + i + 16));
  }
  for (; i < n; i += 16) s0 = _mm512_add_ps(s0, _mm512_maskz_loadu_ps(FirstLanes(n - i), x + i));
  const float mean = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1)) / float(n);
  const __m512 vm = _mm512_set1_ps(mean);
  s0 = _mm512_setzero_ps();
  s1 = _mm512_setzero_ps();
  for (i = 0; i + 32 <= n; i += 32) {
    __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), vm), d1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), vm);
    s0 = _mm512_fmadd_ps(d0, d0, s0);
    s1 = _mm512_fmadd_ps(d1, d1, s1);
  }
  for (; i < n; i += 16) {
    __mmask16 m = FirstLanes(n - i);
    __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, x + i), vm);
    s0 = _mm512_fmadd_ps(d, d, s0);
  }
  const float var = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1)) / float(n);
  const float inv = 1.f / std::sqrt(var + epsilon);
  const __m512 vi = _mm512_set1_ps(inv);
  for (i = 0; i < n; i += 16) {
    __mmask16 m = FirstLanes(n - i);
    __m512 d = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), vm), vi);
    __m512 b = beta ? _mm512_maskz_loadu_ps(m, beta + i) : _mm512_setzero_ps();
    _mm512_mask_storeu_ps(y + i, m, _mm512_fmadd_ps(d, _mm512_maskz_loadu_ps(m, gamma + i), b));
  }
  if (mean_out) *mean_out = mean;
  if (inv_std_out) *inv_std_out = inv;
}

}  // namespace gebe::cpu::avx512

#endif
