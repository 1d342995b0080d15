// The MaxPool row and AveragePool's planes compiled for AVX-512 (16 lanes); used only when ActiveIsa() is avx512.
#include "cpu/ops/pool_rows.h"

#if defined(__x86_64__) || defined(_M_X64)

// GCC vectorises loops with 256-bit vectors even for AVX-512 unless told otherwise; clang's
// target attribute has no such option (it uses 512-bit vectors where profitable).
#if defined(__clang__)
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"
#else
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,prefer-vector-width=512"
#endif

#include <immintrin.h>

#include "cpu/avx512_lanes.h"

// GCC 12 implements _mm512_undefined_ps (inside the two-source permutes) as a self-initialised
// variable, which -Wmaybe-uninitialized reports, as in vector_math_avx512.cc.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace gebe::cpu {

namespace {

using avx512::FirstLanes;

// The 2×2 stride-2 window over two input rows, 16 outputs a vector: the even and odd columns of
// 32 inputs split by two permutes, then max(v, m) in the scalar loop's order (v > m ? v : m, which
// is what vmaxps(v, m) computes, NaN included). A tail of fewer than 16 outputs reads its inputs
// through masks, so nothing past the row's last window is touched.
__attribute__((target(GEBE_AVX512_LOOPS))) void Max2x2Stride2(const float* r0, const float* r1, float* dst, int64_t n) {
  const __m512i even = avx512::EvenLanes(), odd = avx512::OddLanes();
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t i = 0; i < n; i += 16) {
    int64_t rem = n - i < 16 ? n - i : 16;
    __mmask16 lo = FirstLanes(2 * rem), hi = FirstLanes(2 * rem - 16);  // the vectors holding the 2·rem inputs
    __m512 a0 = _mm512_maskz_loadu_ps(lo, r0 + 2 * i), a1 = _mm512_maskz_loadu_ps(hi, r0 + 2 * i + 16);
    __m512 b0 = _mm512_maskz_loadu_ps(lo, r1 + 2 * i), b1 = _mm512_maskz_loadu_ps(hi, r1 + 2 * i + 16);
    __m512 m = _mm512_max_ps(_mm512_permutex2var_ps(a0, even, a1), lowest);
    m = _mm512_max_ps(_mm512_permutex2var_ps(a0, odd, a1), m);
    m = _mm512_max_ps(_mm512_permutex2var_ps(b0, even, b1), m);
    m = _mm512_max_ps(_mm512_permutex2var_ps(b0, odd, b1), m);
    _mm512_mask_storeu_ps(dst + i, FirstLanes(rem), m);
  }
}

// Stride 1 or 2 with any other window: the maxima of the window's rows per input column first
// (one unit-stride pass per row), then for each window column b the 16 column maxima from
// i + b·dw on (stride 2: the even lanes of the 32 from 2i + b·dw), through masks that stop at the
// last column a window reads. Both steps compute max(v, m) as the scalar loops do (v > m ? v : m:
// a NaN input is skipped), so the result is the portable one bit for bit.
template <int S>
__attribute__((target(GEBE_AVX512_LOOPS))) void MaxStrided(const float* xc, int64_t iw, int64_t y0, int64_t a0,
                                                           int64_t a1, int64_t dh, int64_t kw, int64_t dw, int64_t x0,
                                                           float* dst, int64_t n) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const int64_t span = (n - 1) * S + (kw - 1) * dw + 1;
  thread_local std::vector<float> column;
  if (column.size() < size_t(span)) column.resize(size_t(span));
  float* v = column.data();
  for (int64_t x = 0; x < span; x += 16) {
    __mmask16 m = FirstLanes(span - x);
    __m512 c = lowest;
    for (int64_t a = a0; a < a1; ++a) c = _mm512_max_ps(_mm512_maskz_loadu_ps(m, xc + (y0 + a * dh) * iw + x0 + x), c);
    _mm512_mask_storeu_ps(v + x, m, c);
  }
  const __m512i even = avx512::EvenLanes();
  for (int64_t i = 0; i < n; i += 16) {
    int64_t rem = n - i < 16 ? n - i : 16;
    __m512 out = lowest;
    for (int64_t b = 0; b < kw; ++b) {
      const float* col = v + S * i + b * dw;
      if (S == 1) {
        out = _mm512_max_ps(_mm512_maskz_loadu_ps(FirstLanes(rem), col), out);
      } else {
        int64_t need = 2 * rem - 1;  // column maxima the outputs read
        __m512 lo = _mm512_maskz_loadu_ps(FirstLanes(need), col), hi = _mm512_maskz_loadu_ps(FirstLanes(need - 16), col + 16);
        out = _mm512_max_ps(_mm512_permutex2var_ps(lo, even, hi), out);
      }
    }
    _mm512_mask_storeu_ps(dst + i, FirstLanes(rem), out);
  }
}

