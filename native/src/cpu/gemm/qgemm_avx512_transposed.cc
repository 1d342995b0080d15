// AVX-512 VNNI's transposed integer GEMM tile (qgemm_kernels.h, TransposedTile): output positions
// as rows, output channels as vector columns. vpdpbusd takes its UINT8 operand from a register, so
// the activations are the broadcast side (one quad of a position's channels-last input per row and
// step) and the INT8 weights the vectors: a tile of 6 positions × 64 channels is 24 zmm
// accumulators, 4 weight loads and 6 broadcasts per quad of K, as the panel kernel's 8 × 48. No
// packing of the activations: each position reads its im2col row in place, tap by tap.
#include "cpu/gemm/qgemm_kernels.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include <cstring>

// GCC 12 implements _mm512_undefined_* as a self-initialised variable, which -Wuninitialized reports.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GEBE_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")))

namespace gebe::cpu::qgemm_detail {

namespace {

// acc += four UINT8 of u times four INT8 of s per int32 lane (see qgemm_avx512.cc for why asm).
#define GEBE_DPBUSD(acc, u, s) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s))

template <int R, int V>
GEBE_VNNI void Tile(const uint8_t* const* x_rows, const int64_t* tap_offsets, int64_t taps, int64_t cquads, const int8_t* w,
                    int32_t* c, int64_t ldc) {
  static_assert(R >= 1 && R <= kQTRows && V >= 1 && V <= 4, "tile shape");
  const __m512i zero = _mm512_setzero_si512();
#define GEBE_ROW(r) __m512i c##r##0 = zero, c##r##1 = zero, c##r##2 = zero, c##r##3 = zero;
  GEBE_ROW(0) GEBE_ROW(1) GEBE_ROW(2) GEBE_ROW(3) GEBE_ROW(4) GEBE_ROW(5)
#undef GEBE_ROW
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t off = tap_offsets[t];
    const uint8_t* p0 = x_rows[0] + off;
    const uint8_t* p1 = R > 1 ? x_rows[1] + off : p0;
    const uint8_t* p2 = R > 2 ? x_rows[2] + off : p0;
    const uint8_t* p3 = R > 3 ? x_rows[3] + off : p0;
    const uint8_t* p4 = R > 4 ? x_rows[4] + off : p0;
    const uint8_t* p5 = R > 5 ? x_rows[5] + off : p0;
    for (int64_t q = 0; q < cquads; ++q, w += V * 64) {
      __m512i w0 = _mm512_loadu_si512(w);
      __m512i w1 = V > 1 ? _mm512_loadu_si512(w + 64) : zero;
      __m512i w2 = V > 2 ? _mm512_loadu_si512(w + 128) : zero;
      __m512i w3 = V > 3 ? _mm512_loadu_si512(w + 192) : zero;
#define GEBE_STEP(r)                             \
  if (R > (r)) {                                 \
    int32_t x4;                                  \
    std::memcpy(&x4, p##r + 4 * q, 4);           \
    __m512i xv = _mm512_set1_epi32(x4);          \
    GEBE_DPBUSD(c##r##0, xv, w0);                \
    if (V > 1) GEBE_DPBUSD(c##r##1, xv, w1);     \
    if (V > 2) GEBE_DPBUSD(c##r##2, xv, w2);     \
    if (V > 3) GEBE_DPBUSD(c##r##3, xv, w3);     \
  }
      GEBE_STEP(0) GEBE_STEP(1) GEBE_STEP(2) GEBE_STEP(3) GEBE_STEP(4) GEBE_STEP(5)
#undef GEBE_STEP
    }
  }
#define GEBE_STORE(r)                                                \
  if (R > (r)) {                                                     \
    _mm512_storeu_si512(c + (r) * ldc, c##r##0);                     \
    if (V > 1) _mm512_storeu_si512(c + (r) * ldc + 16, c##r##1);     \
    if (V > 2) _mm512_storeu_si512(c + (r) * ldc + 32, c##r##2);     \
    if (V > 3) _mm512_storeu_si512(c + (r) * ldc + 48, c##r##3);     \
  }
  GEBE_STORE(0) GEBE_STORE(1) GEBE_STORE(2) GEBE_STORE(3) GEBE_STORE(4) GEBE_STORE(5)
#undef GEBE_STORE
}

using TileFn = void (*)(const uint8_t* const*, const int64_t*, int64_t, int64_t, const int8_t*, int32_t*, int64_t);

template <int R>
constexpr TileFn kRow[4] = {Tile<R, 1>, Tile<R, 2>, Tile<R, 3>, Tile<R, 4>};
constexpr const TileFn* kTiles[kQTRows] = {kRow<1>, kRow<2>, kRow<3>, kRow<4>, kRow<5>, kRow<6>};

}  // namespace

void TransposedTileVnni(const uint8_t* const* x_rows, int64_t rows, const int64_t* tap_offsets, int64_t taps, int64_t cquads,
                        const int8_t* w, int64_t v, int32_t* c, int64_t ldc) {
  kTiles[rows - 1][v - 1](x_rows, tap_offsets, taps, cquads, w, c, ldc);
}

// RequantizeRow's arithmetic (qgemm_avx512.cc) in the same order, with add, mul and bias vectors
// of 16 channels instead of one channel's broadcast values: loaded once per 16 channels and kept
// in registers over the rows.
GEBE_VNNI void RequantizeColumnsVnni(const int32_t* acc, int64_t lda, int64_t rows, int64_t n, const QgemmRequant& rq, uint8_t* out,
                                     int64_t ldo) {
  const __m512 floor = _mm512_set1_ps(rq.floor), divisor = _mm512_set1_ps(rq.divisor);
  const __m512 lo = _mm512_set1_ps(rq.lo), hi = _mm512_set1_ps(rq.hi);
  const __m512i zp = _mm512_set1_epi32(rq.zero_point);
  const int32_t* add_p = rq.add;  // locals: the 8-bit stores may alias rq
  const float *mul_p = rq.mul, *bias_p = rq.bias;
  const bool divide = rq.divide;
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 m = n - j >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << unsigned(n - j)) - 1u);
    const __m512i add = add_p ? _mm512_maskz_loadu_epi32(m, add_p + j) : _mm512_setzero_si512();
    const __m512 mul = _mm512_maskz_loadu_ps(m, mul_p + j);
    const __m512 bias = bias_p ? _mm512_maskz_loadu_ps(m, bias_p + j) : _mm512_setzero_ps();
    for (int64_t r = 0; r < rows; ++r) {
      __m512i a = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, acc + r * lda + j), add);
      __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(a), mul);
      __asm__("" : "+v"(v));
      if (bias_p) v = _mm512_add_ps(v, bias);
      v = _mm512_max_ps(v, floor);  // max(v, floor): floor where v is NaN
      if (divide) v = _mm512_div_ps(v, divisor);
      v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
      __m512i q = _mm512_add_epi32(_mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zp);
      __m128i bytes = _mm512_cvtepi32_epi8(q);
      __asm__("" : "+v"(bytes));  // vpmovdb to a register, then a store (its memory form is slow on Zen 4)
      if (n - j >= 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + r * ldo + j), bytes);
      else _mm_mask_storeu_epi8(out + r * ldo + j, m, bytes);
    }
  }
}

}  // namespace gebe::cpu::qgemm_detail

#endif
