// N-D MaxPool / AveragePool (see pool_nd.h): per output position, the window clipped to the
// input dim by dim, then walked with an odometer over the taps inside.
#include "cpu/ops/pool_nd.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "cpu/ops/conv_vol2col.h"
#include "cpu/ops/op_util.h"
#include "cpu/ops/pool_rows.h"

namespace gebe::cpu {

namespace {

// Flat row-major offset into a plane of `dims` → the same element counted column-major
// (storage_order=1: the first spatial dim varies fastest).
int64_t ColumnMajor(int64_t flat, const std::vector<int64_t>& dims) {
  int64_t out = 0, stride = 1;
  std::vector<int64_t> idx(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    idx[i] = flat % dims[i];
    flat /= dims[i];
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    out += idx[i] * stride;
    stride *= dims[i];
  }
  return out;
}

// One output value of one plane at output position `pos`.
// `work` holds 4 · spatial ints (reused, so no allocation per output).
void PoolAt(const PoolNdArgs& a, const float* xc, const std::vector<int64_t>& pos, int64_t* work, float* y, int64_t* index) {
  const ConvGeometry& g = *a.g;
  size_t s = size_t(g.spatial);
  int64_t *start = work, *lo = work + s, *hi = work + 2 * s, *tap = work + 3 * s;
  int64_t count = 1, padded = 1;
  for (size_t d = 0; d < s; ++d) {
    int64_t dl = g.dilation[d];
    start[d] = pos[d] * g.stride[d] - g.pad_begin[d];
    // Taps inside the input: [lo, hi).
    lo[d] = start[d] >= 0 ? 0 : (-start[d] + dl - 1) / dl;
    hi[d] = std::min<int64_t>(g.kernel[d], start[d] >= g.in[d] ? 0 : (g.in[d] - 1 - start[d]) / dl + 1);
    count *= std::max<int64_t>(0, hi[d] - lo[d]);
    // count_include_pad: the window clipped to the padded input (ceil_mode's overhang is not counted).
    int64_t p0 = std::max<int64_t>(start[d], -g.pad_begin[d]);
    int64_t p1 = std::min<int64_t>(start[d] + (g.kernel[d] - 1) * dl + 1, g.in[d] + g.pad_end[d]);
    padded *= std::max<int64_t>(0, (p1 - p0 + dl - 1) / dl);
  }
  float best = -std::numeric_limits<float>::infinity(), sum = 0.f;
  int64_t best_index = -1;
  if (count > 0) {
    std::copy(lo, lo + s, tap);
    for (;;) {
      int64_t offset = 0;
      for (size_t d = 0; d < s; ++d) offset = offset * g.in[d] + start[d] + tap[d] * g.dilation[d];
      float v = xc[offset];
      if (a.max) {
        if (v > best || best_index < 0) {
          best = v;
          best_index = offset;
        }
      } else {
        sum += v;
      }
      size_t d = s;
      while (d-- > 0) {
        if (++tap[d] < hi[d]) break;
        tap[d] = lo[d];
      }
      if (d == size_t(-1)) break;
    }
  }
  if (a.max) {
    *y = best;
    if (index) *index = best_index < 0 ? 0 : (a.column_major ? ColumnMajor(best_index, g.in) : best_index);
  } else {
    int64_t denom = a.count_include_pad ? padded : count;
    *y = denom > 0 ? sum / float(denom) : 0.f;
  }
}

// Taps [lo, hi) of a window starting at `start` that fall inside [0, in); `padded`: how many fall
// inside the padded input (what count_include_pad divides by; ceil_mode's overhang is not counted).
struct TapRange {
  int64_t lo, hi, padded;
  TapRange(int64_t start, int64_t k, int64_t dil, int64_t in, int64_t pad_begin, int64_t pad_end) {
    lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
    hi = std::max(lo, std::min<int64_t>(k, start >= in ? 0 : (in - 1 - start) / dil + 1));
    int64_t p0 = std::max<int64_t>(start, -pad_begin), p1 = std::min<int64_t>(start + (k - 1) * dil + 1, in + pad_end);
    padded = std::max<int64_t>(0, (p1 - p0 + dil - 1) / dil);
  }
};

// One plane of a 3-D pool without Indices. cols: the TapRange of every output column; [xa, xb):
// the columns whose windows lie inside the row (MaxPool does them with the vectorised row).
void PoolPlane3d(const PoolNdArgs& a, const Geo3& g, const std::vector<TapRange>& cols, int64_t xa, int64_t xb,
                 const float* xc, float* yc, float* tmp) {
  const ConvGeometry& geo = *a.g;
  const float lowest = -std::numeric_limits<float>::infinity();
  int64_t plane = g.ih * g.iw;
  MaxInteriorFn max_interior = ActiveMaxInterior();
  for (int64_t od = 0; od < g.od; ++od) {
    int64_t d0 = od * g.sd - g.pd;
    TapRange td(d0, g.kd, g.dd, g.id, g.pd, geo.pad_end[0]);
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      int64_t h0 = oh * g.sh - g.ph;
      TapRange th(h0, g.kh, g.dh, g.ih, g.ph, geo.pad_end[1]);
      float* row = yc + (od * g.oh + oh) * g.ow;
      bool interior = a.max && xb > xa;
      if (interior) {
        if (td.hi == td.lo || th.hi == th.lo) std::fill(row + xa, row + xb, lowest);
        for (int64_t kd = td.lo; kd < td.hi && th.hi > th.lo; ++kd) {
          float* dst = kd == td.lo ? row + xa : tmp;
          max_interior(xc + (d0 + kd * g.dd) * plane, g.iw, h0, th.lo, th.hi, g.dh, g.kw, g.dw, g.sw, xa * g.sw - g.pw, dst, xb - xa);
          if (kd == td.lo) continue;
          for (int64_t i = 0; i < xb - xa; ++i) row[xa + i] = row[xa + i] < tmp[i] ? tmp[i] : row[xa + i];
        }
      }
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        if (interior && ow == xa) ow = xb;
        if (ow >= g.ow) break;
        const TapRange& tw = cols[size_t(ow)];
        int64_t w0 = ow * g.sw - g.pw;
        float best = lowest, sum = 0.f;
        for (int64_t kd = td.lo; kd < td.hi; ++kd) {
          for (int64_t kh = th.lo; kh < th.hi; ++kh) {
            const float* src = xc + ((d0 + kd * g.dd) * g.ih + h0 + kh * g.dh) * g.iw + w0;
            for (int64_t kw = tw.lo; kw < tw.hi; ++kw) {
              float v = src[kw * g.dw];
              best = best < v ? v : best;  // NaN skipped, as in the vectorised row
              sum += v;
            }
          }
        }
        if (a.max) {
          row[ow] = best;
        } else {
          int64_t denom = a.count_include_pad ? td.padded * th.padded * tw.padded : (td.hi - td.lo) * (th.hi - th.lo) * (tw.hi - tw.lo);
          row[ow] = denom > 0 ? sum / float(denom) : 0.f;
        }
      }
    }
  }
}

