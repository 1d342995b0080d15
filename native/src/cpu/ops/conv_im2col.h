// im2col for the convolution kernels: the 2-D view of a 1-D/2-D geometry, whole im2col rows (the
// generic path) and column ranges of them (what SgemmPrepackedRows packs on the fly).
#pragma once

#include <cstdint>
#include <cstring>

#include "cpu/ops/conv_geometry.h"
#include "cpu/thread_pool.h"

namespace gebe::cpu {

// 2-D view of a 1-D or 2-D geometry (1-D maps to height 1).
struct Geo2 {
  int64_t ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
};

inline Geo2 To2D(const ConvGeometry& g) {
  if (g.spatial == 1) return {1, g.in[0], 1, g.out[0], 1, g.kernel[0], 1, g.stride[0], 1, g.dilation[0], 0, g.pad_begin[0]};
  return {g.in[0], g.in[1], g.out[0], g.out[1], g.kernel[0], g.kernel[1], g.stride[0], g.stride[1],
          g.dilation[0], g.dilation[1], g.pad_begin[0], g.pad_begin[1]};
}

// n floats; whole 8-float groups as fixed-size copies (a loop the compiler would otherwise turn
// into a memcpy call, which costs more than the copy for one image row).
inline void CopyFloats(float* d, const float* s, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) std::memcpy(d + i, s + i, sizeof(float) * 8);
  if (i + 4 <= n) {
    std::memcpy(d + i, s + i, sizeof(float) * 4);
    i += 4;
  }
  for (; i < n; ++i) d[i] = s[i];
}

// Row r = (c, kh, kw) of the im2col matrix: the oh·ow input values that kernel tap reads.
void Im2ColRow(const float* x, const Geo2& g, int64_t r, float* dst);
// All channels·kh·kw rows into col (rows oh·ow apart), rows in parallel.
void Im2Col(const float* x, int64_t channels, const Geo2& g, float* col, ThreadPool* pool);
// Columns [j0, j1) of im2col row r (output positions j = oh · ow + ow) into dst.
void Im2ColRowRange(const float* x, const Geo2& g, int64_t r, int64_t j0, int64_t j1, float* dst);

struct Im2ColSource {
  const float* x;
  const Geo2* g;
  static void Fill(const void* ctx, int64_t r, int64_t j0, int64_t j1, float* dst) {
    auto* s = static_cast<const Im2ColSource*>(ctx);
    Im2ColRowRange(s->x, *s->g, r, j0, j1, dst);
  }
};


}  // namespace gebe::cpu
