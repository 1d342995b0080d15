#include "cpu/ops/conv_vol2col.h"

#include <algorithm>
#include <cstring>

#include "cpu/ops/conv_im2col.h"

namespace gebe::cpu {

void Vol2ColRowRange(const float* x, const Geo3& g, int64_t r, int64_t j0, int64_t j1, float* dst) {
  int64_t kw = r % g.kw, kh = (r / g.kw) % g.kh, kd = (r / (g.kw * g.kh)) % g.kd, c = r / (g.kw * g.kh * g.kd);
  const float* xc = x + c * g.id * g.ih * g.iw;
  int64_t off_w = kw * g.dw - g.pw, sw = g.sw;
  // Output columns whose input column is inside the row: [x0, x1).
  int64_t x0 = off_w >= 0 ? 0 : std::min<int64_t>(g.ow, (-off_w + sw - 1) / sw);
  int64_t x1 = off_w >= g.iw ? 0 : std::min<int64_t>(g.ow, (g.iw - 1 - off_w) / sw + 1);
  x1 = std::max(x1, x0);
  // One output row (fixed od, oh) at a time: columns [o, o + n) of its ow (no division per row).
  int64_t line = j0 / g.ow, o = j0 % g.ow, od = line / g.oh, oh = line % g.oh;
  for (int64_t j = j0; j < j1; o = 0) {
    int64_t n = std::min(g.ow - o, j1 - j);
    int64_t in_d = od * g.sd + kd * g.dd - g.pd, in_h = oh * g.sh + kh * g.dh - g.ph;
    float* out = dst + (j - j0) - o;  // indexed by output column
    j += n;
    if (++oh == g.oh) oh = 0, ++od;
    if (in_d < 0 || in_d >= g.id || in_h < 0 || in_h >= g.ih) {
      std::memset(out + o, 0, sizeof(float) * size_t(n));
      continue;
    }
    const float* src = xc + (in_d * g.ih + in_h) * g.iw + off_w;
    int64_t a = std::max(o, x0), b = std::min(o + n, x1);
    for (int64_t i = o; i < std::min(a, o + n); ++i) out[i] = 0.f;
    if (sw == 1 && b > a) {
      CopyFloats(out + a, src + a, b - a);
    } else {
      for (int64_t i = a; i < b; ++i) out[i] = src[i * sw];
    }
    for (int64_t i = std::max(b, o); i < o + n; ++i) out[i] = 0.f;
  }
}

}  // namespace gebe::cpu