void Pool3d(const PoolNdArgs& a, const RunContext& ctx) {
  const ConvGeometry& geo = *a.g;
  Geo3 g = To3D(geo);
  std::vector<TapRange> cols;
  cols.reserve(size_t(g.ow));
  for (int64_t ow = 0; ow < g.ow; ++ow) cols.emplace_back(ow * g.sw - g.pw, g.kw, g.dw, g.iw, g.pw, geo.pad_end[2]);
  int64_t xa = 0, xb = 0;
  while (xa < g.ow && cols[size_t(xa)].lo != 0) ++xa;
  xb = xa;
  while (xb < g.ow && cols[size_t(xb)].lo == 0 && cols[size_t(xb)].hi == g.kw) ++xb;
  int64_t in_size = g.id * g.ih * g.iw, out_size = g.od * g.oh * g.ow, window = g.kd * g.kh * g.kw;
  ctx.pool->ParallelFor(a.planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, out_size * window)), [&](int64_t p0, int64_t p1) {
    thread_local std::vector<float> tmp;
    if (tmp.size() < size_t(g.ow)) tmp.resize(size_t(g.ow));
    for (int64_t p = p0; p < p1; ++p) PoolPlane3d(a, g, cols, xa, xb, a.x + p * in_size, a.y + p * out_size, tmp.data());
  });
}

}  // namespace

void PoolNd(const PoolNdArgs& a, const RunContext& ctx) {
  if (a.g->spatial == 3 && !a.indices) return Pool3d(a, ctx);
  const ConvGeometry& g = *a.g;
  int64_t in_size = SizeFrom(g.in, 0), out_size = SizeFrom(g.out, 0), window = SizeFrom(g.kernel, 0);
  ctx.pool->ParallelFor(a.planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, out_size * window)), [&](int64_t p0, int64_t p1) {
    std::vector<int64_t> pos(size_t(g.spatial)), work(4 * size_t(g.spatial));
    for (int64_t p = p0; p < p1; ++p) {
      const float* xc = a.x + p * in_size;
      std::fill(pos.begin(), pos.end(), 0);
      for (int64_t o = 0; o < out_size; ++o) {
        int64_t* index = a.indices ? a.indices + p * out_size + o : nullptr;
        PoolAt(a, xc, pos, work.data(), a.y + p * out_size + o, index);
        if (index) *index += p * in_size;
        for (size_t d = pos.size(); d-- > 0;) {
          if (++pos[d] < g.out[d]) break;
          pos[d] = 0;
        }
      }
    }
  });
}

}  // namespace gebe::cpu
