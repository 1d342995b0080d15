// Array versions of the element-wise and row operations that dominate models outside GEMM (Erf,
// Gelu, Tanh, Sigmoid, SiLU, HardSigmoid/HardSwish, Softmax and LayerNormalization rows). On x86-64 with AVX2+FMA or AVX-512
// (the ISA checked once at run time) they use 8- or 16-lane code with polynomial approximations
// accurate to about 1e-6 relative (erf: 4e-7 absolute), vector_math_avx2.cc and
// vector_math_avx512.cc; elsewhere plain loops over the standard library (vector_math.cc).
#pragma once

#include <cmath>
#include <cstdint>

namespace gebe::cpu {

// y[i] = erf(x[i]); x and y may be the same array.
void ErfArray(const float* x, float* y, int64_t n);
// y[i] = 0.5 x[i] (1 + erf(x[i] / sqrt 2)); x and y may be the same array.
void GeluArray(const float* x, float* y, int64_t n);

// y[i] = exp(x[i] - shift) for x[i] <= shift (Softmax after subtracting the row maximum);
// returns the sum of the y[i]. NaN passes through; results below float range are 0. y may be
// nullptr: only the sum (LogSoftmax's).
float ExpShiftedSum(const float* x, float* y, int64_t n, float shift);

// y[i] = exp(x[i]); x and y may be the same array. On [-87, 88] the vector code's polynomial
// (within 2 ulp of the library's exp); outside it (subnormal results, overflow, NaN) std::exp.
void ExpArray(const float* x, float* y, int64_t n);

// y[i] = log(x[i]); x and y may be the same array. For positive normal floats the vector code's
// polynomial (Cephes logf, within 2 ulp of the library's log); zeros, negatives, subnormals,
// infinities and NaN through std::log.
void LogArray(const float* x, float* y, int64_t n);

// softplus(x) = log(1 + exp(x)) as ONNX Runtime takes it, and as the vector code's lanes outside
// its range (x below -87, NaN) take it.
inline float SoftplusScalar(float x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
// y[i] = softplus(x[i]): max(x, 0) + log1p(exp(-|x|)), the log1p as log(u)·t/(u − 1) with
// u = 1 + t (t when u is 1), within a few ulp of SoftplusScalar. x and y may be the same array.
void SoftplusArray(const float* x, float* y, int64_t n);

// y[i] = tanh(x[i]); x and y may be the same array.
void TanhArray(const float* x, float* y, int64_t n);
// y[i] = 1 / (1 + exp(-x[i])); x and y may be the same array.
void SigmoidArray(const float* x, float* y, int64_t n);

// y[i] = x[i] · sigmoid(x[i]) (SiLU): SigmoidArray's value times x[i], so the same bits as Sigmoid
// then Mul, in one pass. x and y may be the same array.
void SiluArray(const float* x, float* y, int64_t n);

// y[i] = max(0, min(1, alpha x[i] + beta)) (HardSigmoid), times x[i] when times_x (HardSwish:
// alpha 1/6, beta 1/2). A product, then a sum, no fused multiply-add: ONNX Runtime's values, bit for
// bit. A NaN x gives 1 before the product (as fmin/fmax, which drop a NaN operand). x and y may be
// the same array.
void HardSigmoidArray(const float* x, float* y, int64_t n, float alpha, float beta, bool times_x);

// y[i] = x[i] >= 0 ? x[i] : x[i] · slope[i · step] (step 0: one slope for all; LeakyRelu, PRelu
// and a fused LeakyRelu epilogue); y may alias x. AVX2 and AVX-512 take steps 0 and 1 with a
// masked product; otherwise the products are taken 256 at a time into a buffer and then selected,
// so the loops vectorise (in one loop the compiler moves the multiply into the branch that needs
// it, and the loop stays scalar).
void LeakyArray(const float* x, const float* slope, int64_t step, float* y, int64_t n);

// The largest of n contiguous floats as MaxPool takes it (v > m ? v : m from -inf: a NaN is
// skipped, -inf when all are NaN or n is 0), on eight independent maxima; where the maximum is a
// zero, the first zero of x, as one chain keeps it (GlobalMaxPool, the log-softmax's shift).
float MaxSkippingNaN(const float* x, int64_t n);
// The smallest, by the same rule (v < m ? v : m from +inf).
float MinSkippingNaN(const float* x, int64_t n);

// The sum of n contiguous floats, accumulated in double (ReduceSum and ReduceMean over trailing
// axes: a squeeze-and-excitation block's global average).
double SumRow(const float* x, int64_t n);
// The sum of (x[i] - mean)² over n contiguous floats, in double (Instance- and
// GroupNormalization's variance).
double SumSquaredDeviations(const float* x, int64_t n, double mean);

// y = softmax(x * scale + bias) over n contiguous values; bias may be nullptr. y must not alias
// bias (it may alias x). A NaN anywhere in the row makes the whole row NaN.
void SoftmaxRow(const float* x, const float* bias, float scale, float* y, int64_t n);

// y = (x - mean) / sqrt(var + epsilon) * gamma + beta over n contiguous values (beta may be
// nullptr); the row's mean and 1/sqrt(var + epsilon) are stored where the pointers are non-null.
void LayerNormRow(const float* x, const float* gamma, const float* beta, float epsilon, float* y, int64_t n,
                  float* mean_out, float* inv_std_out);

}  // namespace gebe::cpu
