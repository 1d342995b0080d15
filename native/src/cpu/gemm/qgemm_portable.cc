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

const Kernels kPortable{"portable", false, Block};

}  // namespace

const Kernels* PortableKernels() { return &kPortable; }

}  // namespace gebe::cpu::qgemm_detail
