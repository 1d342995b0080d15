// vol2col for 3-D convolutions (conv_nd.cc): the 3-D view of a geometry and column ranges of
// vol2col rows, generated straight into the GEMM's packed panels (SgemmPrepackedRows) or into a
// whole matrix; the 3-D counterpart of conv_im2col.h.
#pragma once

#include <cstdint>
#include <vector>

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

// What one vol2col row r = (c, kd, kh, kw) reads, resolved once per convolution (the fills, called
// per row and column block, then divide nothing per row).
struct Vol2ColTap {
  int64_t offset;  // of input column 0 of the tap's first row: channel plane + kw offset (padded: + kd, kh)
  int64_t d, h;    // the tap's offset along depth and height (dilation and padding applied)
  int64_t x0, x1;  // output columns whose input column is inside the row: [x0, x1)
};

// With unit width stride the input is first copied into a zero-padded volume spanning every
// window (one pass over the input; skipped when there is no padding to add), so that each output
// row of each tap is one contiguous copy with no bounds to check: the rows of small volumes are
// short (8 floats on an 8³ input) and the checks would cost as much as the copy.
struct Vol2Col {
  Geo3 g;
  bool padded = false, copy = false;
  int64_t dp = 0, hp = 0, wp = 0;  // the padded volume
  std::vector<Vol2ColTap> taps;    // per row of the matrix
  Vol2Col(const Geo3& geo, int64_t channels);
  // The input RowRange reads for one image group: x itself, or x copied into `buffer` padded.
  const float* Prepare(const float* x, int64_t channels, std::vector<float>& buffer) const;
  // Columns [j0, j1) (output positions j = (od · oh + oh) · ow + ow) of row r over the prepared
  // input: the input value the tap reads for each, 0 in the padding.
  void RowRange(const float* x, int64_t r, int64_t j0, int64_t j1, float* dst) const;
};

// BRowSource::fill over one image group's input.
struct Vol2ColSource {
  const float* x;
  const Vol2Col* v;
  static void Fill(const void* ctx, int64_t r, int64_t j0, int64_t j1, float* dst) {
    auto* s = static_cast<const Vol2ColSource*>(ctx);
    s->v->RowRange(s->x, r, j0, j1, dst);
  }
};

}  // namespace gebe::cpu
