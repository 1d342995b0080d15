// The AVX2+FMA row math of vector_math.h: 8 lanes, polynomial approximations accurate to about
// 1e-6 relative (erf: 4e-7 absolute), masked tails. Compiled with per-function target attributes
// (not -mavx2) so the rest of the addon stays baseline x86-64; vector_math.cc calls these only when
// ActiveIsa() is avx2.
#include "cpu/ops/vector_math_avx2.h"

#include "cpu/ops/vector_math.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <cmath>
#include <limits>

namespace gebe::cpu::avx2 {

namespace {

// Masks for the last r (< 8) elements of a row: loading at kTailMasks + 8 - r enables the first r lanes.
alignas(64) constexpr int32_t kTailMasks[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
__attribute__((target("avx2,fma"))) inline __m256i TailMask(int64_t r) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kTailMasks + 8 - r));
}

__attribute__((target("avx2,fma"))) inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) inline float HorizontalMax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

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

// log(x) for positive normal x (Cephes logf): x = m·2^e with m in [√½, √2), log(1 + (m − 1)) by
// its degree-9 polynomial, plus e·ln 2 split in two parts. m in [½, 1) and e from the bits.
__attribute__((target("avx2,fma"))) inline __m256 LogPositiveNormal(__m256 v) {
  const __m256i bits = _mm256_castps_si256(v);
  const __m256 m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)), _mm256_set1_epi32(0x3F000000)));
  __m256 e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(126)));
  // Below √½ the mantissa doubles (2m − 1, exact) and the exponent drops by one.
  const __m256 small = _mm256_cmp_ps(m, _mm256_set1_ps(0.707106781186547524f), _CMP_LT_OQ);
  __m256 x = _mm256_sub_ps(m, _mm256_set1_ps(1.f));
  x = _mm256_add_ps(x, _mm256_and_ps(small, m));
  e = _mm256_sub_ps(e, _mm256_and_ps(small, _mm256_set1_ps(1.f)));
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(7.0376836292e-2f);
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(-1.1514610310e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.1676998740e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(-1.2420140846e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.4249322787e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(-1.6668057665e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(2.0000714765e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(-2.4999993993e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(3.3333331174e-1f));
  __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, x), z);
  y = _mm256_fmadd_ps(e, _mm256_set1_ps(-2.12194440e-4f), y);
  y = _mm256_fnmadd_ps(z, _mm256_set1_ps(0.5f), y);
  return _mm256_fmadd_ps(e, _mm256_set1_ps(0.693359375f), _mm256_add_ps(x, y));
}

// erf on 8 lanes: x·P(x²)/Q(x²) on x clamped to [-4, 4] (erf(±4) is ±1 in float), the rational
// approximation Eigen and TensorFlow use; absolute error below 4e-7 everywhere, relative error
// below 4e-7 near 0. One division and a dozen FMAs, no exp. NaN passes through (the clamps keep
// a NaN operand).
__attribute__((target("avx2,fma"))) inline __m256 Erf8(__m256 a) {
  const __m256 x = _mm256_max_ps(_mm256_set1_ps(-4.f), _mm256_min_ps(_mm256_set1_ps(4.f), a));
  const __m256 x2 = _mm256_mul_ps(x, x);
  __m256 p = _mm256_fmadd_ps(x2, _mm256_set1_ps(-2.72614225801306e-10f), _mm256_set1_ps(2.77068142495902e-08f));
  p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(-2.10102402082508e-06f));
  p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(-5.69250639462346e-05f));
  p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(-7.34990630326855e-04f));
  p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(-2.95459980854025e-03f));
  p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(-1.60960333262415e-02f));
  p = _mm256_mul_ps(x, p);
  __m256 q = _mm256_fmadd_ps(x2, _mm256_set1_ps(-1.45660718464996e-05f), _mm256_set1_ps(-2.13374055278905e-04f));
  q = _mm256_fmadd_ps(x2, q, _mm256_set1_ps(-1.68282697438203e-03f));
  q = _mm256_fmadd_ps(x2, q, _mm256_set1_ps(-7.37332916720468e-03f));
  q = _mm256_fmadd_ps(x2, q, _mm256_set1_ps(-1.42647390514189e-02f));
  return _mm256_div_ps(p, q);
}

