// The F16C conversions of half.h (8 values a step, the tails through half_scalar.h), compiled with
// per-function target attributes, never -mf16c. Defined on x86 only (GEBE_HALF_X86); half.cc calls
// them when the CPU has AVX and F16C and GEBE_CPU_ISA is not portable.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#define GEBE_HALF_X86 1
#endif

namespace gebe::cpu::f16c {

void HalfToFloat(const uint16_t* in, float* out, int64_t n);
void FloatToHalf(const float* in, uint16_t* out, int64_t n);
// values[i] rounded to the nearest FP16 value, in place.
void RoundThroughHalf(float* values, int64_t n);

}  // namespace gebe::cpu::f16c
