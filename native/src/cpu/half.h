// FP16 and BF16 storage types. The engine computes in FP32 (as ONNX Runtime's CPU provider does
// for the operators it has no half kernels for): these convert whole arrays at the graph's edges
// and in Cast. FP16 uses F16C when the CPU has it (half_f16c.cc, chosen at run time, never by
// -march), with a portable bit-exact fallback (round to nearest even, NaN and Inf kept; half.cc).
#pragma once

#include <cstdint>

namespace gebe::cpu {

void HalfToFloat(const uint16_t* in, float* out, int64_t n);
void FloatToHalf(const float* in, uint16_t* out, int64_t n);
void BFloat16ToFloat(const uint16_t* in, float* out, int64_t n);
void FloatToBFloat16(const float* in, uint16_t* out, int64_t n);
// Rounds FP32 values in place to the nearest FP16 (half=true) or BF16 value, kept as FP32: a Cast
// to a narrow type inside a graph that type lowering computes in FP32.
void RoundThroughNarrow(bool half, float* values, int64_t n);

// "f16c" or "portable": what HalfToFloat/FloatToHalf use on this CPU (GEBE_CPU_ISA=portable forces portable).
const char* HalfConversionIsa();

}  // namespace gebe::cpu