template <bool kGelu>
__attribute__((target("avx2,fma"))) inline __m256 Apply8(__m256 v) {
  if (!kGelu) return Erf8(v);
  __m256 erf = Erf8(_mm256_mul_ps(v, _mm256_set1_ps(0.70710678118654752f)));
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), _mm256_add_ps(_mm256_set1_ps(1.f), erf));
}

template <bool kGelu>
__attribute__((target("avx2,fma"))) void Loop(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    // Two independent vectors per iteration keep both FMA pipes busy through the division.
    __m256 a = Apply8<kGelu>(_mm256_loadu_ps(x + i)), b = Apply8<kGelu>(_mm256_loadu_ps(x + i + 8));
    _mm256_storeu_ps(y + i, a);
    _mm256_storeu_ps(y + i + 8, b);
  }
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Apply8<kGelu>(_mm256_loadu_ps(x + i)));
  if (i < n) {
    const __m256i tail = TailMask(n - i);  // never reads or writes past the arrays
    _mm256_maskstore_ps(y + i, tail, Apply8<kGelu>(_mm256_maskload_ps(x + i, tail)));
  }
}

__attribute__((target("avx2,fma"))) inline __m256 ExpShifted8(__m256 d, __m256 lo) {
  __m256 e = ExpNonPositive(d);
  e = _mm256_andnot_ps(_mm256_cmp_ps(d, lo, _CMP_LT_OQ), e);  // underflow (and -inf) gives 0
  return _mm256_blendv_ps(e, d, _mm256_cmp_ps(d, d, _CMP_UNORD_Q));
}

// 1 / (1 + e^-x) from e = exp(-|x|) <= 1 (never overflows): 1 / (1 + e) for x >= 0, e / (1 + e)
// below. NaN passes through.
__attribute__((target("avx2,fma"))) inline __m256 Sigmoid8(__m256 v) {
  const __m256 one = _mm256_set1_ps(1.f);
  __m256 e = ExpNonPositive(_mm256_or_ps(v, _mm256_set1_ps(-0.f)));  // exp(-|v|)
  __m256 r = _mm256_div_ps(_mm256_blendv_ps(one, e, v), _mm256_add_ps(one, e));  // v's sign bit picks e
  return _mm256_blendv_ps(r, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

// tanh on 8 lanes (Cephes tanhf): |x| < 0.625: x + x·x²·P(x²), so small inputs keep their
// relative precision; above: (1 - e) / (1 + e) with e = exp(-2|x|) <= 1, sign restored. NaN passes.
__attribute__((target("avx2,fma"))) inline __m256 Tanh8(__m256 v) {
  const __m256 sign_mask = _mm256_set1_ps(-0.f), one = _mm256_set1_ps(1.f);
  __m256 ax = _mm256_andnot_ps(sign_mask, v);
  __m256 z = _mm256_mul_ps(v, v);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(-5.70498872745e-3f), z, _mm256_set1_ps(2.06390887954e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-5.37397155531e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(1.33314422036e-1f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-3.33332819422e-1f));
  __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, z), v, v);
  __m256 e = ExpNonPositive(_mm256_mul_ps(ax, _mm256_set1_ps(-2.f)));
  __m256 large = _mm256_div_ps(_mm256_sub_ps(one, e), _mm256_add_ps(one, e));
  large = _mm256_or_ps(large, _mm256_and_ps(v, sign_mask));
  __m256 r = _mm256_blendv_ps(large, small, _mm256_cmp_ps(ax, _mm256_set1_ps(0.625f), _CMP_LT_OQ));
  return _mm256_blendv_ps(r, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

}  // namespace

__attribute__((target("avx2,fma"))) void ErfArray(const float* x, float* y, int64_t n) { Loop<false>(x, y, n); }
__attribute__((target("avx2,fma"))) void GeluArray(const float* x, float* y, int64_t n) { Loop<true>(x, y, n); }

namespace {

// The sum of x[i] (kSquares: of (x[i] - mean)²) in double: four accumulators of four doubles,
// 16 floats a step, so the adds' latency overlaps.
template <bool kSquares>
__attribute__((target("avx2,fma"), always_inline)) inline double SumInDouble(const float* x, int64_t n, double mean) {
  const __m256d m = _mm256_set1_pd(mean);
  auto add = [&](__m256d acc, __m128 v) __attribute__((target("avx2,fma"))) {
    __m256d d = _mm256_cvtps_pd(v);
    if (!kSquares) return _mm256_add_pd(acc, d);
    d = _mm256_sub_pd(d, m);
    return _mm256_fmadd_pd(d, d, acc);
  };
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd(), a3 = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = add(a0, _mm_loadu_ps(x + i));
    a1 = add(a1, _mm_loadu_ps(x + i + 4));
    a2 = add(a2, _mm_loadu_ps(x + i + 8));
    a3 = add(a3, _mm_loadu_ps(x + i + 12));
  }
  for (; i + 4 <= n; i += 4) a0 = add(a0, _mm_loadu_ps(x + i));
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
  double s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; ++i) {
    const double d = kSquares ? double(x[i]) - mean : double(x[i]);
    s += kSquares ? d * d : d;
  }
  return s;
}

}  // namespace

