// The portable MaxPool row, and the choice of row by ISA.
#include "cpu/ops/pool_rows.h"

#include "cpu/isa.h"

namespace gebe::cpu {

namespace {

void MaxInteriorPortable(const float* xc, int64_t iw, int64_t y0, int64_t a0, int64_t a1, int64_t dh, int64_t kw,
                         int64_t dw, int64_t sw, int64_t x0, float* dst, int64_t n) {
  pool_detail::MaxInteriorBody(xc, iw, y0, a0, a1, dh, kw, dw, sw, x0, dst, n);
}

}  // namespace

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
