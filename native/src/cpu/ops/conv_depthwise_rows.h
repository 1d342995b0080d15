// The row kernels of the depthwise convolutions (conv_depthwise.cc), one table per ISA:
// conv_depthwise_rows.cc (portable), conv_depthwise_avx2.cc, conv_depthwise_avx512.cc. The loop
// bodies are shared (always inlined, so each ISA's target options apply to its copy).
#pragma once

#include <cstdint>

#include "cpu/ops/conv_im2col.h"

namespace gebe::cpu {

// y[i] = b + sum over the 9 taps t of w[t] * p[t][S * i] (one 3×3 output row interior in one pass).
using Row9Fn = void (*)(float* y, const float* const* p, int64_t n, const float* w, float b);
// y[i] += w0 * x0[S·i] + w1 * x1[S·i] + w2 * x2[S·i] (one kernel row of a 3-wide depthwise kernel).
using Row3Fn = void (*)(float* y, const float* x0, const float* x1, const float* x2, int64_t n, float w0, float w1,
                        float w2);

// Relu or Clip applied to each output as it is stored (Relu: x > lo ? x : lo, NaN gives lo; Clip:
// min(max(x, lo), hi), NaN kept; as Activation::Apply computes them).
struct RowClamp {
  enum Kind { kNone, kRelu, kClip } kind = kNone;
  float lo = 0.f, hi = 0.f;
};

// A whole 3×3 output plane of `rows` rows × n columns from 9 unit-stride tap planes whose rows are
// p_stride apart: y[r·n + i] = clamp(b + sum over t of w[t] · p[t][r·p_stride + i]). Reads no
// element past a tap's last output, so no slack is needed after the buffer.
using Plane9Fn = void (*)(float* y, const float* const* p, int64_t rows, int64_t n, int64_t p_stride, const float* w,
                          float b, const RowClamp& clamp);

// Plane9 for any number of taps (a depthwise kernel other than 3×3: MobileNetV3's and
// EfficientNet's 5×5, ConvNeXt's 7×7): y[r·n + i] = clamp(b + sum over t < taps of w[t] · p[t][r·p_stride + i]).
using PlaneKFn = void (*)(float* y, const float* const* p, int taps, int64_t rows, int64_t n, int64_t p_stride,
                          const float* w, float b, const RowClamp& clamp);

// Filling the zero-bordered copy Plane9 reads: one input row of n floats into dst (stride 1), or
// split into its even-indexed elements (to even, (n + 1) / 2 of them) and odd ones (n / 2) for the
// parity sub-planes of stride 2.
using CopyRowFn = void (*)(float* dst, const float* src, int64_t n);
using SplitRowFn = void (*)(float* even, float* odd, const float* src, int64_t n);

// A run of 3×3 depthwise planes: planes [p0, p1) of N · channels · multiplier, output channel m
// reading input channel m / multiplier (as Depthwise in conv_depthwise.h).
struct DepthwiseJob {
  const float* x;
  const float* w;
  const float* bias;  // may be null
  float* y;
  int64_t channels, multiplier;
  Geo2 g;
  RowClamp clamp;
};
using SmallPlanes9Fn = void (*)(const DepthwiseJob& job, int64_t p0, int64_t p1);

// The small-plane kernels (AVX-512 only: nullptr in the other tables) read each plane in place,
// without the zero-bordered copy, whose per-row cost dominates planes this small.
// flat9: stride 1 and an output as wide as the input (same padding), at most kFlat9MaxOutputs
// outputs a plane: output k = oh·iw + ow reads x[k + offset of the tap], so the plane's output is
// one run of whole vectors whatever its row width.
constexpr int64_t kFlat9MaxOutputs = 4096;
inline bool Flat9Fits(const Geo2& g) {
  return g.sh == 1 && g.sw == 1 && g.ow == g.iw && g.oh * g.ow <= kFlat9MaxOutputs;
}
// rows9: any strides, rows of at most 32 inputs and 16 outputs: each vector holds two output rows
// (inputs <= 16, outputs <= 8) or one, its taps permuted out of the input rows in registers.
inline bool Rows9Fits(const Geo2& g) { return g.iw <= 32 && g.ow <= 16; }
// wide2: column stride 2, rows of up to kWide2MaxOutputs outputs: 16 outputs of a row a vector,
// each tap the even lanes of two loads from the input row (no parity split).
constexpr int64_t kWide2MaxOutputs = 256;
inline bool Wide2Fits(const Geo2& g) { return g.sw == 2 && g.ow <= kWide2MaxOutputs; }

// One output row of a channels-last depthwise convolution (conv_depthwise_channels_last.cc), 16
// channels a position: out[o·16 + c] = bias[c] + sum over taps (a, b) of w[(a·kw + b)·16 + c] ·
// in[a·row_step + b·tap_step + o·out_step + c] for o < n. The offsets are in floats: a kernel row
// down (dh padded rows), a tap across (dw positions), an output across (stride positions).
struct ChannelsLastGeometry {
  int64_t kh, kw, row_step, tap_step, out_step;
};
using ChannelsLastRowFn = void (*)(float* out, const float* in, int64_t n, const float* w, const float* bias,
                                   const ChannelsLastGeometry& g);
// The input planes of `channels` (at most 16) channels, channel i at x + i·ih·iw, into the
// zero-bordered channels-last buffer: position (r, c) at ((r + ph)·wp + c + pw)·16, lanes past the
// last channel zero. Writes only the input's own positions.
using ChannelsLastFillFn = void (*)(const float* x, int64_t channels, const Geo2& g, int64_t wp, float* bordered);

struct DepthwiseRows {
  Row9Fn row9 = nullptr, row9_s2 = nullptr;
  Row3Fn row3 = nullptr, row3_s2 = nullptr;
  Plane9Fn plane9 = nullptr;
  PlaneKFn plane_k = nullptr;
  CopyRowFn copy_row = nullptr;
  SplitRowFn split_row = nullptr;
  SmallPlanes9Fn flat9 = nullptr, rows9 = nullptr, wide2 = nullptr;
  ChannelsLastRowFn channels_last_row = nullptr;  // AVX-512 only, as the next
  ChannelsLastFillFn channels_last_fill = nullptr;
};

// The rows of ActiveIsa().
const DepthwiseRows& ActiveDepthwiseRows();
const DepthwiseRows* PortableDepthwiseRows();
const DepthwiseRows* Avx2DepthwiseRows();    // nullptr when not built for x86-64
const DepthwiseRows* Avx512DepthwiseRows();  // nullptr when not built for x86-64

namespace depthwise_detail {

template <int S>
inline __attribute__((always_inline)) void Row9Body(float* __restrict y, const float* const* p, int64_t n,
                                                     const float* w, float b) {
  const float* __restrict p0 = p[0]; const float* __restrict p1 = p[1]; const float* __restrict p2 = p[2];
  const float* __restrict p3 = p[3]; const float* __restrict p4 = p[4]; const float* __restrict p5 = p[5];
  const float* __restrict p6 = p[6]; const float* __restrict p7 = p[7]; const float* __restrict p8 = p[8];
  const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7], w8 = w[8];
  for (int64_t i = 0; i < n; ++i) {
    int64_t j = S * i;
    y[i] = b + (w0 * p0[j] + w1 * p1[j] + w2 * p2[j]) + (w3 * p3[j] + w4 * p4[j] + w5 * p5[j]) +
           (w6 * p6[j] + w7 * p7[j] + w8 * p8[j]);
  }
}

template <int S>
inline __attribute__((always_inline)) void Row3Body(float* y, const float* x0, const float* x1, const float* x2,
                                                     int64_t n, float w0, float w1, float w2) {
  for (int64_t i = 0; i < n; ++i) y[i] += w0 * x0[S * i] + w1 * x1[S * i] + w2 * x2[S * i];
}

inline __attribute__((always_inline)) void ClampBody(float* __restrict y, int64_t n, const RowClamp& c) {
  const float lo = c.lo, hi = c.hi;
  if (c.kind == RowClamp::kRelu) {
    for (int64_t i = 0; i < n; ++i) y[i] = y[i] > lo ? y[i] : lo;
  } else if (c.kind == RowClamp::kClip) {
    for (int64_t i = 0; i < n; ++i) {
      float v = y[i] < lo ? lo : y[i];
      y[i] = hi < v ? hi : v;
    }
  }
}

// Plane9 from a Row9Fn (inlined into each ISA's copy) and a clamp pass per row while it is in L1.
template <Row9Fn kRow>
inline __attribute__((always_inline)) void Plane9Body(float* y, const float* const* p, int64_t rows, int64_t n,
                                                       int64_t p_stride, const float* w, float b, const RowClamp& c) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* q[9];
    for (int t = 0; t < 9; ++t) q[t] = p[t] + r * p_stride;
    kRow(y + r * n, q, n, w, b);
    ClampBody(y + r * n, n, c);
  }
}