// vmaxps(v, m) (vminps): v > m ? v : m (<), a NaN v skipped.
template <bool kMax>
__attribute__((target("avx2,fma"), always_inline)) inline __m256 Pick8(__m256 v, __m256 m) {
  return kMax ? _mm256_max_ps(v, m) : _mm256_min_ps(v, m);
}

// Four chains of 8 lanes: vmaxps(v, m) is v > m ? v : m (vminps: <), NaN v included, so every
// lane is one chain of the scalar rule; the last values go through one scalar chain.
template <bool kMax>
__attribute__((target("avx2,fma"), always_inline)) inline float ExtremeChains(const float* x, int64_t n) {
  auto pick = Pick8<kMax>;
  const float start = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  auto better = [](float v, float m) { return kMax ? v > m : v < m; };
  const __m256 first = _mm256_set1_ps(start);
  __m256 m0 = first, m1 = first, m2 = first, m3 = first;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    m0 = pick(_mm256_loadu_ps(x + i), m0);
    m1 = pick(_mm256_loadu_ps(x + i + 8), m1);
    m2 = pick(_mm256_loadu_ps(x + i + 16), m2);
    m3 = pick(_mm256_loadu_ps(x + i + 24), m3);
  }
  for (; i + 8 <= n; i += 8) m0 = pick(_mm256_loadu_ps(x + i), m0);
  // The chains hold no NaN: combining them by the same rule keeps the extreme.
  m0 = pick(pick(m1, m0), pick(m3, m2));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m0);
  float best = start;
  for (float v : lanes) best = better(v, best) ? v : best;
  for (; i < n; ++i) best = better(x[i], best) ? x[i] : best;
  return best;
}

__attribute__((target("avx2,fma"))) float MaxChains(const float* x, int64_t n) { return ExtremeChains<true>(x, n); }
__attribute__((target("avx2,fma"))) float MinChains(const float* x, int64_t n) { return ExtremeChains<false>(x, n); }

__attribute__((target("avx2,fma"))) double SumRow(const float* x, int64_t n) { return SumInDouble<false>(x, n, 0.0); }
__attribute__((target("avx2,fma"))) double SumSquaredDeviations(const float* x, int64_t n, double mean) {
  return SumInDouble<true>(x, n, mean);
}

// Lanes set in `special` (a movemask) replaced by scalar(x) for that lane's x.
template <typename Scalar>
__attribute__((target("avx2,fma"))) inline __m256 PatchLanes(__m256 v, __m256 r, int special, Scalar scalar) {
  alignas(32) float in[8], out[8];
  _mm256_store_ps(in, v);
  _mm256_store_ps(out, r);
  for (; special; special &= special - 1) {
    const int lane = __builtin_ctz(unsigned(special));
    out[lane] = scalar(in[lane]);
  }
  return _mm256_load_ps(out);
}

