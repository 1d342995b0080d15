// The quantisation rows (quantize_rows.h) for AVX-512 F/BW, 16 lanes a step: the portable rows'
// arithmetic in the same order. vrndscaleps rounds half to even as the portable row's 1.5 · 2^23
// trick does on the clamped quotient; vmaxps returns its second operand for a NaN, so NaN lands on
// the low end as there. The empty asm keeps DequantizeLinear's product a rounding of its own (GCC
// would otherwise contract it and the Add into an FMA). Used only when ActiveIsa() is avx512.
#include "cpu/ops/quantize_rows.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

// GCC 12 implements _mm512_undefined_ps as a self-initialised variable, which -Wuninitialized reports.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GEBE_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))

namespace gebe::cpu {

namespace {

using namespace quantize_detail;

struct Quantizer {
  __m512 scale, zero_point, lo, hi;
  GEBE_AVX512 explicit Quantizer(const QuantizeParams& p)
      : scale(_mm512_set1_ps(p.scale)), zero_point(_mm512_set1_ps(p.zero_point)), lo(_mm512_set1_ps(p.lo)), hi(_mm512_set1_ps(p.hi)) {}
  GEBE_AVX512 __m128i operator()(__m512 x) const {
    __m512 q = _mm512_div_ps(x, scale);
    q = _mm512_min_ps(_mm512_max_ps(q, _mm512_set1_ps(-4194304.f)), _mm512_set1_ps(4194304.f));
    q = _mm512_add_ps(_mm512_roundscale_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zero_point);
    q = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
    return _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(q));
  }
};

struct Dequantizer {
  __m512 scale, zero_point;
  bool is_signed;
  GEBE_AVX512 explicit Dequantizer(const DequantizeParams& p)
      : scale(_mm512_set1_ps(p.scale)), zero_point(_mm512_set1_ps(p.zero_point)), is_signed(p.is_signed) {}
  GEBE_AVX512 __m512 operator()(__m128i v) const {
    __m512i w = is_signed ? _mm512_cvtepi8_epi32(v) : _mm512_cvtepu8_epi32(v);
    __m512 f = _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(w), zero_point), scale);
    __asm__("" : "+v"(f));
    return f;
  }
};

GEBE_AVX512 void QuantizeRow(const float* x, int64_t n, const QuantizeParams& p, uint8_t* y) {
  const Quantizer q(p);
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(y + k), q(_mm512_loadu_ps(x + k)));
  for (; k < n; ++k) y[k] = Quantize(x[k], p);
}

GEBE_AVX512 void AddRow(const uint8_t* a, const DequantizeParams& da, const uint8_t* b, const DequantizeParams& db, int64_t n,
                        const QuantizeParams& p, uint8_t* y) {
  const Quantizer q(p);
  const Dequantizer dqa(da), dqb(db);
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    __m512 va = dqa(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + k)));
    __m512 vb = dqb(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + k)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + k), q(_mm512_add_ps(va, vb)));
  }
  for (; k < n; ++k) {
    float va = Dequantize(a[k], da), vb = Dequantize(b[k], db);
    y[k] = Quantize(va + vb, p);
  }
}

const QuantizeRows kAvx512{QuantizeRow, AddRow};

}  // namespace

const QuantizeRows* Avx512QuantizeRows() { return &kAvx512; }

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
const QuantizeRows* Avx512QuantizeRows() { return nullptr; }
}  // namespace gebe::cpu

#endif
