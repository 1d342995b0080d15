// Lane helpers the AVX-512 kernels share. Only included by files whose functions carry AVX-512
// target attributes (never -mavx512f); EvenLanes/OddLanes need AVX-512F, which any such caller's
// target includes, so they inline into it.
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <cstdint>

namespace gebe::cpu::avx512 {

// Mask of the first n of 16 lanes: none for n <= 0, all for n >= 16.
inline __mmask16 FirstLanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << unsigned(n)) - 1u);
}

// Permute indices (_mm512_permutex2var_ps) taking the even / odd lanes of a pair of vectors:
// 32 inputs → 16.
__attribute__((target("avx512f"))) inline __m512i EvenLanes() {
  return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}
__attribute__((target("avx512f"))) inline __m512i OddLanes() {
  return _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

// r[i] lane j <-> r[j] lane i: a 16 × 16 transpose in registers, in four stages, each swapping the
// off-diagonal b × b blocks of every 2b × 2b block (b = 8, 4, 2, 1) with one two-source permute
// per row.
__attribute__((target("avx512f"))) inline void Transpose16(__m512 r[16]) {
#pragma GCC unroll 4
  for (int b = 8; b >= 1; b /= 2) {
    alignas(64) int32_t lo[16], hi[16];
    for (int j = 0; j < 16; ++j) {
      lo[j] = (j & b) ? 16 + j - b : j;
      hi[j] = (j & b) ? 16 + j : j + b;
    }
    const __m512i idx_lo = _mm512_load_si512(lo), idx_hi = _mm512_load_si512(hi);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) {
      if (i & b) continue;
      const __m512 top = _mm512_permutex2var_ps(r[i], idx_lo, r[i + b]);
      const __m512 bottom = _mm512_permutex2var_ps(r[i], idx_hi, r[i + b]);
      r[i] = top;
      r[i + b] = bottom;
    }
  }
}

}  // namespace gebe::cpu::avx512

#endif