__attribute__((target("avx2,fma"))) void LogArray(const float* x, float* y, int64_t n) {
  const __m256 lo = _mm256_set1_ps(std::numeric_limits<float>::min()), hi = _mm256_set1_ps(std::numeric_limits<float>::max());
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    __m256 r = LogPositiveNormal(v);
    // Zeros, negatives, subnormals, infinities and NaN: the library's log.
    const int special = ~_mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(v, lo, _CMP_GE_OQ), _mm256_cmp_ps(v, hi, _CMP_LE_OQ))) & 0xFF;
    if (special) r = PatchLanes(v, r, special, [](float a) { return std::log(a); });
    _mm256_storeu_ps(y + i, r);
  }
  for (; i < n; ++i) y[i] = std::log(x[i]);
}

// max(v, 0) + log1p(t), t = exp(-|v|) in (0, 1]: log1p(t) = log(u)·t/(u − 1) with u = 1 + t,
// which cancels u's rounding (t itself where u rounds to 1). Below -87 (exp's clamp) and NaN:
// SoftplusScalar, as are the last n % 8.
__attribute__((target("avx2,fma"))) void SoftplusArray(const float* x, float* y, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.f), zero = _mm256_setzero_ps(), lo = _mm256_set1_ps(-87.f);
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 t = ExpNonPositive(_mm256_sub_ps(zero, _mm256_and_ps(v, magnitude)));
    const __m256 u = _mm256_add_ps(one, t);
    const __m256 d = _mm256_sub_ps(u, one);
    const __m256 rounded_away = _mm256_cmp_ps(d, zero, _CMP_EQ_OQ);
    __m256 l = _mm256_mul_ps(LogPositiveNormal(u), _mm256_div_ps(t, _mm256_blendv_ps(d, one, rounded_away)));
    l = _mm256_blendv_ps(l, t, rounded_away);
    __m256 r = _mm256_add_ps(_mm256_max_ps(v, zero), l);
    const int special = ~_mm256_movemask_ps(_mm256_cmp_ps(v, lo, _CMP_GE_OQ)) & 0xFF;
    if (special) r = PatchLanes(v, r, special, SoftplusScalar);
    _mm256_storeu_ps(y + i, r);
  }
  for (; i < n; ++i) y[i] = SoftplusScalar(x[i]);
}

// x >= 0 ? x : x · slope lane by lane: the product where the compare fails (NaN included, whose
// product is NaN), the same bits as the portable select.
__attribute__((target("avx2,fma"))) void LeakyArray(const float* x, const float* slope, int64_t step, float* y, int64_t n) {
  const __m256 zero = _mm256_setzero_ps(), one_slope = _mm256_set1_ps(slope[0]);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 s = step == 0 ? one_slope : _mm256_loadu_ps(slope + i);
    _mm256_storeu_ps(y + i, _mm256_blendv_ps(_mm256_mul_ps(v, s), v, _mm256_cmp_ps(v, zero, _CMP_GE_OQ)));
  }
  for (; i < n; ++i) y[i] = x[i] >= 0 ? x[i] : x[i] * slope[step * i];
}

__attribute__((target("avx2,fma"))) void ExpArray(const float* x, float* y, int64_t n) {
  const __m256 lo = _mm256_set1_ps(-87.f), hi = _mm256_set1_ps(88.f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    __m256 e = ExpNonPositive(v);
    // Outside [-87, 88] (subnormal results, overflow, NaN): the library's exp, value by value,
    // patched in before the store (y may be x).
    const __m256 inside = _mm256_and_ps(_mm256_cmp_ps(v, lo, _CMP_GE_OQ), _mm256_cmp_ps(v, hi, _CMP_LE_OQ));
    int outside = ~_mm256_movemask_ps(inside) & 0xFF;
    if (outside) {
      alignas(32) float in[8], out[8];
      _mm256_store_ps(in, v);
      _mm256_store_ps(out, e);
      for (; outside; outside &= outside - 1) {
        const int lane = __builtin_ctz(unsigned(outside));
        out[lane] = std::exp(in[lane]);
      }
      e = _mm256_load_ps(out);
    }
    _mm256_storeu_ps(y + i, e);
  }
  for (; i < n; ++i) y[i] = std::exp(x[i]);
}

