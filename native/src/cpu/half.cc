// The portable FP16/BF16 conversions of half.h and the choice of the F16C ones (half_f16c.cc),
// made once per process.
#include "cpu/half.h"

#include <cstdlib>
#include <cstring>

#include "cpu/half_f16c.h"
#include "cpu/half_scalar.h"

#ifdef GEBE_HALF_X86
#include <cpuid.h>
#endif

namespace gebe::cpu {

namespace {

using half_detail::Bits;
using half_detail::FloatToHalfScalar;
using half_detail::FromBits;
using half_detail::HalfToFloatScalar;

bool UseF16c() {
#ifdef GEBE_HALF_X86
  static const bool use = [] {
    const char* isa = std::getenv("GEBE_CPU_ISA");
    if (isa != nullptr && std::strcmp(isa, "portable") == 0) return false;
    __builtin_cpu_init();
    // F16C from cpuid leaf 1 (clang before 17 has no "f16c" for __builtin_cpu_supports); the
    // "avx" check covers the OS saving the YMM state.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
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
  if (UseF16c()) return f16c::HalfToFloat(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = HalfToFloatScalar(in[i]);
}

void FloatToHalf(const float* in, uint16_t* out, int64_t n) {
#ifdef GEBE_HALF_X86
  if (UseF16c()) return f16c::FloatToHalf(in, out, n);
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
    if (UseF16c()) return f16c::RoundThroughHalf(values, n);
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