// Stride 2 with the window's columns in two registers: per chunk of up to `chunk` outputs (whose
// 2·(chunk - 1) + (kw - 1)·dw + 1 input columns fit 32 lanes), the maxima of the window's rows
// for those columns in c0 and c1, then for each window column b the lanes 2i + b·dw of the pair
// by one two-source permute. MaxStrided<2> went through a buffer instead, and its shifted loads
// of maxima just stored failed store forwarding on short rows (Inception's 17x17 -> 8x8 pools:
// 1.7x ORT). The same max(v, m) steps in the same order: its values bit for bit.
__attribute__((target(GEBE_AVX512_LOOPS))) void MaxStride2Registers(const float* xc, int64_t iw, int64_t y0, int64_t a0,
                                                                    int64_t a1, int64_t dh, int64_t kw, int64_t dw,
                                                                    int64_t x0, float* dst, int64_t n, int64_t chunk) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const __m512i even = avx512::EvenLanes();
  for (int64_t i = 0; i < n; i += chunk) {
    const int64_t count = std::min(chunk, n - i);
    const int64_t span = 2 * (count - 1) + (kw - 1) * dw + 1;  // <= 32
    const __mmask16 m0 = FirstLanes(span), m1 = FirstLanes(span - 16);
    __m512 c0 = lowest, c1 = lowest;
    for (int64_t a = a0; a < a1; ++a) {
      const float* row = xc + (y0 + a * dh) * iw + x0 + 2 * i;
      c0 = _mm512_max_ps(_mm512_maskz_loadu_ps(m0, row), c0);
      c1 = _mm512_max_ps(_mm512_maskz_loadu_ps(m1, row + 16), c1);
    }
    __m512 out = lowest;
    for (int64_t b = 0; b < kw; ++b) {
      // Lanes past `count` index past the 32 and wrap; they are not stored.
      const __m512i at = _mm512_add_epi32(even, _mm512_set1_epi32(int(b * dw)));
      out = _mm512_max_ps(_mm512_permutex2var_ps(c0, at, c1), out);
    }
    _mm512_mask_storeu_ps(dst + i, FirstLanes(count), out);
  }
}

__attribute__((target(GEBE_AVX512_LOOPS))) void MaxInterior(const float* xc, int64_t iw, int64_t y0, int64_t a0,
                                                            int64_t a1, int64_t dh, int64_t kw, int64_t dw, int64_t sw,
                                                            int64_t x0, float* dst, int64_t n) {
  if (a1 - a0 == 2 && kw == 2 && sw == 2 && dw == 1) {
    const float* r0 = xc + (y0 + a0 * dh) * iw + x0;
    return Max2x2Stride2(r0, r0 + dh * iw, dst, n);
  }
  if (sw == 1) return MaxStrided<1>(xc, iw, y0, a0, a1, dh, kw, dw, x0, dst, n);
  if (sw == 2 && (kw - 1) <= 29 / dw) return MaxStride2Registers(xc, iw, y0, a0, a1, dh, kw, dw, x0, dst, n, (31 - (kw - 1) * dw) / 2 + 1);
  if (sw == 2) return MaxStrided<2>(xc, iw, y0, a0, a1, dh, kw, dw, x0, dst, n);
  pool_detail::MaxInteriorBody(xc, iw, y0, a0, a1, dh, kw, dw, sw, x0, dst, n);
}

__attribute__((target(GEBE_AVX512_LOOPS))) void MaxPool2x2Planes(const float* x, int64_t planes, int64_t ih,
                                                                 int64_t iw, float* y, int64_t oh, int64_t ow) {
  for (int64_t p = 0; p < planes; ++p, x += ih * iw, y += oh * ow)
    for (int64_t r = 0; r < oh; ++r) Max2x2Stride2(x + 2 * r * iw, x + (2 * r + 1) * iw, y + r * ow, ow);
}

