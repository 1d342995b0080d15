// The portable integer GEMM kernel (qgemm_kernels.h): plain loops over the packed layout, exact
// in int32. The reference the ISA kernels are tested against, and the path of other architectures.
#include "cpu/gemm/qgemm_kernels.h"

#include <algorithm>

namespace gebe::cpu::qgemm_detail {

namespace {

void Block(int64_t quads, const void* a_panel, int64_t mh, const uint8_t* b, int64_t n, int32_t* c, int64_t ldc) {
  const auto* a = static_cast<const int8_t*>(a_panel);
  for (int64_t j0 = 0; j0 < n; j0 += kQNR) {
    const uint8_t* panel = b + (j0 / kQNR) * quads * kQNR * 4;
    int64_t w = std::min<int64_t>(kQNR, n - j0);
    for (int64_t r = 0; r < mh; ++r) {
      int32_t acc[kQNR] = {0};
      for (int64_t q = 0; q < quads; ++q) {
        const int8_t* ar = a + (q * kQMR + r) * 4;
        const uint8_t* bq = panel + q * kQNR * 4;
        for (int64_t j = 0; j < kQNR; ++j)
          acc[j] += ar[0] * bq[j * 4] + ar[1] * bq[j * 4 + 1] + ar[2] * bq[j * 4 + 2] + ar[3] * bq[j * 4 + 3];
      }
      for (int64_t j = 0; j < w; ++j) c[r * ldc + j0 + j] = acc[j];
    }
  }
}

const Kernels kPortable{"portable", false, Block, RequantizeRowPortable};

}  // namespace

// The product and the add are separate statements, and GCC is told not to contract them into an
// FMA (clang contracts only within one expression): ORT rounds the product first.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
void RequantizeRowPortable(const int32_t* acc, int64_t n, const QgemmRequant& rq, int64_t r, uint8_t* out) {
  const uint32_t add = rq.add ? uint32_t(rq.add[r]) : 0u, zw = rq.zw ? uint32_t(rq.zw[r]) : 0u;
  const float mul = rq.mul[r], bias = rq.bias ? rq.bias[r] : 0.f, floor = rq.floor, lo = rq.lo, hi = rq.hi;
  for (int64_t j = 0; j < n; ++j) {
    uint32_t a = uint32_t(acc[j]) + add;
    if (rq.zw) a -= zw * uint32_t(rq.col_sums[j]);
    float product = float(int32_t(a)) * mul;
    float v = product + bias;
    v = v > floor ? v : floor;  // NaN lands here too
    if (rq.divide) v = v / rq.divisor;
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    const float kRound = 12582912.f;  // 1.5 · 2^23: adding and subtracting it rounds half to even
    out[j] = uint8_t(int32_t((v + kRound) - kRound) + rq.zero_point);
  }
}

const Kernels* PortableKernels() { return &kPortable; }

}  // namespace gebe::cpu::qgemm_detail
