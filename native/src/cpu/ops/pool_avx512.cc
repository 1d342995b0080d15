// The MaxPool row compiled for AVX-512 (16 lanes); used only when ActiveIsa() is avx512.
#include "cpu/ops/pool_rows.h"

#if defined(__x86_64__) || defined(_M_X64)

// GCC vectorises loops with 256-bit vectors even for AVX-512 unless told otherwise; clang's
// target attribute has no such option (it uses 512-bit vectors where profitable).
#if defined(__clang__)
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"
#else
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,prefer-vector-width=512"
#endif

namespace gebe::cpu {

namespace {

__attribute__((target(GEBE_AVX512_LOOPS))) void MaxInterior(const float* xc, int64_t iw, int64_t y0, int64_t a0,
                                                            int64_t a1, int64_t dh, int64_t kw, int64_t dw, int64_t sw,
                                                            int64_t x0, float* dst, int64_t n) {
  pool_detail::MaxInteriorBody(xc, iw, y0, a0, a1, dh, kw, dw, sw, x0, dst, n);
}

}  // namespace

MaxInteriorFn Avx512MaxInterior() { return MaxInterior; }

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
MaxInteriorFn Avx512MaxInterior() { return nullptr; }
}  // namespace gebe::cpu

#endif