// AverageSamePlanes' sums over planes of n positions, 16 at a time (KH, KW: the window's shape
// when fixed at compile time, 0 when read from g).
template <int KH, int KW>
__attribute__((target(GEBE_AVX512_LOOPS))) void AverageSameChunks(const float* x, float* y, int64_t planes,
                                                                  const AveragePlaneGeometry& g, const __mmask16* masks,
                                                                  const float* divisors, int64_t chunks) {
  // Locals: the stores below may alias g as far as the compiler knows (no strict aliasing), and
  // it would reload every field after each one.
  const int64_t n = g.ih * g.iw, kh = KH > 0 ? KH : g.kh, kw = KW > 0 ? KW : g.kw;
  const intptr_t row_step = intptr_t(g.dh * g.iw), tap_step = intptr_t(g.dw), origin = intptr_t(-g.ph * g.iw - g.pw);
  for (int64_t p = 0; p < planes; ++p) {
    const uintptr_t xc = reinterpret_cast<uintptr_t>(x + p * n);
    float* yc = y + p * n;
    for (int64_t c = 0; c < chunks; ++c) {
      const __mmask16* m = masks + c * (kh + kw);
      __m512 acc = _mm512_setzero_ps();
      for (int64_t a = 0; a < kh; ++a) {
        if (m[a] == 0) continue;  // a window row outside the plane for all 16: nothing to add
        const intptr_t first = intptr_t(16 * c) + origin + intptr_t(a) * row_step;
        __m512 row = _mm512_setzero_ps();
        for (int64_t b = 0; b < kw; ++b) {
          // Masked-off lanes' addresses (before or past the plane) are never read, nor can they fault.
          const intptr_t at = first + intptr_t(b) * tap_step;
          row = _mm512_add_ps(row, _mm512_maskz_loadu_ps(__mmask16(m[a] & m[kh + b]),
                                                         reinterpret_cast<const void*>(xc + uintptr_t(at * intptr_t(sizeof(float))))));
        }
        acc = _mm512_add_ps(acc, row);
      }
      const __mmask16 live = FirstLanes(n - 16 * c);
      _mm512_mask_storeu_ps(yc + 16 * c, live, _mm512_div_ps(acc, _mm512_maskz_loadu_ps(live, divisors + 16 * c)));
    }
  }
}

// Rows narrower than this leave enough of their vectors empty that the flat walk (nine loads per
// 16 outputs for 3x3) beats the separable one (six, and a store): measured on 8-56 wide planes.
constexpr int64_t kFlatBelowWidth = 40;

// A stride-1 AveragePool whose output plane has the input's shape (3x3 with pads of 1, the
// common case), on planes small enough that their rows leave much of a vector empty (Inception's
// 17x17 and 8x8: half of it). The plane is taken flat, 16 positions a vector whatever their rows:
// for each window row a, the window's columns summed from the input in a register (lanes whose
// tap falls outside the input row, or whose window row falls outside the plane, load zero), and
// those row sums added in a order. Each output therefore adds the same values in the same order
// as AveragePlanesBody (zero lanes add +0 to sums that are never -0), bit for bit. Per 16
// positions: the lanes of each tap and window row, and the divisor.
__attribute__((target(GEBE_AVX512_LOOPS))) void AverageSamePlanes(const float* x, float* y, int64_t planes,
                                                                  const AveragePlaneGeometry& g) {
  const int64_t iw = g.iw, n = g.ih * g.iw, kh = g.kh, kw = g.kw;
  const int64_t chunks = (n + 15) / 16;
  thread_local std::vector<__mmask16> mask_table;
  thread_local std::vector<float> divisor_table;
  mask_table.resize(size_t(chunks * (kh + kw)));
  divisor_table.resize(size_t(chunks * 16));
  __mmask16* const masks = mask_table.data();  // per chunk: kh row masks, then kw column masks
  float* const divisors = divisor_table.data();
  for (int64_t c = 0; c < chunks; ++c) {
    __mmask16* m = masks + c * (kh + kw);
    for (int64_t t = 0; t < kh + kw; ++t) m[t] = 0;
    for (int64_t lane = 0; lane < 16; ++lane) {
      const int64_t i = 16 * c + lane;
      if (i >= n) break;
      // Output (r, col) is input (r, col): the geometry's tap ranges say which taps read inside.
      const int64_t r = i / iw, col = i % iw;
      for (int64_t a = g.row_a0[r]; a < g.row_a1[r]; ++a) m[a] = __mmask16(m[a] | (1u << lane));
      for (int64_t b = 0; b < kw; ++b) {
        if (col >= g.tap_lo[b] && col < g.tap_hi[b]) m[kh + b] = __mmask16(m[kh + b] | (1u << lane));
      }
      divisors[i] = std::max(g.row_count[r] * g.col_count[col], 1.f);
    }
  }
  if (kh == 3 && kw == 3) return AverageSameChunks<3, 3>(x, y, planes, g, masks, divisors, chunks);
  AverageSameChunks<0, 0>(x, y, planes, g, masks, divisors, chunks);
}

