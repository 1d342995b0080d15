// The direct stride-2 convolution's row kernel for AVX-512 (conv_strided.h), used only when
// ActiveIsa() is avx512. A tile is 16 output channels × 16 output positions; per tap, the 16
// positions' inputs are the even lanes of 32 consecutive floats of one input row, and each
// channel's weight is broadcast from the packed block.
#include "cpu/ops/conv_strided.h"

#if defined(__x86_64__) || defined(_M_X64)

#include <immintrin.h>

#include <algorithm>

#include "cpu/avx512_lanes.h"
#include "cpu/isa.h"
#include "cpu/ops/row_clamp_avx512.h"

// GCC 12 implements _mm512_undefined_* (inside some intrinsics) as a self-initialised variable,
// which -Wmaybe-uninitialized reports, as in vector_math_avx512.cc.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace gebe::cpu {

namespace {

#define GEBE_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma")))

// Lanes i of 16 whose input column base + i lies in [0, iw).
inline __mmask16 InRow(int64_t base, int64_t iw) {
  const int64_t lo = std::max<int64_t>(0, -base), hi = std::min<int64_t>(16, iw - base);
  return hi <= lo ? __mmask16(0) : __mmask16(avx512::FirstLanes(hi) & ~avx512::FirstLanes(lo));
}

// Outputs [x0, x0 + 16) of the row, kC channels a.y ... a.y + (kC - 1) · ohw. The input rows that the
// kernel rows reach are row_at[0..taps_h) (offsets into a plane), of kernel rows ky[...]. kEdge:
// some loads reach past the row's ends (the padding, or the row's last outputs), so they are masked.
//
// One vector of positions by 16 channels: each tap's weights are used once, as the FMAs' broadcast
// operands. Measured at 1 thread against 8 channels by 48 positions (three vectors, each weight
// broadcast into a register once for the three): 3 → 16 channels at 224² 210 → 181 µs, 3 → 32
// 443 → 368, 16 → 32 at 128² 565 → 473. The broadcasts, not the permutes, held the wider tile back.
template <int kC, bool kEdge>
GEBE_AVX512 __attribute__((always_inline)) inline void Tile(const StridedRowArgs& a, const int64_t* row_at, const int64_t* ky,
                                                            int taps_h, int64_t x0) {
  const Geo2& g = a.g;
  const int64_t ihw = g.ih * g.iw, kw = g.kw, col0 = 2 * x0 - g.pw;
  const __m512i even = avx512::EvenLanes();
  __m512 acc[kC];
#pragma GCC unroll 16
  for (int j = 0; j < kC; ++j) acc[j] = a.bias ? _mm512_set1_ps(a.bias[j]) : _mm512_setzero_ps();
  __mmask16 lo_mask[kStridedMaxKernel], hi_mask[kStridedMaxKernel];
  if (kEdge) {
    for (int64_t kx = 0; kx < kw; ++kx) {
      lo_mask[kx] = InRow(col0 + kx * g.dw, g.iw);
      hi_mask[kx] = InRow(col0 + kx * g.dw + 16, g.iw);
    }
  }
  for (int64_t c = 0; c < a.cg; ++c) {
    const float* plane = a.x + c * ihw + col0;
    const float* wc = a.w + c * g.kh * kw * kC;
    for (int r = 0; r < taps_h; ++r) {
      const float* in = plane + row_at[r];
      const float* wr = wc + ky[r] * kw * kC;
      for (int64_t kx = 0; kx < kw; ++kx) {
        const float* p = in + kx * g.dw;
        const __m512 lo = kEdge ? _mm512_maskz_loadu_ps(lo_mask[kx], p) : _mm512_loadu_ps(p);
        const __m512 hi = kEdge ? _mm512_maskz_loadu_ps(hi_mask[kx], p + 16) : _mm512_loadu_ps(p + 16);
        const __m512 v = _mm512_permutex2var_ps(lo, even, hi);
        const float* wk = wr + kx * kC;
#pragma GCC unroll 16
        for (int j = 0; j < kC; ++j) acc[j] = _mm512_fmadd_ps(_mm512_set1_ps(wk[j]), v, acc[j]);
      }
    }
  }
  const __m512 lo = _mm512_set1_ps(a.clamp.lo), hi = _mm512_set1_ps(a.clamp.hi);
  const __mmask16 m = avx512::FirstLanes(g.ow - x0);
#pragma GCC unroll 16
  for (int j = 0; j < kC; ++j) {
    __m512 v = acc[j];
    if (a.residual) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, a.residual + j * a.ohw + x0));
    _mm512_mask_storeu_ps(a.y + j * a.ohw + x0, m, avx512::ClampVector(v, a.clamp, lo, hi));
  }
}

// One row of a block of kC channels: a function of its own per kC (inlining both into one made
// the 16-channel loop 7% slower).
template <int kC>
GEBE_AVX512 __attribute__((noinline)) void RowOf(const StridedRowArgs& a, int64_t oh) {
  const Geo2& g = a.g;
  // The kernel rows that reach the input for this output row (the others read only padding).
  int64_t row_at[kStridedMaxKernel], ky[kStridedMaxKernel];
  int taps_h = 0;
  for (int64_t k = 0; k < g.kh; ++k) {
    const int64_t ih = 2 * oh - g.ph + k * g.dh;
    if (ih < 0 || ih >= g.ih) continue;
    row_at[taps_h] = ih * g.iw;
    ky[taps_h++] = k;
  }
  for (int64_t x0 = 0; x0 < g.ow; x0 += 16) {
    // Every load inside the row: from the first tap's first column to the last tap's last.
    const bool inside = 2 * x0 - g.pw >= 0 && 2 * x0 - g.pw + 32 + (g.kw - 1) * g.dw <= g.iw;
    inside ? Tile<kC, false>(a, row_at, ky, taps_h, x0) : Tile<kC, true>(a, row_at, ky, taps_h, x0);
  }
}

void StridedRow(const StridedRowArgs& a, int64_t oh) { a.channels == 8 ? RowOf<8>(a, oh) : RowOf<16>(a, oh); }

}  // namespace

StridedRowFn Avx512StridedRow() { return ActiveIsa() == Isa::kAvx512 ? StridedRow : nullptr; }

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
StridedRowFn Avx512StridedRow() { return nullptr; }
}  // namespace gebe::cpu

#endif
