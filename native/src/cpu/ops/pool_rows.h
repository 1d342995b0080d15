// The vectorised row of MaxPool (pool.cc): the outputs whose windows lie inside the input row,
// and AveragePool's planes, one copy per ISA (pool_rows.cc portable, pool_avx2.cc,
// pool_avx512.cc), compiled from one body.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <limits>
#include <vector>

namespace gebe::cpu {

using MaxInteriorFn = void (*)(const float* xc, int64_t iw, int64_t y0, int64_t a0, int64_t a1, int64_t dh, int64_t kw,
                               int64_t dw, int64_t sw, int64_t x0, float* dst, int64_t n);

// planes consecutive planes of ih × iw → oh × ow, the 2×2 stride-2 window with no padding and
// every window inside (oh · 2 <= ih, ow · 2 <= iw): the whole plane in one call, so a small plane's
// short rows do not each pay the per-row set-up of pool.cc.
using MaxPool2x2PlanesFn = void (*)(const float* x, int64_t planes, int64_t ih, int64_t iw, float* y, int64_t oh,
                                    int64_t ow);

// A 2-D AveragePool's geometry as AveragePlanesBody walks it: per kernel column, the outputs it
// reaches inside the row ([tap_lo, tap_hi)); per output row, the first input row of its window
// (row_start: may be negative), the kernel rows inside the image ([row_a0, row_a1)) and its
// count; per output column its count (counts as the divisor needs them: padding counted or not).
struct AveragePlaneGeometry {
  int64_t ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
  const int64_t *tap_lo, *tap_hi;
  const int64_t *row_start, *row_a0, *row_a1;
  const float *row_count, *col_count;
};
// planes consecutive planes of ih × iw → oh × ow; row_sums holds ih · ow floats.
using AveragePlanesFn = void (*)(const float* x, float* y, int64_t planes, const AveragePlaneGeometry& g, float* row_sums);

// A stride-1 2-D MaxPool's geometry as MaxStride1PlanesBody walks it: per output row the first
// input row of its window (row_start: may be negative) and the kernel rows inside the image
// ([row_a0, row_a1)); span is the length of the -inf-bordered row the columns are taken from,
// at least pw + iw and (ow - 1) + (kw - 1)·dw + 1.
struct MaxStride1Geometry {
  int64_t ih, iw, oh, ow, kw, dw, dh, pw, span;
  const int64_t *row_start, *row_a0, *row_a1;
};
// planes consecutive planes of ih × iw → oh × ow; padded holds span floats.
using MaxStride1PlanesFn = void (*)(const float* x, float* y, int64_t planes, const MaxStride1Geometry& g, float* padded);

// The row of ActiveIsa().
MaxInteriorFn ActiveMaxInterior();
// The stride-1 MaxPool planes of ActiveIsa().
MaxStride1PlanesFn ActiveMaxStride1Planes();
MaxStride1PlanesFn Avx2MaxStride1Planes();    // nullptr when not built for x86-64
MaxStride1PlanesFn Avx512MaxStride1Planes();  // nullptr when not built for x86-64
// The AveragePool planes of ActiveIsa().
AveragePlanesFn ActiveAveragePlanes();
AveragePlanesFn Avx2AveragePlanes();    // nullptr when not built for x86-64
AveragePlanesFn Avx512AveragePlanes();  // nullptr when not built for x86-64
// The planes function of ActiveIsa(); nullptr where it has none (pool.cc goes row by row).
MaxPool2x2PlanesFn ActiveMaxPool2x2Planes();
MaxPool2x2PlanesFn Avx512MaxPool2x2Planes();  // nullptr when not built for x86-64
MaxInteriorFn Avx2MaxInterior();    // nullptr when not built for x86-64
MaxInteriorFn Avx512MaxInterior();  // nullptr when not built for x86-64

namespace pool_detail {

// dst[i] = max over window taps of the input, for n outputs whose windows are all inside the
// row; x0 is the first one's leftmost input column. Same comparison order as the scalar loop
// (NaN inputs are skipped the same way).
inline __attribute__((always_inline)) void MaxInteriorBody(const float* xc, int64_t iw, int64_t y0, int64_t a0,
                                                          int64_t a1, int64_t dh, int64_t kw,
                        int64_t dw, int64_t sw, int64_t x0, float* __restrict dst, int64_t n) {
  const float lowest = -std::numeric_limits<float>::infinity();
  if (a1 - a0 == 2 && kw == 2 && sw == 2 && dw == 1) {
    // 2×2 stride 2 (the common downsampling pool): one pass over both input rows.
    const float* __restrict r0 = xc + (y0 + a0 * dh) * iw + x0;
    const float* __restrict r1 = r0 + dh * iw;
    for (int64_t i = 0; i < n; ++i) {
      float m = lowest;
      m = m < r0[2 * i] ? r0[2 * i] : m;
      m = m < r0[2 * i + 1] ? r0[2 * i + 1] : m;
      m = m < r1[2 * i] ? r1[2 * i] : m;
      m = m < r1[2 * i + 1] ? r1[2 * i + 1] : m;
      dst[i] = m;
    }
    return;
  }
  // Column maxima over the window's rows first (unit-stride passes), then the maxima of kw
  // columns per output: kh + kw passes instead of kh · kw strided ones. NaNs are skipped either
  // way, so the order does not change the result.
  int64_t span = (n - 1) * sw + (kw - 1) * dw + 1;
  thread_local std::vector<float> column;
  if (column.size() < size_t(span)) column.resize(size_t(span));
  float* __restrict v = column.data();
  for (int64_t x = 0; x < span; ++x) v[x] = lowest;
  for (int64_t a = a0; a < a1; ++a) {
    const float* __restrict row = xc + (y0 + a * dh) * iw + x0;
    for (int64_t x = 0; x < span; ++x) v[x] = v[x] < row[x] ? row[x] : v[x];
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = lowest;
  for (int64_t b = 0; b < kw; ++b) {
    const float* __restrict src = v + b * dw;
    if (sw == 1) {
      for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] < src[i] ? src[i] : dst[i];
    } else if (sw == 2) {
      for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] < src[2 * i] ? src[2 * i] : dst[i];
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] < src[i * sw] ? src[i * sw] : dst[i];
    }
  }
}