// PlaneK as plain loops the compiler vectorises: per row, the outputs start at b and take one tap
// at a time (the row stays in L1), then the clamp.
inline __attribute__((always_inline)) void PlaneKBody(float* y, const float* const* p, int taps, int64_t rows, int64_t n,
                                                       int64_t p_stride, const float* w, float b, const RowClamp& c) {
  for (int64_t r = 0; r < rows; ++r) {
    float* __restrict yr = y + r * n;
    for (int64_t i = 0; i < n; ++i) yr[i] = b;
    for (int t = 0; t < taps; ++t) {
      const float* __restrict q = p[t] + r * p_stride;
      const float wt = w[t];
      for (int64_t i = 0; i < n; ++i) yr[i] += wt * q[i];
    }
    ClampBody(yr, n, c);
  }
}

inline __attribute__((always_inline)) void CopyRowBody(float* __restrict dst, const float* __restrict src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

inline __attribute__((always_inline)) void SplitRowBody(float* __restrict even, float* __restrict odd,
                                                         const float* __restrict src, int64_t n) {
  for (int64_t j = 0; 2 * j + 1 < n; ++j) {
    even[j] = src[2 * j];
    odd[j] = src[2 * j + 1];
  }
  if (n % 2) even[n / 2] = src[n - 1];
}

}  // namespace depthwise_detail

}  // namespace gebe::cpu
