// Depthwise convolutions (group == channels, one input channel per output channel): kernels
// larger than 3×3 on planes of up to 4096 bordered positions with the channels in the vector lanes where the ISA has
// kernels for it (AVX-512, conv_depthwise_channels_last.h); 3×3 on small
// planes read in place where the ISA has kernels for them (AVX-512); any kernel size with
// stride 1 or 2 plane by plane over a zero-bordered copy (stride 2 as four parity sub-planes),
// bias and Relu/Clip in the ISA's plane kernel; other strides, and copies that would be mostly
// padding, row by row. The row
// kernels are the active ISA's (conv_depthwise_rows.h).
#include "cpu/ops/conv_depthwise.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "cpu/ops/conv_depthwise_channels_last.h"
#include "cpu/ops/conv_depthwise_rows.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

RowClamp ClampOf(const Activation& act) {
  RowClamp clamp;
  if (act.kind == Activation::Kind::kRelu) {
    clamp.kind = RowClamp::kRelu;
  } else if (act.kind == Activation::Kind::kClip) {
    clamp.kind = RowClamp::kClip;
    clamp.lo = act.alpha;
    clamp.hi = act.beta;
  }
  return clamp;
}

namespace {

// 3×3 depthwise on small planes, read in place by the ISA's flat9 or rows9 (conv_depthwise_rows.h).
void Depthwise3x3Small(SmallPlanes9Fn kernel, const DepthwiseJob& job, int64_t planes, const Activation& act,
                       ThreadPool* pool) {
  const int64_t ohw = job.g.oh * job.g.ow;
  const bool apply_after = act.kind != Activation::Kind::kNone && job.clamp.kind == RowClamp::kNone;
  pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, 9 * ohw)), [&](int64_t p0, int64_t p1) {
    kernel(job, p0, p1);
    if (apply_after) act.Apply(job.y + p0 * ohw, (p1 - p0) * ohw);
  });
}

// Depthwise with stride S = 1 or 2 (equal in both directions), any kernel size, pads and
// dilations, one plane at a time. The input plane is copied into a zero-bordered buffer (even
// height and width): for S = 1 as is; for S = 2 split into four sub-planes by row and column
// parity, which turns every stride-2 tap into a unit-stride one. Output (oh, ow) then reads
// tap_base[t] + oh·(wp / S) + ow for every tap t, and the ISA's Plane9 (3×3) or PlaneK computes
// the plane with bias and Relu/Clip in registers. Per-row border cases and stride-2 gathers
// otherwise cost more than the arithmetic; the copy is one pass over the input against kh·kw
// reads of it.
struct PaddedPlane {
  int64_t s, hp, wp, sub;
  // Extents rounded up to even (stride 2 splits the plane into four phases); only for a g that
  // Fits.
  explicit PaddedPlane(const Geo2& g) : s(g.sw) {
    hp = Even(BorderedExtent(g.ih, g.oh, g.kh, g.sh, g.dh, g.ph, kNoLimit));
    wp = Even(BorderedExtent(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw, kNoLimit));
    sub = (hp / 2) * (wp / 2);
  }
  // Offset of padded element (r, c) in the buffer.
  int64_t At(int64_t r, int64_t c) const {
    return s == 1 ? r * wp + c : ((r % 2) * 2 + c % 2) * sub + (r / 2) * (wp / 2) + c / 2;
  }
  // Whether the copy pays: padding and dilation that stretch the buffer far past the plane (a
  // dilated kernel over a small map, whose taps mostly read padding) are left to the row path,
  // which skips a tap's rows and columns outside the image.
  static bool Fits(const Geo2& g) {
    if ((g.sw != 1 && g.sw != 2) || g.sh != g.sw) return false;
    const int64_t limit = 4 * g.ih * g.iw + 4096;
    const int64_t hp = BorderedExtent(g.ih, g.oh, g.kh, g.sh, g.dh, g.ph, limit), wp = BorderedExtent(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw, limit);
    return hp > 0 && wp > 0 && Even(wp) <= limit && Even(hp) <= limit / Even(wp);
  }

 private:
  static constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max() / 2;
  static int64_t Even(int64_t extent) { return (extent + 1) / 2 * 2; }
};

