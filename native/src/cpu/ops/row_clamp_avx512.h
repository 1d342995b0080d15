// Relu or Clip (RowClamp, conv_depthwise_rows.h) on 16 lanes, as the AVX-512 row kernels apply
// them while storing (conv_depthwise_avx512.cc, conv_strided_avx512.cc). Only included by files
// whose functions carry AVX-512 target attributes; it inlines into any such caller.
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include "cpu/ops/conv_depthwise_rows.h"

namespace gebe::cpu::avx512 {

// lo and hi hold c.lo and c.hi in every lane. max_ps/min_ps return their second operand where
// either is NaN: Relu's NaN gives lo, Clip's is kept (as Activation::Apply computes them).
__attribute__((target("avx512f"))) inline __m512 ClampVector(__m512 v, const RowClamp& c, __m512 lo, __m512 hi) {
  if (c.kind == RowClamp::kRelu) return _mm512_max_ps(v, lo);
  if (c.kind == RowClamp::kClip) return _mm512_min_ps(hi, _mm512_max_ps(lo, v));
  return v;
}

}  // namespace gebe::cpu::avx512

#endif
