// vol2col for 3-D convolutions (conv_nd.cc): the 3-D view of a geometry and column ranges of
// vol2col rows, generated straight into the GEMM's packed panels (SgemmPrepackedRows) or into a
// whole matrix; the 3-D counterpart of conv_im2col.h.
#pragma once

#include <cstdint>

#include "cpu/ops/conv_geometry.h"

namespace gebe::cpu {

struct Geo3 {
  int64_t id, ih, iw, od, oh, ow, kd, kh, kw, sd, sh, sw, dd, dh, dw, pd, ph, pw;
};

inline Geo3 To3D(const ConvGeometry& g) {
  return {g.in[0], g.in[1], g.in[2], g.out[0], g.out[1], g.out[2], g.kernel[0], g.kernel[1], g.kernel[2],
          g.stride[0], g.stride[1], g.stride[2], g.dilation[0], g.dilation[1], g.dilation[2],
          g.pad_begin[0], g.pad_begin[1], g.pad_begin[2]};
}

// Columns [j0, j1) (output positions j = (od · oh + oh) · ow + ow) of vol2col row r = (c, kd, kh, kw):
// the input value that tap reads for each, 0 in the padding.
void Vol2ColRowRange(const float* x, const Geo3& g, int64_t r, int64_t j0, int64_t j1, float* dst);

struct Vol2ColSource {
  const float* x;
  const Geo3* g;
  static void Fill(const void* ctx, int64_t r, int64_t j0, int64_t j1, float* dst) {
    auto* s = static_cast<const Vol2ColSource*>(ctx);
    Vol2ColRowRange(s->x, *s->g, r, j0, j1, dst);
  }
};

}  // namespace gebe::cpu
