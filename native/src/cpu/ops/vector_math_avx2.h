// The AVX2+FMA row math of vector_math.h (8 lanes, masked tails). Defined on x86-64 only;
// vector_math.cc calls them when ActiveIsa() is avx2.
#pragma once

#include <cstdint>

namespace gebe::cpu::avx2 {

void ErfArray(const float* x, float* y, int64_t n);
void GeluArray(const float* x, float* y, int64_t n);
float ExpShiftedSum(const float* x, float* y, int64_t n, float shift);
void ExpArray(const float* x, float* y, int64_t n);
void LogArray(const float* x, float* y, int64_t n);
void SoftplusArray(const float* x, float* y, int64_t n);
void TanhArray(const float* x, float* y, int64_t n);
void SigmoidArray(const float* x, float* y, int64_t n);
void SiluArray(const float* x, float* y, int64_t n);
// LeakyArray for a slope step of 0 (one slope) or 1 (a slope row).
void LeakyArray(const float* x, const float* slope, int64_t step, float* y, int64_t n);
void HardSigmoidArray(const float* x, float* y, int64_t n, float alpha, float beta, bool times_x);
// The largest (kMax) or smallest of x[0, n) by `v > m ? v : m` (or <) from ∓inf, on independent
// chains; where it is a zero, which zero is left to the caller (vector_math.cc).
float MaxChains(const float* x, int64_t n);
float MinChains(const float* x, int64_t n);
double SumRow(const float* x, int64_t n);
double SumSquaredDeviations(const float* x, int64_t n, double mean);
void SoftmaxRow(const float* x, const float* bias, float scale, float* y, int64_t n);
void LayerNormRow(const float* x, const float* gamma, const float* beta, float epsilon, float* y, int64_t n,
                  float* mean_out, float* inv_std_out);

}  // namespace gebe::cpu::avx2
