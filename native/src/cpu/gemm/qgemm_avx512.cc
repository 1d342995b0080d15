// The AVX-512 VNNI integer GEMM kernel (qgemm_kernels.h): vpdpbusd multiplies four UINT8
// activations by four INT8 weights and adds the four products into an int32 lane exactly, so a
// tile of 8 weight rows × 48 columns (three B panels, 24 zmm accumulators) takes one B load per
// panel and one weight broadcast per row for every quad of K. Column edges are stored through
// masks. Compiled with per-function target attributes, used only where the CPU has VNNI.
#include "cpu/gemm/qgemm_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

// GCC 12 implements _mm512_undefined_* (inside some intrinsics) as a self-initialised variable,
// which -Wmaybe-uninitialized reports, as in vector_math_avx512.cc.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GEBE_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")))

namespace gebe::cpu::qgemm_detail {

namespace {

// acc += four UINT8 of u times four INT8 of s, per int32 lane, as inline assembly on named
// accumulators: GCC 12 treats the intrinsic's accumulator as a fresh value and, over an array of
// 24 of them, copies and spills them on every step, which halves the tile's throughput.
#define GEBE_DPBUSD(acc, u, s) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s))

GEBE_VNNI inline void Store(int32_t* c, __m512i v, int64_t left) {
  if (left >= kQNR) _mm512_storeu_si512(c, v);
  else if (left > 0) _mm512_mask_storeu_epi32(c, __mmask16((1u << unsigned(left)) - 1u), v);
}

template <int V>
GEBE_VNNI inline void Tile(int64_t quads, const int8_t* a, int64_t mh, const uint8_t* b, int64_t panel_stride, int64_t cols,
                           int32_t* c, int64_t ldc) {
  const __m512i zero = _mm512_setzero_si512();
#define GEBE_ROW(r) __m512i c##r##0 = zero, c##r##1 = zero, c##r##2 = zero;
  GEBE_ROW(0) GEBE_ROW(1) GEBE_ROW(2) GEBE_ROW(3) GEBE_ROW(4) GEBE_ROW(5) GEBE_ROW(6) GEBE_ROW(7)
#undef GEBE_ROW
  for (int64_t q = 0; q < quads; ++q) {
    const uint8_t* bq = b + q * kQNR * 4;
    __m512i b0 = _mm512_loadu_si512(bq);
    __m512i b1 = V > 1 ? _mm512_loadu_si512(bq + panel_stride) : zero;
    __m512i b2 = V > 2 ? _mm512_loadu_si512(bq + 2 * panel_stride) : zero;
    const int8_t* aq = a + q * kQMR * 4;
#define GEBE_STEP(r)                                    \
  {                                                     \
    int32_t w4;                                         \
    std::memcpy(&w4, aq + (r) * 4, 4);                  \
    __m512i av = _mm512_set1_epi32(w4);                 \
    GEBE_DPBUSD(c##r##0, b0, av);                       \
    if (V > 1) GEBE_DPBUSD(c##r##1, b1, av);            \
    if (V > 2) GEBE_DPBUSD(c##r##2, b2, av);            \
  }
    GEBE_STEP(0) GEBE_STEP(1) GEBE_STEP(2) GEBE_STEP(3) GEBE_STEP(4) GEBE_STEP(5) GEBE_STEP(6) GEBE_STEP(7)
#undef GEBE_STEP
  }
#define GEBE_STORE(r)                                                      \
  if ((r) < mh) {                                                          \
    Store(c + (r) * ldc, c##r##0, cols);                                   \
    if (V > 1) Store(c + (r) * ldc + kQNR, c##r##1, cols - kQNR);          \
    if (V > 2) Store(c + (r) * ldc + 2 * kQNR, c##r##2, cols - 2 * kQNR);  \
  }
  GEBE_STORE(0) GEBE_STORE(1) GEBE_STORE(2) GEBE_STORE(3) GEBE_STORE(4) GEBE_STORE(5) GEBE_STORE(6) GEBE_STORE(7)
#undef GEBE_STORE
}

GEBE_VNNI void Block(int64_t quads, const void* a_panel, int64_t mh, const uint8_t* b, int64_t n, int32_t* c, int64_t ldc) {
  const auto* a = static_cast<const int8_t*>(a_panel);
  int64_t panel_stride = quads * kQNR * 4;
  for (int64_t j0 = 0; j0 < n; j0 += 3 * kQNR) {
    int64_t cols = std::min<int64_t>(3 * kQNR, n - j0);
    const uint8_t* bp = b + (j0 / kQNR) * panel_stride;
    if (cols > 2 * kQNR) Tile<3>(quads, a, mh, bp, panel_stride, cols, c + j0, ldc);
    else if (cols > kQNR) Tile<2>(quads, a, mh, bp, panel_stride, cols, c + j0, ldc);
    else Tile<1>(quads, a, mh, bp, panel_stride, cols, c + j0, ldc);
  }
}

// QgemmRequantize's row, 16 columns a step, the portable row's arithmetic in the same order. The
// empty asm keeps the product a separate rounding (GCC would otherwise contract the intrinsics'
// multiply and add into an FMA); the clamped value is integral after vcvtps2dq's round to nearest
// even, so truncating to a byte gives the 8-bit result of either signedness. QLinearConv's form
// (no bias, no floor, no divide, no column sums) skips those steps: adding a bias of 0 and a max
// with the lowest float change nothing the clamp does not (a NaN still ends at lo), and on Zen 4
// every zmm operation costs two of the four vector pipes' slots, so each one left out counts.
template <bool kFull>
GEBE_VNNI inline void RequantizeSteps(const int32_t* acc, int64_t n, const QgemmRequant& rq, int64_t r, uint8_t* out) {
  const __m512i add = _mm512_set1_epi32(rq.add ? rq.add[r] : 0), zw = _mm512_set1_epi32(rq.zw ? rq.zw[r] : 0);
  const __m512 mul = _mm512_set1_ps(rq.mul[r]), bias = _mm512_set1_ps(rq.bias ? rq.bias[r] : 0.f);
  const __m512 floor = _mm512_set1_ps(rq.floor), divisor = _mm512_set1_ps(rq.divisor);
  const __m512 lo = _mm512_set1_ps(rq.lo), hi = _mm512_set1_ps(rq.hi);
  const __m512i zp = _mm512_set1_epi32(rq.zero_point);
  const int32_t* col_sums = rq.zw ? rq.col_sums : nullptr;  // locals: the 8-bit stores may alias rq
  const bool divide = rq.divide;
  for (int64_t j = 0; j < n; j += 16) {
    __mmask16 m = n - j >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << unsigned(n - j)) - 1u);
    __m512i a = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, acc + j), add);
    if (kFull && col_sums) a = _mm512_sub_epi32(a, _mm512_mullo_epi32(zw, _mm512_maskz_loadu_epi32(m, col_sums + j)));
    __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(a), mul);
    __asm__("" : "+v"(v));
    if (kFull) {
      v = _mm512_max_ps(_mm512_add_ps(v, bias), floor);  // max(v, floor): floor where v is NaN
      if (divide) v = _mm512_div_ps(v, divisor);
    }
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    __m512i q = _mm512_add_epi32(_mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zp);
    // vpmovdb into a register, then a plain store: its memory form runs many times slower (Zen 4).
    __m128i bytes = _mm512_cvtepi32_epi8(q);
    __asm__("" : "+v"(bytes));
    if (n - j >= 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), bytes);
    else _mm_mask_storeu_epi8(out + j, m, bytes);
  }
}

GEBE_VNNI void RequantizeRow(const int32_t* acc, int64_t n, const QgemmRequant& rq, int64_t r, uint8_t* out) {
  bool plain = !rq.zw && !rq.bias && !rq.divide && rq.floor <= -3.4e38f;
  if (plain) RequantizeSteps<false>(acc, n, rq, r, out);
  else RequantizeSteps<true>(acc, n, rq, r, out);
}

const Kernels kAvx512Vnni{"avx512vnni", false, Block, RequantizeRow, TransposedTileVnni, RequantizeColumnsVnni};

}  // namespace

const Kernels* Avx512VnniKernels() { return &kAvx512Vnni; }

}  // namespace gebe::cpu::qgemm_detail

#else
namespace gebe::cpu::qgemm_detail {
const Kernels* Avx512VnniKernels() { return nullptr; }
}  // namespace gebe::cpu::qgemm_detail
#endif