void DepthwisePlanes(const float* x, const float* w, const float* bias, float* y, int64_t planes, int64_t channels,
                     int64_t multiplier, const Geo2& g, const Activation& act, const DepthwiseRows& rows, ThreadPool* pool) {
  const PaddedPlane layout(g);
  const int64_t s = layout.s, hp = layout.hp, wp = layout.wp;
  const int64_t wq = wp / s, ohw = g.oh * g.ow, taps = g.kh * g.kw;
  const RowClamp clamp = ClampOf(act);
  const bool apply_after = act.kind != Activation::Kind::kNone && clamp.kind == RowClamp::kNone;
  pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, taps * ohw)), [&](int64_t p0, int64_t p1) {
    thread_local std::vector<float> padded;
    thread_local std::vector<const float*> tap_base;
    // Borders are zeroed once per chunk: every plane rewrites only the interior.
    padded.assign(size_t(hp * wp), 0.f);
    float* buf = padded.data();
    tap_base.resize(size_t(taps));
    for (int64_t kh = 0; kh < g.kh; ++kh)
      for (int64_t kw = 0; kw < g.kw; ++kw) tap_base[size_t(kh * g.kw + kw)] = buf + layout.At(kh * g.dh, kw * g.dw);
    // Output channel m of image n (counted along, not divided out per plane: small planes are
    // cheap enough that three divisions would show).
    int64_t cm = channels * multiplier, m = p0 % cm, n = p0 / cm;
    for (int64_t p = p0; p < p1; ++p, m = m + 1 == cm ? 0 : m + 1, n += m == 0) {
      const float* xc = x + (n * channels + (multiplier == 1 ? m : m / multiplier)) * g.ih * g.iw;
      for (int64_t r = 0; r < g.ih; ++r) {
        const float* src = xc + r * g.iw;
        if (s == 1) {
          rows.copy_row(buf + layout.At(r + g.ph, g.pw), src, g.iw);
          continue;
        }
        // Input columns 0, 2, 4, ... land on padded columns pw, pw + 2, ...: consecutive in one
        // sub-plane; the odd ones in the other.
        rows.split_row(buf + layout.At(r + g.ph, g.pw), buf + layout.At(r + g.ph, g.pw + 1), src, g.iw);
      }
      float* yc = y + p * ohw;
      const float* wc = w + m * taps;
      const float b = bias ? bias[m] : 0.f;
      if (taps == 9) rows.plane9(yc, tap_base.data(), g.oh, g.ow, wq, wc, b, clamp);
      else rows.plane_k(yc, tap_base.data(), int(taps), g.oh, g.ow, wq, wc, b, clamp);
      if (apply_after) act.Apply(yc, ohw);
    }
  });
}

}  // namespace