// AveragePlanesBody at stride 1 or 2 with masked vectors. The body's row sums add one tap at a time
// into memory, and each tap's unaligned loads of the sums just stored (17 outputs: a vector and a
// scalar) failed store forwarding: Inception-v3's 3x3 pools over 17x17 planes ran at 3-4x ORT's
// time. Here each 16 row sums are added in a register, tap by tap, from the input row through
// the lanes that tap reaches (the others load zero), and stored once; an input row's sums are
// read back at the offsets they were stored at. Every sum adds its taps in the body's order from
// +0 (a zero lane adds +0 to a sum that is never -0), so the values are the body's bit for bit.
__attribute__((target(GEBE_AVX512_LOOPS))) void AveragePlanes(const float* x, float* y, int64_t planes,
                                                              const AveragePlaneGeometry& g, float* row_sums) {
  if (g.sw != 1 && g.sw != 2) return pool_detail::AveragePlanesBody(x, y, planes, g, row_sums);
  if (g.sw == 1 && g.sh == 1 && g.oh == g.ih && g.ow == g.iw && g.iw < kFlatBelowWidth && g.ih * g.iw <= 4096 && g.kh <= 64) {
    return AverageSamePlanes(x, y, planes, g);
  }
  const int64_t ih = g.ih, iw = g.iw, oh = g.oh, ow = g.ow, kw = g.kw, sw = g.sw;
  // Per 16 outputs and tap, the lanes whose window reaches the input with that tap (kw <= 64,
  // AveragePlanesFit); at stride 2 instead the lanes of the two input vectors those outputs read
  // (output lane i reads input lane 2i of the pair), sw masks a tap either way.
  const int64_t chunks = (ow + 15) / 16;
  thread_local std::vector<__mmask16> mask_table;
  mask_table.resize(size_t(chunks * kw * sw));
  __mmask16* const masks = mask_table.data();  // a local pointer: the TLS lookup stays out of the loops
  for (int64_t c = 0; c < chunks; ++c) {
    for (int64_t b = 0; b < kw; ++b) {
      const int64_t lo = g.tap_lo[b] - 16 * c, hi = g.tap_hi[b] - 16 * c;
      const __mmask16 out = lo < hi ? __mmask16(FirstLanes(hi) & ~FirstLanes(lo)) : __mmask16(0);
      __mmask16* m = masks + (c * kw + b) * sw;
      if (sw == 1) {
        m[0] = out;
        continue;
      }
      unsigned low = 0, high = 0;
      for (int lane = 0; lane < 8; ++lane) {
        low |= ((out >> lane) & 1u) << (2 * lane);
        high |= ((out >> (lane + 8)) & 1u) << (2 * lane);
      }
      m[0] = __mmask16(low);
      m[1] = __mmask16(high);
    }
  }
  const __m512 one = _mm512_set1_ps(1.f);
  const __m512i even = avx512::EvenLanes();
  // Locals: the stores below may alias g as far as the compiler knows (no strict aliasing), and
  // it would reload every field after each one.
  const intptr_t dw = intptr_t(g.dw), pw = intptr_t(g.pw), dh = g.dh;
  const int64_t *row_start = g.row_start, *row_a0 = g.row_a0, *row_a1 = g.row_a1;
  const float *row_count = g.row_count, *col_count = g.col_count;
  for (int64_t p = 0; p < planes; ++p) {
    const float* xc = x + p * ih * iw;
    float* yc = y + p * oh * ow;
    for (int64_t r = 0; r < ih; ++r) {
      // Lane i of chunk c reads input column 16c + i + b·dw - pw, inside the row wherever its
      // mask bit is set; a masked-off lane's address is never read (nor can it fault).
      const uintptr_t row = reinterpret_cast<uintptr_t>(xc + r * iw);
      float* h = row_sums + r * ow;
      if (sw == 1) {
        for (int64_t c = 0; c < chunks; ++c) {
          __m512 acc = _mm512_setzero_ps();
          for (int64_t b = 0; b < kw; ++b) {
            const intptr_t column = intptr_t(16 * c) + intptr_t(b) * dw - pw;
            acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(masks[c * kw + b], reinterpret_cast<const void*>(row + uintptr_t(column * intptr_t(sizeof(float))))));
          }
          _mm512_mask_storeu_ps(h + 16 * c, FirstLanes(ow - 16 * c), acc);
        }
      } else {
        // Stride 2: lane i of chunk c reads input column 32c + 2i + b·dw - pw, the even lane of
        // the pair of vectors loaded from 32c + b·dw - pw; a lane whose tap is outside the row
        // loads zero on both sides.
        for (int64_t c = 0; c < chunks; ++c) {
          __m512 acc = _mm512_setzero_ps();
          for (int64_t b = 0; b < kw; ++b) {
            const __mmask16* m = masks + (c * kw + b) * 2;
            const intptr_t column = intptr_t(32 * c) + intptr_t(b) * dw - pw;
            const __m512 lo = _mm512_maskz_loadu_ps(m[0], reinterpret_cast<const void*>(row + uintptr_t(column * intptr_t(sizeof(float)))));
            const __m512 hi = _mm512_maskz_loadu_ps(m[1], reinterpret_cast<const void*>(row + uintptr_t((column + 16) * intptr_t(sizeof(float)))));
            acc = _mm512_add_ps(acc, _mm512_permutex2var_ps(lo, even, hi));
          }
          _mm512_mask_storeu_ps(h + 16 * c, FirstLanes(ow - 16 * c), acc);
        }
      }
    }
    for (int64_t yo = 0; yo < oh; ++yo) {
      float* out = yc + yo * ow;
      const __m512 rows_f = _mm512_set1_ps(row_count[yo]);
      const int64_t a0 = row_a0[yo], a1 = row_a1[yo], first = row_start[yo];
      for (int64_t xo = 0; xo < ow; xo += 16) {
        const __mmask16 m = FirstLanes(ow - xo);
        __m512 acc = _mm512_setzero_ps();
        for (int64_t a = a0; a < a1; ++a) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(m, row_sums + (first + a * dh) * ow + xo));
        const __m512 count = _mm512_max_ps(_mm512_mul_ps(rows_f, _mm512_maskz_loadu_ps(m, col_count + xo)), one);
        _mm512_mask_storeu_ps(out + xo, m, _mm512_div_ps(acc, count));
      }
    }
  }
}

