#include "cpu/ops/conv_vol2col.h"

#include <algorithm>
#include <cstring>

#include "cpu/ops/conv_im2col.h"

namespace gebe::cpu {

Vol2Col::Vol2Col(const Geo3& geo, int64_t channels) : g(geo) {
  padded = g.sw == 1;
  if (padded) {
    dp = (g.od - 1) * g.sd + (g.kd - 1) * g.dd + 1;
    hp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
    wp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
    copy = !(g.pd == 0 && g.ph == 0 && g.pw == 0 && dp == g.id && hp == g.ih && wp == g.iw);
    if (!copy) dp = g.id, hp = g.ih, wp = g.iw;
  }
  taps.reserve(size_t(channels * g.kd * g.kh * g.kw));
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kd = 0; kd < g.kd; ++kd) {
      for (int64_t kh = 0; kh < g.kh; ++kh) {
        for (int64_t kw = 0; kw < g.kw; ++kw) {
          if (padded) {
            taps.push_back({((c * dp + kd * g.dd) * hp + kh * g.dh) * wp + kw * g.dw, 0, 0, 0, g.ow});
            continue;
          }
          int64_t off_w = kw * g.dw - g.pw;
          int64_t x0 = off_w >= 0 ? 0 : std::min<int64_t>(g.ow, (-off_w + g.sw - 1) / g.sw);
          int64_t x1 = off_w >= g.iw ? 0 : std::min<int64_t>(g.ow, (g.iw - 1 - off_w) / g.sw + 1);
          taps.push_back({c * g.id * g.ih * g.iw + off_w, kd * g.dd - g.pd, kh * g.dh - g.ph, x0, std::max(x0, x1)});
        }
      }
    }
  }
}

const float* Vol2Col::Prepare(const float* x, int64_t channels, std::vector<float>& buffer) const {
  if (!copy) return x;
  if (buffer.size() < size_t(channels * dp * hp * wp)) buffer.resize(size_t(channels * dp * hp * wp));
  float* p = buffer.data();
  // Input columns [lo, hi) of each padded row are inside the input.
  int64_t lo = std::min(wp, g.pw), hi = std::min(wp, g.pw + g.iw);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t z = 0; z < dp; ++z) {
      for (int64_t y = 0; y < hp; ++y, p += wp) {
        int64_t in_d = z - g.pd, in_h = y - g.ph;
        if (in_d < 0 || in_d >= g.id || in_h < 0 || in_h >= g.ih || hi <= lo) {
          std::memset(p, 0, sizeof(float) * size_t(wp));
          continue;
        }
        const float* src = x + ((c * g.id + in_d) * g.ih + in_h) * g.iw;
        for (int64_t i = 0; i < lo; ++i) p[i] = 0.f;
        CopyFloats(p + lo, src + (lo - g.pw), hi - lo);
        for (int64_t i = hi; i < wp; ++i) p[i] = 0.f;
      }
    }
  }
  return buffer.data();
}

void Vol2Col::RowRange(const float* x, int64_t r, int64_t j0, int64_t j1, float* dst) const {
  const Vol2ColTap t = taps[size_t(r)];
  const int64_t ow = g.ow, oh_n = g.oh, id = g.id, ih = g.ih, iw = g.iw, sd = g.sd, sh = g.sh, sw = g.sw;
  const float* xt = x + t.offset;
  if (padded) {
    // Every output row of the tap is ow contiguous values of the prepared input.
    int64_t line = j0 / ow, o = j0 % ow, od = line / oh_n, oh = line % oh_n;
    for (int64_t j = j0; j < j1; o = 0) {
      int64_t n = std::min(ow - o, j1 - j);
      CopyFloats(dst + (j - j0), xt + (od * sd * hp + oh * sh) * wp + o, n);
      j += n;
      if (++oh == oh_n) oh = 0, ++od;
    }
    return;
  }
  // One output row (fixed od, oh) at a time: columns [o, o + n) of its ow.
  int64_t line = j0 / ow, o = j0 % ow, od = line / oh_n, oh = line % oh_n;
  for (int64_t j = j0; j < j1; o = 0) {
    int64_t n = std::min(ow - o, j1 - j);
    int64_t in_d = od * sd + t.d, in_h = oh * sh + t.h;
    float* out = dst + (j - j0) - o;  // indexed by output column
    j += n;
    if (++oh == oh_n) oh = 0, ++od;
    if (in_d < 0 || in_d >= id || in_h < 0 || in_h >= ih) {
      std::memset(out + o, 0, sizeof(float) * size_t(n));
      continue;
    }
    const float* src = xt + (in_d * ih + in_h) * iw;
    int64_t a = std::max(o, t.x0), b = std::min(o + n, t.x1);
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
