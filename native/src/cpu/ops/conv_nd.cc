// N-D Conv and ConvTranspose (see conv_nd.h). Windows are walked as "lines": every spatial dim
// but the last is resolved once per line, the last one in the inner loop.
#include "cpu/ops/conv_nd.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/conv_prepacked.h"
#include "cpu/ops/conv_vol2col.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

// Splits flat index `flat` over `dims` (row-major) into `idx`.
void Unflatten(int64_t flat, const std::vector<int64_t>& dims, std::vector<int64_t>& idx) {
  for (size_t i = dims.size(); i-- > 0;) {
    idx[i] = flat % dims[i];
    flat /= dims[i];
  }
}

// Row r = (channel, tap...) of the im2col matrix of one image group: for every output position,
// the input value that tap reads (0 in the padding).
void Im2ColNdRow(const float* x, const ConvGeometry& g, int64_t r, float* dst) {
  size_t s = size_t(g.spatial);
  std::vector<int64_t> tap(s), line(s > 1 ? s - 1 : 0);
  Unflatten(r % SizeFrom(g.kernel, 0), g.kernel, tap);
  const float* xc = x + (r / SizeFrom(g.kernel, 0)) * SizeFrom(g.in, 0);
  std::vector<int64_t> outer_dims(g.out.begin(), g.out.end() - 1);
  int64_t lines = SizeFrom(outer_dims, 0), ow = g.out[s - 1], iw = g.in[s - 1];
  int64_t off_w = tap[s - 1] * g.dilation[s - 1] - g.pad_begin[s - 1], sw = g.stride[s - 1];
  // Output columns whose input column is inside the row: [x0, x1).
  int64_t x0 = off_w >= 0 ? 0 : std::min<int64_t>(ow, (-off_w + sw - 1) / sw);
  int64_t x1 = off_w >= iw ? 0 : std::min<int64_t>(ow, (iw - 1 - off_w) / sw + 1);
  x1 = std::max(x1, x0);
  for (int64_t l = 0; l < lines; ++l) {
    Unflatten(l, outer_dims, line);
    float* row = dst + l * ow;
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d + 1 < s && inside; ++d) {
      int64_t p = line[d] * g.stride[d] + tap[d] * g.dilation[d] - g.pad_begin[d];
      inside = p >= 0 && p < g.in[d];
      offset = offset * g.in[d] + p;
    }
    if (!inside) {
      std::memset(row, 0, sizeof(float) * size_t(ow));
      continue;
    }
    const float* src = xc + offset * iw + off_w;
    for (int64_t i = 0; i < x0; ++i) row[i] = 0.f;
    for (int64_t i = x0; i < x1; ++i) row[i] = src[i * sw];
    for (int64_t i = x1; i < ow; ++i) row[i] = 0.f;
  }
}

// Adds row r = (channel, tap...) of the col matrix (one value per input position) into the output
// plane of that channel, where that tap places it. line: spatial − 1 ints of room (no allocation
// per row).
void Col2ImNdRow(const float* src, const ConvGeometry& g, const std::vector<int64_t>& tap, float* plane, int64_t* line) {
  size_t s = size_t(g.spatial);
  int64_t lines = SizeFrom(g.in, 0) / g.in[s - 1], iw = g.in[s - 1], ow = g.out[s - 1];
  int64_t off_w = tap[s - 1] * g.dilation[s - 1] - g.pad_begin[s - 1], sw = g.stride[s - 1];
  // Input columns whose output column is inside the row: [i0, i1).
  int64_t i0 = off_w >= 0 ? 0 : std::min<int64_t>(iw, (-off_w + sw - 1) / sw);
  int64_t i1 = off_w >= ow ? 0 : std::min<int64_t>(iw, (ow - 1 - off_w) / sw + 1);
  std::fill(line, line + s - 1, 0);
  for (int64_t l = 0; l < lines; ++l) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d + 1 < s && inside; ++d) {
      int64_t p = line[d] * g.stride[d] + tap[d] * g.dilation[d] - g.pad_begin[d];
      inside = p >= 0 && p < g.out[d];
      offset = offset * g.out[d] + p;
    }
    // The next line (odometer over the outer input dims).
    for (size_t d = s - 1; d-- > 0;) {
      if (++line[d] < g.in[d]) break;
      line[d] = 0;
    }
    if (!inside) continue;
    float* dst = plane + offset * ow + off_w;
    const float* row = src + l * iw;
    for (int64_t i = i0; i < i1; ++i) dst[i * sw] += row[i];
  }
}