namespace {

// The columns where all three taps of a 3-wide kernel row are inside the row (empty: e == a).
void Interior3(const TapRanges& cols, int64_t* a, int64_t* e) {
  *a = std::max(cols.lo[0], std::max(cols.lo[1], cols.lo[2]));
  *e = std::max(*a, std::min(cols.hi[0], std::min(cols.hi[1], cols.hi[2])));
}

// Output columns of a 3-wide kernel row outside [a, e), tap by tap.
void Row3Borders(float* yr, const float* xr, const float* wrow, const Geo2& g, const TapRanges& cols, int64_t a,
                 int64_t e) {
  for (int64_t kw = 0; kw < 3; ++kw) {
    float wv = wrow[kw];
    int64_t off = kw * g.dw - g.pw;
    for (int64_t ow = cols.lo[size_t(kw)]; ow < std::min(a, cols.hi[size_t(kw)]); ++ow) yr[ow] += wv * xr[ow * g.sw + off];
    for (int64_t ow = std::max(e, cols.lo[size_t(kw)]); ow < cols.hi[size_t(kw)]; ++ow) yr[ow] += wv * xr[ow * g.sw + off];
  }
}

// 3×3, stride 1 or 2: the interior columns of output row oh in one fused pass (rows above/below
// the image read a zero row), the border columns tap by tap.
void FusedRow9(float* yr, const float* xc, const float* wc, float b, int64_t oh, const Geo2& g, const TapRanges& cols,
               int64_t a9, int64_t e9, const float* zeros, const DepthwiseRows& rows) {
  const float* taps[9];
  for (int64_t kh = 0; kh < 3; ++kh) {
    int64_t ih = oh * g.sh - g.ph + kh * g.dh;
    const float* xr = ih < 0 || ih >= g.ih ? zeros : xc + ih * g.iw;
    for (int64_t kw = 0; kw < 3; ++kw) taps[kh * 3 + kw] = xr + a9 * g.sw + kw * g.dw - g.pw;
  }
  (g.sw == 1 ? rows.row9 : rows.row9_s2)(yr + a9, taps, e9 - a9, wc, b);
  for (int64_t ow = 0; ow < a9; ++ow) yr[ow] = b;
  for (int64_t ow = e9; ow < g.ow; ++ow) yr[ow] = b;
  for (int64_t kh = 0; kh < 3; ++kh) {
    int64_t ih = oh * g.sh - g.ph + kh * g.dh;
    if (ih >= 0 && ih < g.ih) Row3Borders(yr, xc + ih * g.iw, wc + kh * 3, g, cols, a9, e9);
  }
}

// One kernel row (kh) of a 3-wide kernel added into output row yr: one pass over the interior.
void KernelRow3(float* yr, const float* xr, const float* wrow, const Geo2& g, const TapRanges& cols,
                const DepthwiseRows& rows) {
  int64_t a, e;
  Interior3(cols, &a, &e);
  const float w0 = wrow[0], w1 = wrow[1], w2 = wrow[2];
  int64_t o0 = -g.pw, o1 = g.dw - g.pw, o2 = 2 * g.dw - g.pw;
  if (e > a && g.sw == 1) {
    rows.row3(yr + a, xr + a + o0, xr + a + o1, xr + a + o2, e - a, w0, w1, w2);
  } else if (e > a && g.sw == 2) {
    rows.row3_s2(yr + a, xr + 2 * a + o0, xr + 2 * a + o1, xr + 2 * a + o2, e - a, w0, w1, w2);
  } else {
    for (int64_t ow = a; ow < e; ++ow) {
      int64_t base = ow * g.sw;
      yr[ow] += w0 * xr[base + o0] + w1 * xr[base + o1] + w2 * xr[base + o2];
    }
  }
  Row3Borders(yr, xr, wrow, g, cols, a, e);
}

// Any kernel size, stride, pads and dilations: output row by output row, kernel row by kernel row.
void GenericPlane(const float* xc, const float* wc, float b, float* yc, const Geo2& g, const DepthwiseRows& rows,
                  std::vector<float>& zeros) {
  const TapRanges cols(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw);
  bool fused9 = g.kh == 3 && g.kw == 3 && (g.sw == 1 || g.sw == 2);
  int64_t a9 = 0, e9 = 0;
  if (fused9) {
    Interior3(cols, &a9, &e9);
    if (e9 > a9 && zeros.size() < size_t(g.iw)) zeros.assign(size_t(g.iw), 0.f);
  }
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    float* yr = yc + oh * g.ow;
    if (fused9 && e9 > a9) {
      FusedRow9(yr, xc, wc, b, oh, g, cols, a9, e9, zeros.data(), rows);
      continue;
    }
    for (int64_t ow = 0; ow < g.ow; ++ow) yr[ow] = b;
    for (int64_t kh = 0; kh < g.kh; ++kh) {
      int64_t ih = oh * g.sh - g.ph + kh * g.dh;
      if (ih < 0 || ih >= g.ih) continue;
      const float* xr = xc + ih * g.iw;
      if (g.kw == 3) {
        KernelRow3(yr, xr, wc + kh * 3, g, cols, rows);
        continue;
      }
      for (int64_t kw = 0; kw < g.kw; ++kw) {
        float wv = wc[kh * g.kw + kw];
        int64_t off = kw * g.dw - g.pw;
        for (int64_t ow = cols.lo[size_t(kw)]; ow < cols.hi[size_t(kw)]; ++ow) yr[ow] += wv * xr[ow * g.sw + off];
      }
    }
  }
}

}  // namespace

void Depthwise(const float* x, const float* w, const float* bias, float* y, int64_t planes, int64_t channels,
               int64_t multiplier, const Geo2& g, const Activation& act, ThreadPool* pool) {
  // planes = N * out_channels; output channel m reads input channel m / multiplier.
  const DepthwiseRows& rows = ActiveDepthwiseRows();
  if (channels > 0 && DepthwiseChannelsLastFits(g, multiplier)) {
    DepthwiseChannelsLast(x, w, bias, y, planes / channels, channels, g, act, pool);
    return;
  }
  if (g.kh == 3 && g.kw == 3) {
    SmallPlanes9Fn small = rows.flat9 && Flat9Fits(g)   ? rows.flat9
                           : rows.rows9 && Rows9Fits(g) ? rows.rows9
                           : rows.wide2 && Wide2Fits(g) ? rows.wide2
                                                        : nullptr;
    if (small) {
      Depthwise3x3Small(small, DepthwiseJob{x, w, bias, y, channels, multiplier, g, ClampOf(act)}, planes, act, pool);
      return;
    }
  }
  if (PaddedPlane::Fits(g)) {
    DepthwisePlanes(x, w, bias, y, planes, channels, multiplier, g, act, rows, pool);
    return;
  }
  pool->ParallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
    std::vector<float> zeros;  // stands in for input rows above and below the image
    for (int64_t p = p0; p < p1; ++p) {
      int64_t m = p % (channels * multiplier), n = p / (channels * multiplier);
      float* yc = y + p * g.oh * g.ow;
      GenericPlane(x + (n * channels + m / multiplier) * g.ih * g.iw, w + m * g.kh * g.kw, bias ? bias[m] : 0.f, yc, g,
                   rows, zeros);
      act.Apply(yc, g.oh * g.ow);
    }
  });
}

}  // namespace gebe::cpu
