// The portable row math of vector_math.h and the choice of each row by ActiveIsa(), made once per
// process: AVX2 in vector_math_avx2.cc, AVX-512 in vector_math_avx512.cc.
#include "cpu/ops/vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/isa.h"
#include "cpu/ops/vector_math_avx2.h"
#include "cpu/ops/vector_math_avx512.h"

namespace gebe::cpu {

namespace {

void ErfPortable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::erf(x[i]);
}

void GeluPortable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.f + std::erf(x[i] * 0.70710678118654752f));
}

void TanhPortable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
}

void SigmoidPortable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    // Split by sign so exp never overflows.
    float v = x[i];
    if (v >= 0) {
      y[i] = 1.f / (1.f + std::exp(-v));
    } else {
      float e = std::exp(v);
      y[i] = e / (1.f + e);
    }
  }
}

void SoftmaxRowPortable(const float* x, const float* bias, float scale, float* y, int64_t n) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] * scale + (bias ? bias[i] : 0.f);
    y[i] = v;
    mx = std::fmax(mx, v);
  }
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::exp(y[i] - mx);
    sum += y[i];
  }
  float inv = 1.f / sum;
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

void LayerNormRowPortable(const float* x, const float* gamma, const float* beta, float epsilon, float* y, int64_t n,
                          float* mean_out, float* inv_std_out) {
  float mean = 0;
  for (int64_t i = 0; i < n; ++i) mean += x[i];
  mean /= float(n);
  float var = 0;
  for (int64_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  var /= float(n);
  float inv = 1.f / std::sqrt(var + epsilon);
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * gamma[i] + (beta ? beta[i] : 0.f);
  if (mean_out) *mean_out = mean;
  if (inv_std_out) *inv_std_out = inv;
}

void SiluPortable(const float* x, float* y, int64_t n) {
  // In chunks that stay in L1; x and y may alias, so x[i] is read before y[i] is written.
  for (int64_t i0 = 0; i0 < n; i0 += 256) {
    float sig[256];
    const int64_t len = std::min<int64_t>(256, n - i0);
    SigmoidPortable(x + i0, sig, len);
    for (int64_t i = 0; i < len; ++i) y[i0 + i] = x[i0 + i] * sig[i];
  }
}

// The product and the sum are separate statements, and GCC is told not to contract them (clang
// contracts only within one expression): ONNX Runtime rounds the product first.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
void HardSigmoidPortable(const float* x, float* y, int64_t n, float alpha, float beta, bool times_x) {
  for (int64_t i = 0; i < n; ++i) {
    const float product = alpha * x[i];
    const float h = std::fmax(0.f, std::fmin(1.f, product + beta));
    y[i] = times_x ? x[i] * h : h;
  }
}

// The sum of x[i] (kSquares: of (x[i] - mean)²) in double, four accumulators.
template <bool kSquares>
double SumInDoublePortable(const float* x, int64_t n, double mean) {
  auto term = [mean](float v) {
    const double d = kSquares ? double(v) - mean : double(v);
    return kSquares ? d * d : d;
  };
  double a[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) a[k] += term(x[i + k]);
  for (; i < n; ++i) a[0] += term(x[i]);
  return (a[0] + a[1]) + (a[2] + a[3]);
}

float ExpShiftedSumPortable(const float* x, float* y, int64_t n, float shift) {
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float e = std::exp(x[i] - shift);
    if (y) y[i] = e;
    sum += e;
  }
  return sum;
}

using ArrayFn = void (*)(const float*, float*, int64_t);

ArrayFn Pick(bool gelu) {
#if defined(__x86_64__) || defined(_M_X64)
  if (ActiveIsa() == Isa::kAvx512) return gelu ? avx512::GeluArray : avx512::ErfArray;
  if (ActiveIsa() == Isa::kAvx2) return gelu ? avx2::GeluArray : avx2::ErfArray;
#endif
  return gelu ? GeluPortable : ErfPortable;
}

}  // namespace

void ErfArray(const float* x, float* y, int64_t n) {
  static const ArrayFn fn = Pick(false);
  fn(x, y, n);
}

void ExpArray(const float* x, float* y, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::ExpArray(x, y, n);
  if (isa == Isa::kAvx2) return avx2::ExpArray(x, y, n);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}

float ExpShiftedSum(const float* x, float* y, int64_t n, float shift) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::ExpShiftedSum(x, y, n, shift);
  if (isa == Isa::kAvx2) return avx2::ExpShiftedSum(x, y, n, shift);
#endif
  return ExpShiftedSumPortable(x, y, n, shift);
}

void GeluArray(const float* x, float* y, int64_t n) {
  static const ArrayFn fn = Pick(true);
  fn(x, y, n);
}

void LogArray(const float* x, float* y, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::LogArray(x, y, n);
  if (isa == Isa::kAvx2) return avx2::LogArray(x, y, n);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = std::log(x[i]);
}

void SoftplusArray(const float* x, float* y, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::SoftplusArray(x, y, n);
  if (isa == Isa::kAvx2) return avx2::SoftplusArray(x, y, n);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = SoftplusScalar(x[i]);
}

void TanhArray(const float* x, float* y, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::TanhArray(x, y, n);
  if (isa == Isa::kAvx2) return avx2::TanhArray(x, y, n);
#endif
  TanhPortable(x, y, n);
}

