// N-D MaxPool / AveragePool (see pool_nd.h): per output position, the window clipped to the
// input dim by dim, then walked with an odometer over the taps inside.
#include "cpu/ops/pool_nd.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "cpu/ops/op_util.h"

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

}  // namespace

void PoolNd(const PoolNdArgs& a, const RunContext& ctx) {
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