__attribute__((target("avx2,fma"))) float ExpShiftedSum(const float* x, float* y, int64_t n, float shift) {
  const __m256 sh = _mm256_set1_ps(shift), low = _mm256_set1_ps(-87.3f);
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 e = ExpShifted8(_mm256_sub_ps(_mm256_loadu_ps(x + i), sh), low);
    if (y) _mm256_storeu_ps(y + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (; i < n; ++i) {
    const float e = std::exp(x[i] - shift);
    if (y) y[i] = e;
    sum += e;
  }
  return sum;
}

__attribute__((target("avx2,fma"))) void TanhArray(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Tanh8(_mm256_loadu_ps(x + i)));
  if (i < n) {
    const __m256i tail = TailMask(n - i);
    _mm256_maskstore_ps(y + i, tail, Tanh8(_mm256_maskload_ps(x + i, tail)));
  }
}

__attribute__((target("avx2,fma"))) void SiluArray(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(a, Sigmoid8(a)));
    _mm256_storeu_ps(y + i + 8, _mm256_mul_ps(b, Sigmoid8(b)));
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(v, Sigmoid8(v)));
  }
  if (i < n) {
    const __m256i tail = TailMask(n - i);
    const __m256 v = _mm256_maskload_ps(x + i, tail);
    _mm256_maskstore_ps(y + i, tail, _mm256_mul_ps(v, Sigmoid8(v)));
  }
}

__attribute__((target("avx2,fma"))) void SigmoidArray(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Sigmoid8(_mm256_loadu_ps(x + i)));
  if (i < n) {
    const __m256i tail = TailMask(n - i);
    _mm256_maskstore_ps(y + i, tail, Sigmoid8(_mm256_maskload_ps(x + i, tail)));
  }
}

// min(v, 1) gives 1 for a NaN v (the second operand), as fmin(1, v) does.
__attribute__((target("avx2,fma"))) inline __m256 HardSigmoid8(__m256 v, __m256 a, __m256 b, bool times_x) {
  __m256 product = _mm256_mul_ps(a, v);
  __asm__("" : "+x"(product));  // a rounding of its own: GCC would contract it and the add into an FMA
  const __m256 h = _mm256_max_ps(_mm256_min_ps(_mm256_add_ps(product, b), _mm256_set1_ps(1.f)), _mm256_setzero_ps());
  return times_x ? _mm256_mul_ps(v, h) : h;
}

__attribute__((target("avx2,fma"))) void HardSigmoidArray(const float* x, float* y, int64_t n, float alpha, float beta, bool times_x) {
  const __m256 a = _mm256_set1_ps(alpha), b = _mm256_set1_ps(beta);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, HardSigmoid8(_mm256_loadu_ps(x + i), a, b, times_x));
  if (i < n) {
    const __m256i tail = TailMask(n - i);
    _mm256_maskstore_ps(y + i, tail, HardSigmoid8(_mm256_maskload_ps(x + i, tail), a, b, times_x));
  }
}

