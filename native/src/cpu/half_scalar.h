// The scalar FP16 conversions (round to nearest even, NaN and Inf kept): the portable path of
// half.cc, and the tails of the F16C loops in half_f16c.cc, which must round exactly as they do.
#pragma once

#include <cstdint>
#include <cstring>

namespace gebe::cpu::half_detail {

inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float HalfToFloatScalar(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f) return FromBits(sign | 0x7f800000u | (mant << 13));  // Inf / NaN
  if (exp == 0) {
    if (mant == 0) return FromBits(sign);
    // Subnormal: value = mant * 2^-24.
    float v = float(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  return FromBits(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t FloatToHalfScalar(float f) {
  uint32_t u = Bits(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) return uint16_t(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0));  // Inf / NaN
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // rounds past 65504: Inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): round abs * 2^24 to the nearest integer, ties to even.
    float v = FromBits(abs) * 16777216.0f;
    uint32_t m = uint32_t(v);
    float rest = v - float(m);
    if (rest > 0.5f || (rest == 0.5f && (m & 1))) ++m;
    return uint16_t(sign | m);
  }
  uint32_t mant = abs & 0x7fffffu;
  uint32_t exp = (abs >> 23) - 112;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;  // may carry into the exponent: still right
  return uint16_t(sign | h);
}

}  // namespace gebe::cpu::half_detail
