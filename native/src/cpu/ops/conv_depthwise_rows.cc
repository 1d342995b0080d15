// The portable depthwise rows, and the choice of table by ISA.
#include "cpu/ops/conv_depthwise_rows.h"

#include "cpu/isa.h"

namespace gebe::cpu {

namespace {

using namespace depthwise_detail;

template <int S>
void Row9Portable(float* __restrict y, const float* const* p, int64_t n, const float* w, float b) {
  Row9Body<S>(y, p, n, w, b);
}

template <int S>
void Row3Portable(float* y, const float* x0, const float* x1, const float* x2, int64_t n, float w0, float w1, float w2) {
  Row3Body<S>(y, x0, x1, x2, n, w0, w1, w2);
}

void Plane9Portable(float* y, const float* const* p, int64_t rows, int64_t n, int64_t p_stride, const float* w, float b,
                    const RowClamp& c) {
  Plane9Body<Row9Portable<1>>(y, p, rows, n, p_stride, w, b, c);
}

void PlaneKPortable(float* y, const float* const* p, int taps, int64_t rows, int64_t n, int64_t p_stride, const float* w,
                    float b, const RowClamp& c) {
  PlaneKBody(y, p, taps, rows, n, p_stride, w, b, c);
}

void CopyRowPortable(float* dst, const float* src, int64_t n) { CopyRowBody(dst, src, n); }

void SplitRowPortable(float* even, float* odd, const float* src, int64_t n) { SplitRowBody(even, odd, src, n); }

}  // namespace

const DepthwiseRows* PortableDepthwiseRows() {
  static const DepthwiseRows rows{Row9Portable<1>, Row9Portable<2>, Row3Portable<1>, Row3Portable<2>, Plane9Portable,
                                  PlaneKPortable, CopyRowPortable, SplitRowPortable};
  return &rows;
}

const DepthwiseRows& ActiveDepthwiseRows() {
  static const DepthwiseRows& rows = []() -> const DepthwiseRows& {
    const DepthwiseRows* t = nullptr;
    if (ActiveIsa() == Isa::kAvx512) t = Avx512DepthwiseRows();
    else if (ActiveIsa() == Isa::kAvx2) t = Avx2DepthwiseRows();
    return t ? *t : *PortableDepthwiseRows();
  }();
  return rows;
}

}  // namespace gebe::cpu
