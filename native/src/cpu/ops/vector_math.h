// Array versions of the transcendental functions that dominate transformer activations (Erf,
// Gelu). On x86-64 with AVX2+FMA (checked once at run time) they use 8-lane polynomial
// approximations accurate to a few float ulps; elsewhere they call std::erf per element.
#pragma once

#include <cstdint>

namespace gebe::cpu {

// y[i] = erf(x[i]); x and y may be the same array.
void ErfArray(const float* x, float* y, int64_t n);
// y[i] = 0.5 x[i] (1 + erf(x[i] / sqrt 2)); x and y may be the same array.
void GeluArray(const float* x, float* y, int64_t n);

// y[i] = exp(x[i] - shift) for x[i] <= shift (Softmax after subtracting the row maximum);
// returns the sum of the y[i]. NaN passes through; results below float range are 0.
float ExpShiftedSum(const float* x, float* y, int64_t n, float shift);

}  // namespace gebe::cpu
