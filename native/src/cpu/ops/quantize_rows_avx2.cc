// The quantisation rows (quantize_rows.h) for AVX2, 8 lanes a step: the portable rows' arithmetic
// in the same order (see quantize_rows_avx512.cc for why each step matches). Used only when
// ActiveIsa() is avx2.
#include "cpu/ops/quantize_rows.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <cstring>

#define GEBE_AVX2 __attribute__((target("avx2")))

namespace gebe::cpu {

namespace {

using namespace quantize_detail;

struct Quantizer {
  __m256 scale, zero_point, lo, hi;
  GEBE_AVX2 explicit Quantizer(const QuantizeParams& p)
      : scale(_mm256_set1_ps(p.scale)), zero_point(_mm256_set1_ps(p.zero_point)), lo(_mm256_set1_ps(p.lo)), hi(_mm256_set1_ps(p.hi)) {}
  // The 8 results as the low bytes of their int32 lanes, gathered into 8 bytes at y.
  GEBE_AVX2 void operator()(__m256 x, uint8_t* y) const {
    __m256 q = _mm256_div_ps(x, scale);
    q = _mm256_min_ps(_mm256_max_ps(q, _mm256_set1_ps(-4194304.f)), _mm256_set1_ps(4194304.f));
    q = _mm256_add_ps(_mm256_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zero_point);
    q = _mm256_min_ps(_mm256_max_ps(q, lo), hi);
    const __m256i low_bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                               0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i packed = _mm256_shuffle_epi8(_mm256_cvttps_epi32(q), low_bytes);
    uint32_t halves[2] = {uint32_t(_mm256_extract_epi32(packed, 0)), uint32_t(_mm256_extract_epi32(packed, 4))};
    std::memcpy(y, halves, 8);
  }
};

struct Dequantizer {
  __m256 scale, zero_point;
  bool is_signed;
  GEBE_AVX2 explicit Dequantizer(const DequantizeParams& p)
      : scale(_mm256_set1_ps(p.scale)), zero_point(_mm256_set1_ps(p.zero_point)), is_signed(p.is_signed) {}
  GEBE_AVX2 __m256 operator()(const uint8_t* v) const {
    int64_t bytes;
    std::memcpy(&bytes, v, 8);
    __m128i b = _mm_cvtsi64_si128(bytes);
    __m256i w = is_signed ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    __m256 f = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(w), zero_point), scale);
    __asm__("" : "+x"(f));
    return f;
  }
};

GEBE_AVX2 void QuantizeRow(const float* x, int64_t n, const QuantizeParams& p, uint8_t* y) {
  const Quantizer q(p);
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) q(_mm256_loadu_ps(x + k), y + k);
  for (; k < n; ++k) y[k] = Quantize(x[k], p);
}

GEBE_AVX2 void AddRow(const uint8_t* a, const DequantizeParams& da, const uint8_t* b, const DequantizeParams& db, int64_t n,
                      const QuantizeParams& p, uint8_t* y) {
  const Quantizer q(p);
  const Dequantizer dqa(da), dqb(db);
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) q(_mm256_add_ps(dqa(a + k), dqb(b + k)), y + k);
  for (; k < n; ++k) {
    float va = Dequantize(a[k], da), vb = Dequantize(b[k], db);
    y[k] = Quantize(va + vb, p);
  }
}

const QuantizeRows kAvx2{QuantizeRow, AddRow};

}  // namespace

const QuantizeRows* Avx2QuantizeRows() { return &kAvx2; }

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
const QuantizeRows* Avx2QuantizeRows() { return nullptr; }
}  // namespace gebe::cpu

#endif
