#include "cpu/half.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GEBE_HALF_X86 1
#endif

namespace gebe::cpu {

namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float HalfToFloatScalar(uint16_t h) {
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

uint16_t FloatToHalfScalar(float f) {
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

#ifdef GEBE_HALF_X86
__attribute__((target("avx,f16c"))) void HalfToFloatF16c(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = HalfToFloatScalar(in[i]);
}

__attribute__((target("avx,f16c"))) void FloatToHalfF16c(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = FloatToHalfScalar(in[i]);
}

__attribute__((target("avx,f16c"))) void RoundThroughHalfF16c(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(p + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(p + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) p[i] = HalfToFloatScalar(FloatToHalfScalar(p[i]));
}
#endif

bool UseF16c() {
#ifdef GEBE_HALF_X86
  static const bool use = [] {
    const char* isa = std::getenv("GEBE_CPU_ISA");
    if (isa != nullptr && std::strcmp(isa, "portable") == 0) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  }();
  return use;
#else
  return false;
#endif
}

}  // namespace

const char* HalfConversionIsa() { return UseF16c() ? "f16c" : "portable"; }

void HalfToFloat(const uint16_t* in, float* out, int64_t n) {
#ifdef GEBE_HALF_X86
  if (UseF16c()) return HalfToFloatF16c(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = HalfToFloatScalar(in[i]);
}

void FloatToHalf(const float* in, uint16_t* out, int64_t n) {
#ifdef GEBE_HALF_X86
  if (UseF16c()) return FloatToHalfF16c(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = FloatToHalfScalar(in[i]);
}

void BFloat16ToFloat(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = FromBits(uint32_t(in[i]) << 16);
}

void FloatToBFloat16(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u = Bits(in[i]);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      out[i] = uint16_t((u >> 16) | 0x40);  // quiet NaN
    } else {
      out[i] = uint16_t((u + 0x7fffu + ((u >> 16) & 1)) >> 16);  // round to nearest even
    }
  }
}

void RoundThroughNarrow(bool half, float* values, int64_t n) {
  if (half) {
#ifdef GEBE_HALF_X86
    if (UseF16c()) return RoundThroughHalfF16c(values, n);
#endif
    for (int64_t i = 0; i < n; ++i) values[i] = HalfToFloatScalar(FloatToHalfScalar(values[i]));
    return;
  }
  // Through a small stack block so that BF16's one rounding rule stays in FloatToBFloat16.
  uint16_t narrow[256];
  for (int64_t i = 0; i < n; i += 256) {
    int64_t m = n - i < 256 ? n - i : 256;
    FloatToBFloat16(values + i, narrow, m);
    BFloat16ToFloat(narrow, values + i, m);
  }
}

}  // namespace gebe::cpu