// MaxStride1PlanesBody with masked vectors: its rows are often shorter than a vector (14, 7), and
// the compiler's loops run those as scalar tails. Each step computes max(v, m) in the body's order
// (vmaxps(v, m) is v > m ? v : m, so a NaN input is skipped), and gives its values bit for bit.
__attribute__((target(GEBE_AVX512_LOOPS))) void MaxStride1Planes(const float* x, float* y, int64_t planes,
                                                                 const MaxStride1Geometry& g, float* padded) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  const int64_t ih = g.ih, iw = g.iw, oh = g.oh, ow = g.ow;
  for (int64_t c = 0; c < g.span; c += 16) _mm512_mask_storeu_ps(padded + c, FirstLanes(g.span - c), lowest);
  float* v = padded + g.pw;
  for (int64_t p = 0; p < planes; ++p) {
    const float* xc = x + p * ih * iw;
    float* yc = y + p * oh * ow;
    for (int64_t yo = 0; yo < oh; ++yo) {
      const int64_t a0 = g.row_a0[yo], a1 = g.row_a1[yo];
      for (int64_t c = 0; c < iw; c += 16) {
        const __mmask16 m = FirstLanes(iw - c);
        __m512 acc = lowest;
        for (int64_t a = a0; a < a1; ++a) acc = _mm512_max_ps(_mm512_maskz_loadu_ps(m, xc + (g.row_start[yo] + a * g.dh) * iw + c), acc);
        _mm512_mask_storeu_ps(v + c, m, acc);
      }
      float* out = yc + yo * ow;
      for (int64_t xo = 0; xo < ow; xo += 16) {
        const __mmask16 m = FirstLanes(ow - xo);
        __m512 acc = lowest;
        for (int64_t b = 0; b < g.kw; ++b) acc = _mm512_max_ps(_mm512_maskz_loadu_ps(m, padded + b * g.dw + xo), acc);
        _mm512_mask_storeu_ps(out + xo, m, acc);
      }
    }
  }
}

}  // namespace

MaxInteriorFn Avx512MaxInterior() { return MaxInterior; }
MaxStride1PlanesFn Avx512MaxStride1Planes() { return MaxStride1Planes; }
AveragePlanesFn Avx512AveragePlanes() { return AveragePlanes; }
MaxPool2x2PlanesFn Avx512MaxPool2x2Planes() { return MaxPool2x2Planes; }

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
MaxInteriorFn Avx512MaxInterior() { return nullptr; }
MaxPool2x2PlanesFn Avx512MaxPool2x2Planes() { return nullptr; }
AveragePlanesFn Avx512AveragePlanes() { return nullptr; }
MaxStride1PlanesFn Avx512MaxStride1Planes() { return nullptr; }
}  // namespace gebe::cpu

#endif