// 3-D Conv with W packed at load: per image and group, one GEMM whose B rows are vol2col rows
// generated into its panels (pointwise: the input itself), bias and activation in its epilogue.
void ConvPrepacked3d(const ConvNdArgs& a, const RunContext& ctx) {
  const ConvGeometry& g = *a.g;
  Geo3 g3 = To3D(g);
  int64_t cg = a.c / a.groups, mg = a.m / a.groups;
  int64_t in_size = SizeFrom(g.in, 0), out_size = SizeFrom(g.out, 0), kdim = (*a.packed)[0].k;
  bool pointwise = kdim == cg && g.in == g.out && g3.sd == 1 && g3.sh == 1 && g3.sw == 1 && g3.pd == 0 && g3.ph == 0 && g3.pw == 0;
  ThreadPool* pool = PoolForProduct(mg * out_size * kdim, ctx.pool);
  float* b_buffer = pool && pool->size() > 1 ? ctx.scratch->Floats(size_t(PackedBFloats(kdim, out_size))) : nullptr;
  RowEpilogue ep = a.act ? EpilogueFor(*a.act) : RowEpilogue{};
  Vol2Col vol(g3, cg);
  for (int64_t b = 0; b < a.n; ++b) {
    for (int64_t gi = 0; gi < a.groups; ++gi) {
      const float* xg = a.x + (b * a.c + gi * cg) * in_size;
      thread_local std::vector<float> padded;
      Vol2ColSource vol2col{pointwise ? xg : vol.Prepare(xg, cg, padded), &vol};
      BRowSource src;
      if (pointwise) {
        src.direct = xg;
      } else {
        src.fill = Vol2ColSource::Fill;
        src.ctx = &vol2col;
      }
      RowEpilogue gep = ep;
      gep.bias = a.bias ? a.bias + gi * mg : nullptr;
      SgemmPrepackedRows((*a.packed)[size_t(gi)], out_size, src, a.y + (b * a.m + gi * mg) * out_size, out_size, gep,
                         b_buffer, pool);
    }
  }
}

}  // namespace

void ConvNd(const ConvNdArgs& a, const RunContext& ctx) {
  const ConvGeometry& g = *a.g;
  int64_t cg = a.c / a.groups, mg = a.m / a.groups;
  int64_t in_size = SizeFrom(g.in, 0), out_size = SizeFrom(g.out, 0), kdim = cg * SizeFrom(g.kernel, 0);
  if (out_size == 0 || a.n == 0) return;
  if (g.spatial == 3 && kdim > 0 && a.packed && a.packed->size() == size_t(a.groups) && (*a.packed)[0].k == kdim &&
      (*a.packed)[0].m == mg) {
    return ConvPrepacked3d(a, ctx);
  }
  float* col = ctx.scratch->Floats(size_t(kdim * out_size));
  Vol2Col vol(g.spatial == 3 ? To3D(g) : Geo3{}, g.spatial == 3 ? cg : 0);
  std::vector<float> padded;
  for (int64_t b = 0; b < a.n; ++b) {
    for (int64_t gi = 0; gi < a.groups; ++gi) {
      const float* xg = a.x + (b * a.c + gi * cg) * in_size;
      const float* xv = g.spatial == 3 ? vol.Prepare(xg, cg, padded) : xg;
      ctx.pool->ParallelFor(kdim, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, out_size)), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          if (g.spatial == 3) vol.RowRange(xv, r, 0, out_size, col + r * out_size);
          else Im2ColNdRow(xg, g, r, col + r * out_size);
        }
      });
      Sgemm(false, false, mg, out_size, kdim, 1.f, a.w + gi * mg * kdim, kdim, col, out_size, 0.f,
            a.y + (b * a.m + gi * mg) * out_size, out_size, ctx.pool);
    }
  }
  bool act = a.act && a.act->kind != Activation::Kind::kNone;
  if (!a.bias && !act) return;
  ctx.pool->ParallelFor(a.n * a.m, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, out_size)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* row = a.y + r * out_size;
      if (a.bias) {
        float bv = a.bias[r % a.m];
        for (int64_t i = 0; i < out_size; ++i) row[i] += bv;
      }
      if (act) a.act->Apply(row, out_size);
    }
  });
}

void ConvTransposeNd(const ConvNdArgs& a, const RunContext& ctx) {
  const ConvGeometry& g = *a.g;
  int64_t cg = a.c / a.groups, mg = a.m / a.groups, taps = SizeFrom(g.kernel, 0);
  int64_t in_size = SizeFrom(g.in, 0), out_size = SizeFrom(g.out, 0), kdim = mg * taps;
  float* col = ctx.scratch->Floats(size_t(kdim * in_size));
  std::memset(a.y, 0, sizeof(float) * size_t(a.n * a.m * out_size));
  ThreadPool* pool = PoolForProduct(kdim * in_size * cg, ctx.pool);
  // An empty input adds nothing (and its rows have no length to divide by): the output is the bias.
  for (int64_t b = 0; b < a.n && in_size > 0; ++b) {
    for (int64_t gi = 0; gi < a.groups; ++gi) {
      // col[kdim, in] = W_g^T [kdim, cg] · X_g [cg, in]
      Sgemm(true, false, kdim, in_size, cg, 1.f, a.w + gi * cg * kdim, kdim, a.x + (b * a.c + gi * cg) * in_size, in_size, 0.f,
            col, in_size, pool);
      float* yg = a.y + (b * a.m + gi * mg) * out_size;
      // Output channels split over the threads: each channel's taps all add into its own plane.
      ctx.pool->ParallelFor(mg, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, taps * in_size)), [&](int64_t c0, int64_t c1) {
        std::vector<int64_t> tap(size_t(g.spatial)), line(size_t(g.spatial));
        for (int64_t ch = c0; ch < c1; ++ch) {
          for (int64_t t = 0; t < taps; ++t) {
            Unflatten(t, g.kernel, tap);
            Col2ImNdRow(col + (ch * taps + t) * in_size, g, tap, yg + ch * out_size, line.data());
          }
        }
      });
    }
  }
  if (!a.bias) return;
  for (int64_t r = 0; r < a.n * a.m; ++r) {
    float bv = a.bias[r % a.m];
    float* row = a.y + r * out_size;
    for (int64_t i = 0; i < out_size; ++i) row[i] += bv;
  }
}

}  // namespace gebe::cpu
