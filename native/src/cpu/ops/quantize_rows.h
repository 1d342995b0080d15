// The element-wise rows of 8-bit quantisation, one copy per ISA (quantize_rows.cc portable and
// the dispatch, quantize_rows_avx2.cc, quantize_rows_avx512.cc): QuantizeLinear's FP32 → 8-bit
// row, and the QDQ fusion's Add of two dequantised 8-bit tensors requantised (DQ(a) + DQ(b) → Q).
// Every copy computes what the unfused graph does, in its order and in FP32: DequantizeLinear's
// (float(v) − zero point) · scale, the Add, QuantizeLinear's quotient by the scale rounded half to
// even, plus the zero point, saturated; so the results are the same bit for bit on every ISA.
#pragma once

#include <cstdint>

namespace gebe::cpu {

struct QuantizeParams {
  float scale = 1.f, zero_point = 0.f;
  float lo = 0.f, hi = 255.f;  // the output type's range: 0..255 (UINT8) or -128..127 (INT8)
};

struct DequantizeParams {
  float scale = 1.f, zero_point = 0.f;
  bool is_signed = false;  // INT8 (else UINT8) values
};

// y[k] = Q(x[k]), 8-bit (two's complement for INT8).
using QuantizeRowFn = void (*)(const float* x, int64_t n, const QuantizeParams& q, uint8_t* y);
// y[k] = Q(DQa(a[k]) + DQb(b[k])).
using QuantizedAddRowFn = void (*)(const uint8_t* a, const DequantizeParams& da, const uint8_t* b, const DequantizeParams& db,
                                   int64_t n, const QuantizeParams& q, uint8_t* y);

struct QuantizeRows {
  QuantizeRowFn quantize;
  QuantizedAddRowFn add;
};

// The rows of ActiveIsa().
const QuantizeRows& ActiveQuantizeRows();
const QuantizeRows* Avx2QuantizeRows();    // nullptr when not built for x86-64
const QuantizeRows* Avx512QuantizeRows();  // nullptr when not built for x86-64

namespace quantize_detail {

// One element, the portable rows' arithmetic (and the vector rows' tails): the quotient clamped to
// ±2^22 first so that adding and subtracting 1.5 · 2^23 rounds it half to even; a NaN fails every
// comparison and lands on the low end.
inline uint8_t Quantize(float x, const QuantizeParams& p) {
  const float kRound = 12582912.f;
  float q = x / p.scale;
  q = q > -4194304.f ? q : -4194304.f;
  q = q < 4194304.f ? q : 4194304.f;
  q = (q + kRound) - kRound + p.zero_point;
  q = q > p.lo ? q : p.lo;
  q = q < p.hi ? q : p.hi;
  return uint8_t(int32_t(q));
}

inline float Dequantize(uint8_t v, const DequantizeParams& p) {
  return (float(p.is_signed ? int32_t(int8_t(v)) : int32_t(v)) - p.zero_point) * p.scale;
}

}  // namespace quantize_detail

}  // namespace gebe::cpu