// Stride 1 (GoogLeNet's and Inception's 3×3 pad-1 branch pools, YOLO's 5×5 SPPF): per output row
// the maxima of the window's rows for every input column, written into a row bordered by -inf
// (so the border outputs need no case of their own), then the maxima of kw of its columns per
// output. Rows first, then columns, as MaxInteriorBody: NaN inputs are skipped the same way.
inline __attribute__((always_inline)) void MaxStride1PlanesBody(const float* x, float* y, int64_t planes,
                                                               const MaxStride1Geometry& g, float* padded) {
  const float lowest = -std::numeric_limits<float>::infinity();
  const int64_t ih = g.ih, iw = g.iw, oh = g.oh, ow = g.ow, kw = g.kw;
  for (int64_t c = 0; c < g.span; ++c) padded[c] = lowest;  // the borders stay -inf
  float* __restrict v = padded + g.pw;                     // input column c at v[c]
  for (int64_t p = 0; p < planes; ++p) {
    const float* xc = x + p * ih * iw;
    float* yc = y + p * oh * ow;
    for (int64_t yo = 0; yo < oh; ++yo) {
      for (int64_t c = 0; c < iw; ++c) v[c] = lowest;
      for (int64_t a = g.row_a0[yo]; a < g.row_a1[yo]; ++a) {
        const float* __restrict row = xc + (g.row_start[yo] + a * g.dh) * iw;
        for (int64_t c = 0; c < iw; ++c) v[c] = v[c] < row[c] ? row[c] : v[c];
      }
      float* __restrict out = yc + yo * ow;
      for (int64_t xo = 0; xo < ow; ++xo) out[xo] = lowest;
      for (int64_t b = 0; b < kw; ++b) {
        const float* __restrict src = padded + b * g.dw;
        for (int64_t xo = 0; xo < ow; ++xo) out[xo] = out[xo] < src[xo] ? src[xo] : out[xo];
      }
    }
  }
}