void SigmoidArray(const float* x, float* y, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::SigmoidArray(x, y, n);
  if (isa == Isa::kAvx2) return avx2::SigmoidArray(x, y, n);
#endif
  SigmoidPortable(x, y, n);
}

void SiluArray(const float* x, float* y, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::SiluArray(x, y, n);
  if (isa == Isa::kAvx2) return avx2::SiluArray(x, y, n);
#endif
  SiluPortable(x, y, n);
}

void HardSigmoidArray(const float* x, float* y, int64_t n, float alpha, float beta, bool times_x) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::HardSigmoidArray(x, y, n, alpha, beta, times_x);
  if (isa == Isa::kAvx2) return avx2::HardSigmoidArray(x, y, n, alpha, beta, times_x);
#endif
  HardSigmoidPortable(x, y, n, alpha, beta, times_x);
}

namespace {

template <bool kMax>
float ExtremePortable(const float* x, int64_t n) {
  constexpr int kChains = 8;
  auto better = [](float v, float m) { return kMax ? v > m : v < m; };
  float m[kChains];
  std::fill(m, m + kChains, kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + kChains <= n; i += kChains)
    for (int j = 0; j < kChains; ++j) m[j] = better(x[i + j], m[j]) ? x[i + j] : m[j];
  for (int j = 0; i < n; ++i, ++j) m[j] = better(x[i], m[j]) ? x[i] : m[j];
  float best = m[0];
  for (int j = 1; j < kChains; ++j) best = better(m[j], best) ? m[j] : best;
  return best;
}

// The largest (kMax) or smallest of x[0, n) as one chain `v > m ? v : m` (or <) from ∓inf takes
// it, on independent chains: eight here, 32 or 64 lanes in the vector code. One chain waited on
// each compare: a 112 × 112 plane took 10 µs.
template <bool kMax>
float ExtremeSkippingNaN(const float* x, int64_t n) {
  float best;
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) {
    best = kMax ? avx512::MaxChains(x, n) : avx512::MinChains(x, n);
  } else if (isa == Isa::kAvx2) {
    best = kMax ? avx2::MaxChains(x, n) : avx2::MinChains(x, n);
  } else {
    best = ExtremePortable<kMax>(x, n);
  }
#else
  best = ExtremePortable<kMax>(x, n);
#endif
  // Equal values have equal bits except for zeros: the chain would have kept the first zero.
  if (best == 0.f) best = *std::find(x, x + n, 0.f);
  return best;
}

}  // namespace

void LeakyArray(const float* x, const float* slope, int64_t step, float* y, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (step <= 1 && isa == Isa::kAvx512) return avx512::LeakyArray(x, slope, step, y, n);
  if (step <= 1 && isa == Isa::kAvx2) return avx2::LeakyArray(x, slope, step, y, n);
#endif
  constexpr int64_t kChunk = 256;
  float products[kChunk];
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t len = std::min(kChunk, n - i0);
    const float* xs = x + i0;
    if (step == 0) {
      for (int64_t i = 0; i < len; ++i) products[i] = xs[i] * slope[0];
    } else {
      const float* ss = slope + i0 * step;
      for (int64_t i = 0; i < len; ++i) products[i] = xs[i] * ss[i * step];
    }
    for (int64_t i = 0; i < len; ++i) y[i0 + i] = xs[i] >= 0 ? xs[i] : products[i];
  }
}

float MaxSkippingNaN(const float* x, int64_t n) { return ExtremeSkippingNaN<true>(x, n); }
float MinSkippingNaN(const float* x, int64_t n) { return ExtremeSkippingNaN<false>(x, n); }

double SumRow(const float* x, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::SumRow(x, n);
  if (isa == Isa::kAvx2) return avx2::SumRow(x, n);
#endif
  return SumInDoublePortable<false>(x, n, 0.0);
}

double SumSquaredDeviations(const float* x, int64_t n, double mean) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::SumSquaredDeviations(x, n, mean);
  if (isa == Isa::kAvx2) return avx2::SumSquaredDeviations(x, n, mean);
#endif
  return SumInDoublePortable<true>(x, n, mean);
}

void SoftmaxRow(const float* x, const float* bias, float scale, float* y, int64_t n) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::SoftmaxRow(x, bias, scale, y, n);
  if (isa == Isa::kAvx2) return avx2::SoftmaxRow(x, bias, scale, y, n);
#endif
  SoftmaxRowPortable(x, bias, scale, y, n);
}

void LayerNormRow(const float* x, const float* gamma, const float* beta, float epsilon, float* y, int64_t n,
                  float* mean_out, float* inv_std_out) {
#if defined(__x86_64__) || defined(_M_X64)
  static const Isa isa = ActiveIsa();
  if (isa == Isa::kAvx512) return avx512::LayerNormRow(x, gamma, beta, epsilon, y, n, mean_out, inv_std_out);
  if (isa == Isa::kAvx2) return avx2::LayerNormRow(x, gamma, beta, epsilon, y, n, mean_out, inv_std_out);
#endif
  LayerNormRowPortable(x, gamma, beta, epsilon, y, n, mean_out, inv_std_out);
}

}  // namespace gebe::cpu
