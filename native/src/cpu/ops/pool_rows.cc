// The portable MaxPool row, and the choice of row by ISA.
#include "cpu/ops/pool_rows.h"

#include "cpu/isa.h"

namespace gebe::cpu {

namespace {

void MaxInteriorPortable(const float* xc, int64_t iw, int64_t y0, int64_t a0, int64_t a1, int64_t dh, int64_t kw,
                         int64_t dw, int64_t sw, int64_t x0, float* dst, int64_t n) {
  pool_detail::MaxInteriorBody(xc, iw, y0, a0, a1, dh, kw, dw, sw, x0, dst, n);
}

void AveragePlanesPortable(const float* x, float* y, int64_t planes, const AveragePlaneGeometry& g, float* row_sums) {
  pool_detail::AveragePlanesBody(x, y, planes, g, row_sums);
}

void MaxStride1PlanesPortable(const float* x, float* y, int64_t planes, const MaxStride1Geometry& g, float* padded) {
  pool_detail::MaxStride1PlanesBody(x, y, planes, g, padded);
}

}  // namespace

MaxStride1PlanesFn ActiveMaxStride1Planes() {
  static const MaxStride1PlanesFn fn = [] {
    MaxStride1PlanesFn f = nullptr;
    if (ActiveIsa() == Isa::kAvx512) f = Avx512MaxStride1Planes();
    else if (ActiveIsa() == Isa::kAvx2) f = Avx2MaxStride1Planes();
    return f ? f : MaxStride1PlanesPortable;
  }();
  return fn;
}

AveragePlanesFn ActiveAveragePlanes() {
  static const AveragePlanesFn fn = [] {
    AveragePlanesFn f = nullptr;
    if (ActiveIsa() == Isa::kAvx512) f = Avx512AveragePlanes();
    else if (ActiveIsa() == Isa::kAvx2) f = Avx2AveragePlanes();
    return f ? f : AveragePlanesPortable;
  }();
  return fn;
}

MaxInteriorFn ActiveMaxInterior() {
  static const MaxInteriorFn fn = [] {
    MaxInteriorFn f = nullptr;
    if (ActiveIsa() == Isa::kAvx512) f = Avx512MaxInterior();
    else if (ActiveIsa() == Isa::kAvx2) f = Avx2MaxInterior();
    return f ? f : MaxInteriorPortable;
  }();
  return fn;
}

MaxPool2x2PlanesFn ActiveMaxPool2x2Planes() {
  static const MaxPool2x2PlanesFn fn = ActiveIsa() == Isa::kAvx512 ? Avx512MaxPool2x2Planes() : nullptr;
  return fn;
}

}  // namespace gebe::cpu
