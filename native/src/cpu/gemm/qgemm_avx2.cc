// The AVX2 integer GEMM kernel (qgemm_kernels.h). vpmaddubsw (UINT8 × INT8, pairs summed into a
// saturating INT16) can lose 255·127·2 > 32767, which MLAS accepts; here the activations are
// widened to INT16 and multiplied by INT16 weights with vpmaddwd (pairs summed into int32), which
// is exact, so every ISA gives the same integers. Tile: 4 weight rows × 8 columns, 8 ymm
// accumulators of pair sums folded with one horizontal add at the end. Compiled with per-function
// target attributes; used only when ActiveIsa() is avx2 (or avx512 without VNNI).
#include "cpu/gemm/qgemm_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#define GEBE_AVX2 __attribute__((target("avx2,fma")))

namespace gebe::cpu::qgemm_detail {

namespace {

// Rows r0 .. r0+4 of the panel × 8 columns at b (within one B panel, kQNR·4 bytes per quad).
GEBE_AVX2 inline void Tile(int64_t quads, const int16_t* a, int r0, int rows, const uint8_t* b, int64_t cols, int32_t* c,
                           int64_t ldc) {
  __m256i lo_acc[4], hi_acc[4];
  for (int r = 0; r < 4; ++r) lo_acc[r] = hi_acc[r] = _mm256_setzero_si256();
  for (int64_t q = 0; q < quads; ++q) {
    __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + q * kQNR * 4));
    __m256i lo = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(raw));       // columns 0..3, 4 values each
    __m256i hi = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(raw, 1));  // columns 4..7
    const int16_t* aq = a + (q * kQMR + r0) * 4;
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {
      long long w4;
      std::memcpy(&w4, aq + r * 4, 8);
      __m256i av = _mm256_set1_epi64x(w4);
      lo_acc[r] = _mm256_add_epi32(lo_acc[r], _mm256_madd_epi16(lo, av));
      hi_acc[r] = _mm256_add_epi32(hi_acc[r], _mm256_madd_epi16(hi, av));
    }
  }
  for (int r = 0; r < rows; ++r) {
    // [c0 c1 c4 c5 | c2 c3 c6 c7] → columns in order.
    __m256i sums = _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo_acc[r], hi_acc[r]), 0xD8);
    int32_t* out = c + (r0 + r) * ldc;
    if (cols >= 8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), sums);
    } else {
      alignas(32) int32_t tmp[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), sums);
      std::memcpy(out, tmp, size_t(cols) * sizeof(int32_t));
    }
  }
}

GEBE_AVX2 void Block(int64_t quads, const void* a_panel, int64_t mh, const uint8_t* b, int64_t n, int32_t* c, int64_t ldc) {
  const auto* a = static_cast<const int16_t*>(a_panel);
  int64_t panel_stride = quads * kQNR * 4;
  for (int64_t j0 = 0; j0 < n; j0 += 8) {
    const uint8_t* bp = b + (j0 / kQNR) * panel_stride + (j0 % kQNR) * 4;
    int64_t cols = std::min<int64_t>(8, n - j0);
    for (int r0 = 0; r0 < mh; r0 += 4) Tile(quads, a, r0, int(std::min<int64_t>(4, mh - r0)), bp, cols, c + j0, ldc);
  }
}

// QgemmRequantize's row, 8 columns a step (the tail by the portable row), the portable row's
// arithmetic in the same order; the empty asm keeps the product from being contracted into an FMA.
GEBE_AVX2 void RequantizeRow(const int32_t* acc, int64_t n, const QgemmRequant& rq, int64_t r, uint8_t* out) {
  const __m256i add = _mm256_set1_epi32(rq.add ? rq.add[r] : 0), zw = _mm256_set1_epi32(rq.zw ? rq.zw[r] : 0);
  const __m256 mul = _mm256_set1_ps(rq.mul[r]), bias = _mm256_set1_ps(rq.bias ? rq.bias[r] : 0.f);
  const __m256 floor = _mm256_set1_ps(rq.floor), divisor = _mm256_set1_ps(rq.divisor);
  const __m256 lo = _mm256_set1_ps(rq.lo), hi = _mm256_set1_ps(rq.hi);
  const __m256i zp = _mm256_set1_epi32(rq.zero_point);
  const __m256i bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1,
                                         -1, -1, -1, -1, -1, -1, -1, -1);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256i a = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + j)), add);
    if (rq.zw)
      a = _mm256_sub_epi32(a, _mm256_mullo_epi32(zw, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rq.col_sums + j))));
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), mul);
    __asm__("" : "+x"(v));
    v = _mm256_max_ps(_mm256_add_ps(v, bias), floor);  // max(v, floor): floor where v is NaN
    if (rq.divide) v = _mm256_div_ps(v, divisor);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    __m256i q = _mm256_shuffle_epi8(_mm256_add_epi32(_mm256_cvtps_epi32(v), zp), bytes);  // low byte of each lane
    uint32_t lo4 = uint32_t(_mm256_extract_epi32(q, 0)), hi4 = uint32_t(_mm256_extract_epi32(q, 4));
    std::memcpy(out + j, &lo4, 4);
    std::memcpy(out + j + 4, &hi4, 4);
  }
  if (j < n) {
    QgemmRequant tail = rq;
    if (rq.zw) tail.col_sums = rq.col_sums + j;
    RequantizeRowPortable(acc + j, n - j, tail, r, out + j);
  }
}

const Kernels kAvx2{"avx2", true, Block, RequantizeRow};

}  // namespace

const Kernels* Avx2Kernels() { return &kAvx2; }

}  // namespace gebe::cpu::qgemm_detail

#else
namespace gebe::cpu::qgemm_detail {
const Kernels* Avx2Kernels() { return nullptr; }
}  // namespace gebe::cpu::qgemm_detail
#endif
