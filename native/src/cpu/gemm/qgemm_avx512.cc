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

#define GEBE_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")))

namespace gebe::cpu::qgemm_detail {

namespace {

template <int V>
GEBE_VNNI inline void Tile(int64_t quads, const int8_t* a, int64_t mh, const uint8_t* b, int64_t panel_stride, int64_t cols,
                           int32_t* c, int64_t ldc) {
  __m512i acc[kQMR][V];
#pragma GCC unroll 8
  for (int r = 0; r < kQMR; ++r)
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_si512();
  for (int64_t q = 0; q < quads; ++q) {
    __m512i bv[V];
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) bv[v] = _mm512_loadu_si512(b + v * panel_stride + q * kQNR * 4);
    const int8_t* aq = a + q * kQMR * 4;
#pragma GCC unroll 8
    for (int r = 0; r < kQMR; ++r) {
      int32_t w4;
      std::memcpy(&w4, aq + r * 4, 4);
      __m512i av = _mm512_set1_epi32(w4);
#pragma GCC unroll 3
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], bv[v], av);
    }
  }
  for (int r = 0; r < mh; ++r)
    for (int v = 0; v < V; ++v) {
      int64_t left = cols - v * kQNR;
      if (left >= kQNR) _mm512_storeu_si512(c + r * ldc + v * kQNR, acc[r][v]);
      else if (left > 0) _mm512_mask_storeu_epi32(c + r * ldc + v * kQNR, __mmask16((1u << unsigned(left)) - 1u), acc[r][v]);
    }
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

const Kernels kAvx512Vnni{"avx512vnni", false, Block};

}  // namespace

const Kernels* Avx512VnniKernels() { return &kAvx512Vnni; }

}  // namespace gebe::cpu::qgemm_detail

#else
namespace gebe::cpu::qgemm_detail {
const Kernels* Avx512VnniKernels() { return nullptr; }
}  // namespace gebe::cpu::qgemm_detail
#endif
