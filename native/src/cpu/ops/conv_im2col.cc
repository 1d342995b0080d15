#include "cpu/ops/conv_im2col.h"

#include <algorithm>

namespace gebe::cpu {

void Im2ColRow(const float* x, const Geo2& g, int64_t r, float* dst) {
  int64_t kw = r % g.kw, kh = (r / g.kw) % g.kh, c = r / (g.kw * g.kh);
  const float* xc = x + c * g.ih * g.iw;
  // Output columns [lo, hi) read inside the row; the rest are padding zeros.
  int64_t off = kw * g.dw - g.pw;
  int64_t lo = off >= 0 ? 0 : std::min(g.ow, (-off + g.sw - 1) / g.sw);
  int64_t hi = g.iw - 1 - off < 0 ? 0 : std::min(g.ow, (g.iw - 1 - off) / g.sw + 1);
  hi = std::max(hi, lo);
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    int64_t ih = oh * g.sh - g.ph + kh * g.dh;
    float* d = dst + oh * g.ow;
    if (ih < 0 || ih >= g.ih) {
      std::memset(d, 0, sizeof(float) * size_t(g.ow));
      continue;
    }
    const float* xr = xc + ih * g.iw;
    for (int64_t ow = 0; ow < lo; ++ow) d[ow] = 0.f;
    if (g.sw == 1) {
      if (hi > lo) std::memcpy(d + lo, xr + lo + off, sizeof(float) * size_t(hi - lo));
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) d[ow] = xr[ow * g.sw + off];
    }
    for (int64_t ow = hi; ow < g.ow; ++ow) d[ow] = 0.f;
  }
}

void Im2Col(const float* x, int64_t channels, const Geo2& g, float* col, ThreadPool* pool) {
  int64_t rows = channels * g.kh * g.kw, ohw = g.oh * g.ow;
  ParallelForOrInline(pool, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, ohw)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) Im2ColRow(x, g, r, col + r * ohw);
  });
}

void Im2ColRowRange(const float* x, const Geo2& g, int64_t r, int64_t j0, int64_t j1, float* dst) {
  int64_t kw = r % g.kw, kh = (r / g.kw) % g.kh, c = r / (g.kw * g.kh);
  const float* xc = x + c * g.ih * g.iw;
  int64_t off = kw * g.dw - g.pw;
  int64_t lo = off >= 0 ? 0 : std::min(g.ow, (-off + g.sw - 1) / g.sw);
  int64_t hi = g.iw - 1 - off < 0 ? 0 : std::min(g.ow, (g.iw - 1 - off) / g.sw + 1);
  // One division for the block, none per output row.
  int64_t oh = j0 / g.ow, o0 = j0 % g.ow;
  for (int64_t j = j0; j < j1; ++oh, o0 = 0) {
    int64_t o1 = std::min(g.ow, o0 + (j1 - j));
    float* d = dst + (j - j0) - o0;  // d[ow] is output column ow of this row
    int64_t ih = oh * g.sh - g.ph + kh * g.dh;
    int64_t a = std::max(o0, lo), e = std::min(o1, hi);
    if (ih < 0 || ih >= g.ih || a >= e) {
      for (int64_t ow = o0; ow < o1; ++ow) d[ow] = 0.f;
    } else {
      const float* xr = xc + ih * g.iw + off;
      for (int64_t ow = o0; ow < a; ++ow) d[ow] = 0.f;
      if (g.sw == 1) CopyFloats(d + a, xr + a, e - a);
      else if (g.sw == 2) for (int64_t ow = a; ow < e; ++ow) d[ow] = xr[2 * ow];
      else for (int64_t ow = a; ow < e; ++ow) d[ow] = xr[ow * g.sw];
      for (int64_t ow = e; ow < o1; ++ow) d[ow] = 0.f;
    }
    j += o1 - o0;
  }
}

}  // namespace gebe::cpu