__attribute__((target("avx2,fma"))) void SoftmaxRow(const float* x, const float* bias, float scale, float* y, int64_t n) {
  const __m256 vs = _mm256_set1_ps(scale), neg_inf = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  const int64_t body = n & ~int64_t(7), r = n - body;
  const __m256i tail = TailMask(r);
  // Pass 1: the maximum of the scaled, biased logits, which go to y on the way unless they are x
  // itself (scale 1, no bias: pass 2 then reads x, and y is written once less). NaN lanes are
  // skipped here and turn the sum, hence the row, into NaN in pass 2.
  const bool plain = scale == 1.f && bias == nullptr;
  __m256 mx = neg_inf;
  for (int64_t i = 0; i < body; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    if (!plain) {
      v = _mm256_mul_ps(v, vs);
      if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + i));
      _mm256_storeu_ps(y + i, v);
    }
    mx = _mm256_max_ps(v, mx);
  }
  if (r) {
    __m256 v = _mm256_mul_ps(_mm256_maskload_ps(x + body, tail), vs);
    if (bias) v = _mm256_add_ps(v, _mm256_maskload_ps(bias + body, tail));
    if (!plain) _mm256_maskstore_ps(y + body, tail, v);
    mx = _mm256_max_ps(_mm256_blendv_ps(neg_inf, v, _mm256_castsi256_ps(tail)), mx);
  }
  const __m256 shift = _mm256_set1_ps(HorizontalMax(mx)), low = _mm256_set1_ps(-87.3f);
  // Pass 2: exponentials and their sum.
  const float* logits = plain ? x : y;
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < body; i += 8) {
    __m256 e = ExpShifted8(_mm256_sub_ps(_mm256_loadu_ps(logits + i), shift), low);
    _mm256_storeu_ps(y + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  if (r) {
    __m256 e = ExpShifted8(_mm256_sub_ps(_mm256_maskload_ps(logits + body, tail), shift), low);
    e = _mm256_and_ps(e, _mm256_castsi256_ps(tail));
    _mm256_maskstore_ps(y + body, tail, e);
    acc = _mm256_add_ps(acc, e);
  }
  // Pass 3: normalise.
  const __m256 inv = _mm256_set1_ps(1.f / HorizontalSum(acc));
  for (int64_t i = 0; i < body; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), inv));
  if (r) _mm256_maskstore_ps(y + body, tail, _mm256_mul_ps(_mm256_maskload_ps(y + body, tail), inv));
}

__attribute__((target("avx2,fma"))) void LayerNormRow(const float* x, const float* gamma, const float* beta,
                                                       float epsilon, float* y, int64_t n, float* mean_out,
                                                       float* inv_std_out) {
  const int64_t body = n & ~int64_t(7), r = n - body;
  const __m256i tail = TailMask(r);
  // Two passes (mean, then squared deviations) keep the variance accurate for rows with a large
  // mean; the row is in L1 by the second pass.
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= body; i += 16) {
    s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + i));
    s1 = _mm256_add_ps(s1, _mm256_loadu_ps(x + i + 8));
  }
  for (; i < body; i += 8) s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + i));
  if (r) s1 = _mm256_add_ps(s1, _mm256_maskload_ps(x + body, tail));
  const float mean = HorizontalSum(_mm256_add_ps(s0, s1)) / float(n);
  const __m256 vm = _mm256_set1_ps(mean);
  s0 = _mm256_setzero_ps();
  s1 = _mm256_setzero_ps();
  for (i = 0; i + 16 <= body; i += 16) {
    __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x + i), vm), d1 = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8), vm);
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
  }
  for (; i < body; i += 8) {
    __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), vm);
    s0 = _mm256_fmadd_ps(d, d, s0);
  }
  if (r) {
    __m256 d = _mm256_and_ps(_mm256_sub_ps(_mm256_maskload_ps(x + body, tail), vm), _mm256_castsi256_ps(tail));
    s1 = _mm256_fmadd_ps(d, d, s1);
  }
  const float var = HorizontalSum(_mm256_add_ps(s0, s1)) / float(n);
  const float inv = 1.f / std::sqrt(var + epsilon);
  const __m256 vi = _mm256_set1_ps(inv);
  const __m256 zero = _mm256_setzero_ps();
  for (i = 0; i < body; i += 8) {
    __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm), vi);
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(d, _mm256_loadu_ps(gamma + i), beta ? _mm256_loadu_ps(beta + i) : zero));
  }
  if (r) {
    __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_maskload_ps(x + body, tail), vm), vi);
    __m256 b = beta ? _mm256_maskload_ps(beta + body, tail) : zero;
    _mm256_maskstore_ps(y + body, tail, _mm256_fmadd_ps(d, _mm256_maskload_ps(gamma + body, tail), b));
  }
  if (mean_out) *mean_out = mean;
  if (inv_std_out) *inv_std_out = inv;
}

}  // namespace gebe::cpu::avx2

#endif