// Separable sums: for each input row the sums over the window's columns for every output column
// (row_sums), then for each output row the sums of its window's rows, divided by the window's
// count. A count of 0 (a window all padding, padding not counted) divides its sum of nothing by 1:
// no branch, so the division vectorises. Every element's additions run in tap order, so each
// ISA's copy gives the same values.
inline __attribute__((always_inline)) void AveragePlanesBody(const float* x, float* y, int64_t planes,
                                                            const AveragePlaneGeometry& g, float* row_sums) {
  const int64_t ih = g.ih, iw = g.iw, oh = g.oh, ow = g.ow, kw = g.kw, sw = g.sw;
  // For windows two columns wide: the outputs both taps reach inside the row (empty when none).
  const int64_t inner_lo = kw == 2 ? std::max(g.tap_lo[0], g.tap_lo[1]) : 0;
  const int64_t inner_hi = kw == 2 ? std::min(g.tap_hi[0], g.tap_hi[1]) : 0;
  for (int64_t p = 0; p < planes; ++p) {
    const float* xc = x + p * ih * iw;
    float* yc = y + p * oh * ow;
    for (int64_t r = 0; r < ih; ++r) {
      float* __restrict h = row_sums + r * ow;
      const float* __restrict row = xc + r * iw;
      if (sw == 2 && kw == 2 && inner_lo < inner_hi) {
        // DenseNet's 2×2 stride-2 pools: where both taps are inside the row, one loop adds the
        // pair (0 + left) + right, which the compiler vectorises with even/odd shuffles (the
        // per-tap loops below read every other value and stayed scalar); a border output adds
        // the taps inside from 0 in tap order. The same additions in the same order either way.
        const int64_t off0 = -g.pw, off1 = g.dw - g.pw;
        for (int64_t xo = inner_lo; xo < inner_hi; ++xo) h[xo] = (0.f + row[2 * xo + off0]) + row[2 * xo + off1];
        auto border = [&](int64_t x0, int64_t x1) {
          for (int64_t xo = x0; xo < x1; ++xo) {
            float sum = 0.f;
            for (int64_t b = 0; b < kw; ++b)
              if (xo >= g.tap_lo[b] && xo < g.tap_hi[b]) sum += row[2 * xo + b * g.dw - g.pw];
            h[xo] = sum;
          }
        };
        border(0, inner_lo);
        border(inner_hi, ow);
        continue;
      }
      for (int64_t xo = 0; xo < ow; ++xo) h[xo] = 0.f;
      for (int64_t b = 0; b < kw; ++b) {
        const int64_t off = b * g.dw - g.pw, lo = g.tap_lo[b], hi = g.tap_hi[b];
        if (sw == 1) {
          for (int64_t xo = lo; xo < hi; ++xo) h[xo] += row[xo + off];
        } else {
          for (int64_t xo = lo; xo < hi; ++xo) h[xo] += row[xo * sw + off];
        }
      }
    }
    for (int64_t yo = 0; yo < oh; ++yo) {
      float* __restrict out = yc + yo * ow;
      for (int64_t xo = 0; xo < ow; ++xo) out[xo] = 0.f;
      for (int64_t a = g.row_a0[yo]; a < g.row_a1[yo]; ++a) {
        const float* __restrict h = row_sums + (g.row_start[yo] + a * g.dh) * ow;
        for (int64_t xo = 0; xo < ow; ++xo) out[xo] += h[xo];
      }
      const float rows_f = g.row_count[yo];
      const float* __restrict cols_f = g.col_count;
      for (int64_t xo = 0; xo < ow; ++xo) out[xo] /= std::max(rows_f * cols_f[xo], 1.f);
    }
  }
}

}  // namespace pool_detail

}  // namespace gebe::cpu
