#include "cpu/half_f16c.h"

#ifdef GEBE_HALF_X86
#include <immintrin.h>

#include "cpu/half_scalar.h"

namespace gebe::cpu::f16c {

using half_detail::FloatToHalfScalar;
using half_detail::HalfToFloatScalar;

__attribute__((target("avx,f16c"))) void HalfToFloat(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = HalfToFloatScalar(in[i]);
}

__attribute__((target("avx,f16c"))) void FloatToHalf(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = FloatToHalfScalar(in[i]);
}

__attribute__((target("avx,f16c"))) void RoundThroughHalf(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(p + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(p + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) p[i] = HalfToFloatScalar(FloatToHalfScalar(p[i]));
}

}  // namespace gebe::cpu::f16c

#endif
