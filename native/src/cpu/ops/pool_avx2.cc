// The MaxPool row and AveragePool's planes compiled for AVX2 (8 lanes); used only when ActiveIsa() is avx2.
#include "cpu/ops/pool_rows.h"

#if defined(__x86_64__) || defined(_M_X64)

namespace gebe::cpu {

namespace {

__attribute__((target("avx2,fma"))) void MaxInterior(const float* xc, int64_t iw, int64_t y0, int64_t a0, int64_t a1,
                                                    int64_t dh, int64_t kw, int64_t dw, int64_t sw, int64_t x0,
                                                    float* dst, int64_t n) {
  pool_detail::MaxInteriorBody(xc, iw, y0, a0, a1, dh, kw, dw, sw, x0, dst, n);
}

__attribute__((target("avx2,fma"))) void AveragePlanes(const float* x, float* y, int64_t planes,
                                                      const AveragePlaneGeometry& g, float* row_sums) {
  pool_detail::AveragePlanesBody(x, y, planes, g, row_sums);
}

__attribute__((target("avx2,fma"))) void MaxStride1Planes(const float* x, float* y, int64_t planes,
                                                 const MaxStride1Geometry& g, float* padded) {
  pool_detail::MaxStride1PlanesBody(x, y, planes, g, padded);
}

}  // namespace

MaxInteriorFn Avx2MaxInterior() { return MaxInterior; }
MaxStride1PlanesFn Avx2MaxStride1Planes() { return MaxStride1Planes; }
AveragePlanesFn Avx2AveragePlanes() { return AveragePlanes; }

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
MaxInteriorFn Avx2MaxInterior() { return nullptr; }
AveragePlanesFn Avx2AveragePlanes() { return nullptr; }
MaxStride1PlanesFn Avx2MaxStride1Planes() { return nullptr; }
}  // namespace gebe::cpu

#endif
