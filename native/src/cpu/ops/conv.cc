// Convolutions: Conv (1-D and 2-D, groups, depthwise, dilations, pads, auto_pad) on the blocked
// GEMM with pre-packed weights: implicit im2col for stride-1 convs, im2col rows generated into
// packed panels for the rest, the input read in place for pointwise ones, 3×3 depthwise as one
// fused 9-tap pass per plane; bias and activation fused. ConvTranspose (2-D) via GEMM + col2im.
#include <atomic>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#endif

#include "cpu/gemm/sgemm.h"
#include "cpu/isa.h"
#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

// 2-D view of a 1-D or 2-D geometry (1-D maps to height 1).
struct Geo2 {
  int64_t ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
};

Geo2 To2D(const ConvGeometry& g) {
  if (g.spatial == 1) return {1, g.in[0], 1, g.out[0], 1, g.kernel[0], 1, g.stride[0], 1, g.dilation[0], 0, g.pad_begin[0]};
  return {g.in[0], g.in[1], g.out[0], g.out[1], g.kernel[0], g.kernel[1], g.stride[0], g.stride[1],
          g.dilation[0], g.dilation[1], g.pad_begin[0], g.pad_begin[1]};
}

// Row r = (c, kh, kw) of the im2col matrix: the ohw input values that kernel tap reads.
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
  pool->ParallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, ohw)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) Im2ColRow(x, g, r, col + r * ohw);
  });
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

// Columns [j0, j1) of im2col row r (output positions j = oh * ow + ow) into dst: what
// SgemmPrepackedRows asks for when it packs one column block.
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

struct Im2ColSource {
  const float* x;
  const Geo2* g;
  static void Fill(const void* ctx, int64_t r, int64_t j0, int64_t j1, float* dst) {
    auto* s = static_cast<const Im2ColSource*>(ctx);
    Im2ColRowRange(s->x, *s->g, r, j0, j1, dst);
  }
};

// y[i] += w0 * x0[i] + w1 * x1[i] + w2 * x2[i]: the stride-1 row of a 3-wide depthwise kernel.
void Row3Portable(float* y, const float* x0, const float* x1, const float* x2, int64_t n, float w0, float w1, float w2) {
  for (int64_t i = 0; i < n; ++i) y[i] += w0 * x0[i] + w1 * x1[i] + w2 * x2[i];
}

#if defined(__x86_64__) || defined(_M_X64)
// The same loop compiled for AVX2+FMA (8 lanes); only called after the cpuid check.
__attribute__((target("avx2,fma"))) void Row3Avx2(float* y, const float* x0, const float* x1, const float* x2, int64_t n,
                                                   float w0, float w1, float w2) {
  for (int64_t i = 0; i < n; ++i) y[i] += w0 * x0[i] + w1 * x1[i] + w2 * x2[i];
}
#endif

// Stride 2: y[i] += w0 * x0[2i] + w1 * x1[2i] + w2 * x2[2i].
void Row3Stride2Portable(float* y, const float* x0, const float* x1, const float* x2, int64_t n, float w0, float w1, float w2) {
  for (int64_t i = 0; i < n; ++i) y[i] += w0 * x0[2 * i] + w1 * x1[2 * i] + w2 * x2[2 * i];
}

#if defined(__x86_64__) || defined(_M_X64)
__attribute__((target("avx2,fma"))) void Row3Stride2Avx2(float* y, const float* x0, const float* x1, const float* x2,
                                                          int64_t n, float w0, float w1, float w2) {
  for (int64_t i = 0; i < n; ++i) y[i] += w0 * x0[2 * i] + w1 * x1[2 * i] + w2 * x2[2 * i];
}
#endif

// y[i] = b + sum over the 9 taps t of w[t] * p[t][S * i]: the interior of a 3×3 depthwise output
// row in one pass (instead of initialising y and adding one kernel row at a time).
// One body, compiled once per target below: always inlined, so each caller's target options apply.
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
void Row9Portable(float* __restrict y, const float* const* p, int64_t n, const float* w, float b) {
  Row9Body<S>(y, p, n, w, b);
}

#if defined(__x86_64__) || defined(_M_X64)
template <int S>
__attribute__((target("avx2,fma"))) void Row9Avx2(float* __restrict y, const float* const* p, int64_t n, const float* w,
                                                   float b) {
  Row9Body<S>(y, p, n, w, b);
}

// Stride 1 with explicit FMAs (the ISO build does not contract a*b+c, so the shared body costs a
// multiply and an add per tap): 8 outputs per step, the remainder through the shared body.
__attribute__((target("avx2,fma"))) void Row9FmaAvx2(float* __restrict y, const float* const* p, int64_t n,
                                                      const float* w, float b) {
  __m256 wv[9];
  for (int t = 0; t < 9; ++t) wv[t] = _mm256_set1_ps(w[t]);
  const __m256 bv = _mm256_set1_ps(b);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 acc0 = _mm256_fmadd_ps(wv[0], _mm256_loadu_ps(p[0] + i), bv);
    __m256 acc1 = _mm256_mul_ps(wv[1], _mm256_loadu_ps(p[1] + i));
    __m256 acc2 = _mm256_mul_ps(wv[2], _mm256_loadu_ps(p[2] + i));
    acc0 = _mm256_fmadd_ps(wv[3], _mm256_loadu_ps(p[3] + i), acc0);
    acc1 = _mm256_fmadd_ps(wv[4], _mm256_loadu_ps(p[4] + i), acc1);
    acc2 = _mm256_fmadd_ps(wv[5], _mm256_loadu_ps(p[5] + i), acc2);
    acc0 = _mm256_fmadd_ps(wv[6], _mm256_loadu_ps(p[6] + i), acc0);
    acc1 = _mm256_fmadd_ps(wv[7], _mm256_loadu_ps(p[7] + i), acc1);
    acc2 = _mm256_fmadd_ps(wv[8], _mm256_loadu_ps(p[8] + i), acc2);
    _mm256_storeu_ps(y + i, _mm256_add_ps(acc0, _mm256_add_ps(acc1, acc2)));
  }
  if (i < n) {
    const float* rest[9];
    for (int t = 0; t < 9; ++t) rest[t] = p[t] + i;
    Row9Body<1>(y + i, rest, n - i, w, b);
  }
}
#endif

using Row9Fn = void (*)(float*, const float* const*, int64_t, const float*, float);

Row9Fn PickRow9(bool stride2) {
#if defined(__x86_64__) || defined(_M_X64)
  if (ActiveIsa() >= Isa::kAvx2) return stride2 ? Row9Avx2<2> : Row9FmaAvx2;
#endif
  return stride2 ? Row9Portable<2> : Row9Portable<1>;
}

using Row3Fn = void (*)(float*, const float*, const float*, const float*, int64_t, float, float, float);

Row3Fn PickRow3(bool stride2) {
#if defined(__x86_64__) || defined(_M_X64)
  if (ActiveIsa() >= Isa::kAvx2) return stride2 ? Row3Stride2Avx2 : Row3Avx2;
#endif
  return stride2 ? Row3Stride2Portable : Row3Portable;
}

// 3×3 depthwise, stride S = 1 or 2 (equal in both directions), any pads and dilations, as ONE
// contiguous fused 9-tap pass per plane. The input plane is copied into a zero-bordered buffer
// (even height and width): for S = 1 as is; for S = 2 split into four sub-planes by row and
// column parity, which turns every stride-2 tap into a unit-stride one. Output (oh, ow) then reads
// tap_base[i] with i = oh·(wp / S) + ow for every tap, so the pass runs over all i (computing
// wp / S − ow throw-away columns per row) and the rows are compacted after. Per-row calls, border
// cases and stride-2 gathers otherwise cost more than the arithmetic.
void Depthwise3x3Planes(const float* x, const float* w, const float* bias, float* y, int64_t planes, int64_t channels,
                        int64_t multiplier, const Geo2& g, const Activation& act, Row9Fn row9, ThreadPool* pool) {
  int64_t s = g.sw;
  int64_t hp = std::max(g.ih + g.ph, (g.oh - 1) * s + 2 * g.dh + 1);
  int64_t wp = std::max(g.iw + g.pw, (g.ow - 1) * s + 2 * g.dw + 1);
  hp = (hp + 1) / 2 * 2;
  wp = (wp + 1) / 2 * 2;
  int64_t wq = wp / s, ohw = g.oh * g.ow;
  // Whole vectors only (no scalar tail): the extra outputs read up to 7 floats past the last
  // window, which the buffer's slack covers; they are thrown away with the rest.
  int64_t wide = ((g.oh - 1) * wq + g.ow + 7) / 8 * 8;
  int64_t sub = (hp / 2) * (wp / 2);
  // Offset of padded element (r, c) in the buffer.
  auto at = [&](int64_t r, int64_t c) {
    return s == 1 ? r * wp + c : ((r % 2) * 2 + c % 2) * sub + (r / 2) * (wp / 2) + c / 2;
  };
  pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, 9 * ohw)), [&](int64_t p0, int64_t p1) {
    thread_local std::vector<float> padded, out;
    // Borders are zeroed once per chunk: every plane rewrites only the interior.
    padded.assign(size_t(hp * wp + 8), 0.f);
    if (out.size() < size_t(wide)) out.resize(size_t(wide));
    float* buf = padded.data();
    const float* taps[9];
    for (int64_t kh = 0; kh < 3; ++kh)
      for (int64_t kw = 0; kw < 3; ++kw) taps[kh * 3 + kw] = buf + at(kh * g.dh, kw * g.dw);
    // Input columns landing on even / odd padded columns (S = 2).
    int64_t x_even = g.pw % 2, x_odd = 1 - g.pw % 2;
    // Output channel m of image n (counted along, not divided out per plane: small planes are
    // cheap enough that three divisions would show).
    int64_t cm = channels * multiplier, m = p0 % cm, n = p0 / cm;
    for (int64_t p = p0; p < p1; ++p, m = m + 1 == cm ? 0 : m + 1, n += m == 0) {
      const float* xc = x + (n * channels + (multiplier == 1 ? m : m / multiplier)) * g.ih * g.iw;
      for (int64_t r = 0; r < g.ih; ++r) {
        const float* src = xc + r * g.iw;
        if (s == 1) {
          CopyFloats(buf + at(r + g.ph, g.pw), src, g.iw);
          continue;
        }
        float* __restrict de = buf + at(r + g.ph, g.pw + x_even);
        float* __restrict dodd = buf + at(r + g.ph, g.pw + x_odd);
        for (int64_t j = 0; x_even + 2 * j < g.iw; ++j) de[j] = src[x_even + 2 * j];
        for (int64_t j = 0; x_odd + 2 * j < g.iw; ++j) dodd[j] = src[x_odd + 2 * j];
      }
      row9(out.data(), taps, wide, w + m * 9, bias ? bias[m] : 0.f);
      float* yc = y + p * ohw;
      // Compaction and activation in one pass (Relu and Clip as Activation::Apply computes them).
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        float* __restrict d = yc + oh * g.ow;
        const float* __restrict v = out.data() + oh * wq;
        if (act.kind == Activation::Kind::kRelu) {
          for (int64_t i = 0; i < g.ow; ++i) d[i] = v[i] > 0 ? v[i] : 0;
        } else if (act.kind == Activation::Kind::kClip) {
          for (int64_t i = 0; i < g.ow; ++i) d[i] = std::min(std::max(v[i], act.alpha), act.beta);
        } else {
          CopyFloats(d, v, g.ow);
        }
      }
      if (act.kind != Activation::Kind::kRelu && act.kind != Activation::Kind::kClip) act.Apply(yc, ohw);
    }
  });
}

// 3×3, stride 1, pad 1 ("same") depthwise read straight from the input, no copies: output and
// input planes share one layout, so outputs iw + 1 .. (ih − 1)·iw − 2 are one fused 9-tap pass over
// a single index (each tap a fixed offset). That pass wraps around row ends for the first and
// last column; those columns and the first and last rows are then recomputed with bounds.
void Depthwise3x3Same(const float* x, const float* w, const float* bias, float* y, int64_t planes, int64_t channels,
                      int64_t multiplier, const Geo2& g, const Activation& act, Row9Fn row9, ThreadPool* pool) {
  int64_t ih = g.ih, iw = g.iw, hw = ih * iw;
  pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, 9 * hw)), [&](int64_t p0, int64_t p1) {
    int64_t cm = channels * multiplier, m = p0 % cm, n = p0 / cm;
    for (int64_t p = p0; p < p1; ++p, m = m + 1 == cm ? 0 : m + 1, n += m == 0) {
      const float* xc = x + (n * channels + (multiplier == 1 ? m : m / multiplier)) * hw;
      const float* wc = w + m * 9;
      float b = bias ? bias[m] : 0.f;
      float* yc = y + p * hw;
      const float* taps[9];
      for (int64_t kh = 0; kh < 3; ++kh)
        for (int64_t kw = 0; kw < 3; ++kw) taps[kh * 3 + kw] = xc + (kh - 1) * iw + (kw - 1) + iw + 1;
      row9(yc + iw + 1, taps, (ih - 1) * iw - 1 - (iw + 1), wc, b);
      // The border outputs, with the taps outside the image left out.
      auto border = [&](int64_t oh, int64_t ow) {
        float sum = b;
        for (int64_t kh = 0; kh < 3; ++kh) {
          int64_t r = oh + kh - 1;
          if (r < 0 || r >= ih) continue;
          for (int64_t kw = 0; kw < 3; ++kw) {
            int64_t c = ow + kw - 1;
            if (c >= 0 && c < iw) sum += wc[kh * 3 + kw] * xc[r * iw + c];
          }
        }
        yc[oh * iw + ow] = sum;
      };
      for (int64_t ow = 0; ow < iw; ++ow) {
        border(0, ow);
        border(ih - 1, ow);
      }
      for (int64_t oh = 1; oh < ih - 1; ++oh) {
        border(oh, 0);
        border(oh, iw - 1);
      }
      act.Apply(yc, hw);
    }
  });
}

void Depthwise(const float* x, const float* w, const float* bias, float* y, int64_t planes, int64_t channels,
               int64_t multiplier, const Geo2& g, const Activation& act, ThreadPool* pool) {
  // planes = N * out_channels; output channel m reads input channel m / multiplier.
  static const Row3Fn row3 = PickRow3(false);
  static const Row3Fn row3_s2 = PickRow3(true);
  static const Row9Fn row9 = PickRow9(false);
  static const Row9Fn row9_s2 = PickRow9(true);
  if (g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.ph == 1 && g.pw == 1 &&
      g.oh == g.ih && g.ow == g.iw && g.ih >= 3 && g.iw >= 3) {
    Depthwise3x3Same(x, w, bias, y, planes, channels, multiplier, g, act, row9, pool);
    return;
  }
  if (g.kh == 3 && g.kw == 3 && (g.sw == 1 || g.sw == 2) && g.sh == g.sw) {
    Depthwise3x3Planes(x, w, bias, y, planes, channels, multiplier, g, act, row9, pool);
    return;
  }
  pool->ParallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
    std::vector<float> zeros;  // stands in for input rows above and below the image
    for (int64_t p = p0; p < p1; ++p) {
      int64_t m = p % (channels * multiplier), n = p / (channels * multiplier);
      const float* xc = x + (n * channels + m / multiplier) * g.ih * g.iw;
      const float* wc = w + m * g.kh * g.kw;
      float* yc = y + p * g.oh * g.ow;
      float b = bias ? bias[m] : 0.f;
      // Per kernel column, the output range whose input column is inside the image: the inner
      // loop then has no bounds checks and vectorises (stride 1).
      std::vector<int64_t> lo(size_t(g.kw)), hi(size_t(g.kw));
      for (int64_t kw = 0; kw < g.kw; ++kw) {
        int64_t off = kw * g.dw - g.pw;
        int64_t l = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
        int64_t h = g.iw - 1 - off < 0 ? 0 : (g.iw - 1 - off) / g.sw + 1;
        lo[size_t(kw)] = std::min(l, g.ow);
        hi[size_t(kw)] = std::min(h, g.ow);
      }
      // 3×3, stride 1 or 2: the interior columns of each output row in one fused pass; rows
      // above/below the image read a zero row, the border columns go tap by tap.
      bool fused9 = g.kh == 3 && g.kw == 3 && (g.sw == 1 || g.sw == 2);
      int64_t a9 = 0, e9 = 0;
      if (fused9) {
        a9 = std::max(lo[0], std::max(lo[1], lo[2]));
        e9 = std::max(a9, std::min(hi[0], std::min(hi[1], hi[2])));
        if (e9 > a9 && zeros.size() < size_t(g.iw)) zeros.assign(size_t(g.iw), 0.f);
      }
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        float* yr = yc + oh * g.ow;
        if (fused9 && e9 > a9) {
          const float* taps[9];
          for (int64_t kh = 0; kh < 3; ++kh) {
            int64_t ih = oh * g.sh - g.ph + kh * g.dh;
            const float* xr = ih < 0 || ih >= g.ih ? zeros.data() : xc + ih * g.iw;
            for (int64_t kw = 0; kw < 3; ++kw) taps[kh * 3 + kw] = xr + a9 * g.sw + kw * g.dw - g.pw;
          }
          (g.sw == 1 ? row9 : row9_s2)(yr + a9, taps, e9 - a9, wc, b);
          for (int64_t ow = 0; ow < a9; ++ow) yr[ow] = b;
          for (int64_t ow = e9; ow < g.ow; ++ow) yr[ow] = b;
          for (int64_t kh = 0; kh < 3; ++kh) {
            int64_t ih = oh * g.sh - g.ph + kh * g.dh;
            if (ih < 0 || ih >= g.ih) continue;
            const float* xr = xc + ih * g.iw;
            for (int64_t kw = 0; kw < 3; ++kw) {
              float wv = wc[kh * 3 + kw];
              int64_t off = kw * g.dw - g.pw;
              for (int64_t ow = lo[size_t(kw)]; ow < std::min(a9, hi[size_t(kw)]); ++ow) yr[ow] += wv * xr[ow * g.sw + off];
              for (int64_t ow = std::max(e9, lo[size_t(kw)]); ow < hi[size_t(kw)]; ++ow) yr[ow] += wv * xr[ow * g.sw + off];
            }
          }
          continue;
        }
        for (int64_t ow = 0; ow < g.ow; ++ow) yr[ow] = b;
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          int64_t ih = oh * g.sh - g.ph + kh * g.dh;
          if (ih < 0 || ih >= g.ih) continue;
          const float* xr = xc + ih * g.iw;
          int64_t kw_begin = 0, kw_end = g.kw;
          if (g.kw == 3) {
            // The common 3-wide kernel: one pass over the columns where all three taps are
            // inside the row, then the borders tap by tap below.
            int64_t a = std::max(lo[0], std::max(lo[1], lo[2]));
            int64_t e = std::max(a, std::min(hi[0], std::min(hi[1], hi[2])));  // empty interior: e == a
            const float w0 = wc[kh * 3], w1 = wc[kh * 3 + 1], w2 = wc[kh * 3 + 2];
            int64_t o0 = -g.pw, o1 = g.dw - g.pw, o2 = 2 * g.dw - g.pw;
            if (g.sw == 1) {
              if (e > a) row3(yr + a, xr + a + o0, xr + a + o1, xr + a + o2, e - a, w0, w1, w2);
            } else if (g.sw == 2) {
              if (e > a) row3_s2(yr + a, xr + 2 * a + o0, xr + 2 * a + o1, xr + 2 * a + o2, e - a, w0, w1, w2);
            } else {
              for (int64_t ow = a; ow < e; ++ow) {
                int64_t base = ow * g.sw;
                yr[ow] += w0 * xr[base + o0] + w1 * xr[base + o1] + w2 * xr[base + o2];
              }
            }
            for (int64_t kw = 0; kw < 3; ++kw) {
              float wv = wc[kh * 3 + kw];
              int64_t off = kw * g.dw - g.pw;
              for (int64_t ow = lo[size_t(kw)]; ow < std::min(a, hi[size_t(kw)]); ++ow) yr[ow] += wv * xr[ow * g.sw + off];
              for (int64_t ow = std::max(e, lo[size_t(kw)]); ow < hi[size_t(kw)]; ++ow) yr[ow] += wv * xr[ow * g.sw + off];
            }
            kw_end = 0;
          }
          for (int64_t kw = kw_begin; kw < kw_end; ++kw) {
            float wv = wc[kh * g.kw + kw];
            int64_t off = kw * g.dw - g.pw;
            if (g.sw == 1) {
              for (int64_t ow = lo[size_t(kw)]; ow < hi[size_t(kw)]; ++ow) yr[ow] += wv * xr[ow + off];
            } else {
              for (int64_t ow = lo[size_t(kw)]; ow < hi[size_t(kw)]; ++ow) yr[ow] += wv * xr[ow * g.sw + off];
            }
          }
        }
      }
      act.Apply(yc, g.oh * g.ow);
    }
  });
}

class ConvKernel : public Kernel {
 public:
  ConvKernel(const Node& node, int64_t) : Kernel(node), attrs_(node), group_(node.get_int("group", 1)) {
    if (group_ <= 0) Fail("group must be positive");
  }

  bool FuseActivation(const Activation& act) override {
    if (act_.kind != Activation::Kind::kNone) return false;
    act_ = act;
    return true;
  }

  // Constant weights are packed once per group into GEMM panels (not for depthwise convs,
  // which do not use GEMM, nor for groups thinner than a micro-kernel).
  void PrepareConstants(const std::vector<const TensorRef*>& constants) override {
    const TensorRef* w = constants.size() > 1 ? constants[1] : nullptr;
    if (!w || w->dtype != DataType::kFloat32 || w->rank() < 3 || w->shape[0] % group_ != 0) return;
    int64_t mg = w->shape[0] / group_, kdim = w->count() / std::max<int64_t>(1, w->shape[0]);
    if (w->shape[1] == 1 && group_ > 1) return;
    if (mg < gemm_detail::kMR) return;
    for (int64_t gi = 0; gi < group_; ++gi) packed_.push_back(PackA(mg, kdim, w->as<const float>() + gi * mg * kdim, kdim));
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& w = Input(in, 1, "W");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(w, "W", {DataType::kFloat32});
    if (x.rank() < 3 || x.rank() > 4) Fail("only 1-D and 2-D convolutions are supported; X has shape " + ShapeToString(x.shape));
    if (w.rank() != x.rank()) Fail("W " + ShapeToString(w.shape) + " must have the rank of X " + ShapeToString(x.shape));
    int64_t c = x.shape[1], m = w.shape[0];
    if (c % group_ != 0 || m % group_ != 0 || w.shape[1] * group_ != c) {
      Fail("X has " + std::to_string(c) + " channels but W " + ShapeToString(w.shape) + " with group=" + std::to_string(group_) +
           " expects " + std::to_string(w.shape[1] * group_));
    }
    if (in.size() > 2 && in[2]) {
      ExpectType(*in[2], "B", {DataType::kFloat32});
      if (in[2]->count() != m || in[2]->rank() != 1) Fail("B " + ShapeToString(in[2]->shape) + " must have " + std::to_string(m) + " elements");
    }
    ConvGeometry g = ResolveGeometry(*this, attrs_, Shape(x.shape.begin() + 2, x.shape.end()), Shape(w.shape.begin() + 2, w.shape.end()));
    for (size_t i = 0; i < g.kernel.size(); ++i) {
      if (g.kernel[i] != w.shape[2 + i]) Fail("kernel_shape does not match W " + ShapeToString(w.shape));
    }
    Shape s = {x.shape[0], m};
    s.insert(s.end(), g.out.begin(), g.out.end());
    out[0] = {DataType::kFloat32, s, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &x = *in[0], &w = *in[1];
    const float* bias = in.size() > 2 && in[2] ? in[2]->as<const float>() : nullptr;
    ConvGeometry geometry = ResolveGeometry(*this, attrs_, Shape(x.shape.begin() + 2, x.shape.end()), Shape(w.shape.begin() + 2, w.shape.end()));
    Geo2 g = To2D(geometry);
    int64_t n = x.shape[0], c = x.shape[1], m = w.shape[0];
    int64_t cg = c / group_, mg = m / group_;
    int64_t ohw = g.oh * g.ow, ihw = g.ih * g.iw, kdim = cg * g.kh * g.kw;
    const float* px = x.as<const float>();
    const float* pw = w.as<const float>();
    float* py = out[0].as<float>();
    if (cg == 1 && group_ == c && c > 1) {
      Depthwise(px, pw, bias, py, n * m, c, mg, g, act_, ctx.pool);
      return;
    }
    bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && g.oh == g.ih && g.ow == g.iw;
    if (size_t(group_) == packed_.size() && packed_[0].source == pw && packed_[0].k == kdim && packed_[0].m == mg) {
      RunPrepacked(px, bias, py, n, c, m, g, pointwise, ctx);
      return;
    }
    float* col = pointwise ? nullptr : ctx.scratch->Floats(size_t(kdim * ohw));
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t gi = 0; gi < group_; ++gi) {
        const float* xg = px + (b * c + gi * cg) * ihw;
        const float* src = xg;
        if (!pointwise) {
          Im2Col(xg, cg, g, col, ctx.pool);
          src = col;
        }
        float* yg = py + (b * m + gi * mg) * ohw;
        if (size_t(group_) == packed_.size() && packed_[0].source == pw && packed_[size_t(gi)].k == kdim) {
          SgemmPackedA(packed_[size_t(gi)], ohw, src, ohw, 0.f, yg, ohw, ctx.pool);
        } else {
          Sgemm(false, false, mg, ohw, kdim, 1.f, pw + gi * mg * kdim, kdim, src, ohw, 0.f, yg, ohw, ctx.pool);
        }
      }
    }
    if (bias || act_.kind != Activation::Kind::kNone) {
      ctx.pool->ParallelFor(n * m, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, ohw)), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          float* row = py + r * ohw;
          if (bias) {
            float bv = bias[r % m];
            for (int64_t i = 0; i < ohw; ++i) row[i] += bv;
          }
          act_.Apply(row, ohw);
        }
      });
    }
  }

 private:
  // Constant weights: per image and group, im2col into packed panels, then one GEMM pass with
  // bias and activation applied to each output tile while it is in cache. A batch is spread over
  // the threads image by image (each image's GEMM single-threaded, its own panels) when that
  // divides evenly; otherwise each image's GEMM uses all threads.
  void RunPrepacked(const float* px, const float* bias, float* py, int64_t n, int64_t c, int64_t m, const Geo2& g,
                    bool pointwise, const RunContext& ctx) {
    int64_t cg = c / group_, mg = m / group_, ohw = g.oh * g.ow, ihw = g.ih * g.iw;
    int64_t kdim = packed_[0].k;
    int threads = ctx.pool->size();
    bool by_image = threads > 1 && n > 1 && (n % threads == 0 || n >= 4 * threads);
    // Only a multi-threaded GEMM over a narrow output packs all of B at once (single-threaded ones
    // pack per column block into per-thread buffers).
    float* b_buffer = by_image || threads == 1 ? nullptr : ctx.scratch->Floats(size_t(PackedBFloats(kdim, ohw)));
    RowEpilogue ep;
    if (act_.kind == Activation::Kind::kRelu) {
      ep.clamp = RowEpilogue::kRelu;
    } else if (act_.kind == Activation::Kind::kClip) {
      ep.clamp = RowEpilogue::kClip;
      ep.lo = act_.alpha;
      ep.hi = act_.beta;
    } else if (act_.kind != Activation::Kind::kNone) {
      ep.activation = [](const void* a, float* row, int64_t len) { static_cast<const Activation*>(a)->Apply(row, len); };
      ep.ctx = &act_;
    }
    // Stride 1: the GEMM reads the input itself through each tap's offset (implicit im2col),
    // computing "wide" output rows of wp columns (the input extent the windows span, padding
    // included) of which ow are kept. With padding the image is first copied into a zeroed
    // hp × wp buffer per channel (a pass over the input instead of over the k-times larger im2col
    // matrix). Worth it while the throw-away columns stay within a tenth (measured: 56/58 and
    // 24/26 gain, 14/16 loses) and k is deep enough for per-row offsets (the MNIST stem, k = 9,
    // is faster packed).
    // Stride 2 works the same way over the four row/column parity sub-planes of the padded input
    // (tap (kh, kw) of output (oh, ow) is sub-plane (kh % 2, kw % 2) at (oh + kh / 2, ow + kw / 2)),
    // but only pays for its copy of the whole input with big kernels (measured on ResNet-18: the
    // 7×7 stem gains; 3×3 and 1×1 stride-2 convs lose, as their im2col is only ~2× the input).
    int64_t s = g.sh;
    int64_t hp = (g.oh - 1) * s + (g.kh - 1) * g.dh + 1, wp = (g.ow - 1) * s + (g.kw - 1) * g.dw + 1;
    if (s == 2) hp = (hp + 1) / 2 * 2, wp = (wp + 1) / 2 * 2;
    int64_t ws = wp / std::max<int64_t>(1, s);  // row stride of the wide output
    bool implicit = !pointwise && kdim >= 32 && g.sh == g.sw && (s == 1 || (s == 2 && g.kh * g.kw >= 25)) &&
                    g.ow * 10 >= ws * 9;
    bool copy = implicit && (s == 2 || !(g.ph == 0 && g.pw == 0 && hp == g.ih && wp == g.iw));
    int64_t n_wide = (g.oh - 1) * ws + g.ow, hwp = hp * wp, sub = (hp / 2) * (wp / 2);
    // Offset of padded element (r, col) within one channel's buffer.
    auto at = [&](int64_t r, int64_t col) {
      return s == 1 ? r * wp + col : ((r % 2) * 2 + col % 2) * sub + (r / 2) * (wp / 2) + col / 2;
    };
    std::vector<int64_t> offs;
    if (implicit) {
      offs.resize(size_t(kdim));
      for (int64_t r = 0; r < kdim; ++r) {
        int64_t kw = r % g.kw, kh = (r / g.kw) % g.kh, ch = r / (g.kw * g.kh);
        offs[size_t(r)] = ch * hwp + at(kh * g.dh, kw * g.dw);
      }
    }
    auto image = [&](int64_t b, float* panels, ThreadPool* pool) {
      for (int64_t gi = 0; gi < group_; ++gi) {
        const float* xg = px + (b * c + gi * cg) * ihw;
        if (implicit) {
          thread_local std::vector<float> wide, padded;
          if (wide.size() < size_t(mg * n_wide)) wide.resize(size_t(mg * n_wide));
          const float* src_x = xg;
          if (copy) {
            if (padded.size() < size_t(cg * hwp)) padded.resize(size_t(cg * hwp));
            float* dst = padded.data();
            auto fill = [&](int64_t c0, int64_t c1) {
              for (int64_t ch = c0; ch < c1; ++ch) {
                float* d = dst + ch * hwp;
                if (s == 2) {
                  std::memset(d, 0, sizeof(float) * size_t(hwp));
                  for (int64_t ih = 0; ih < g.ih && ih + g.ph < hp; ++ih) {
                    const float* src = xg + ch * ihw + ih * g.iw;
                    int64_t r = ih + g.ph;
                    // Input columns x land on padded column x + pw: even ones, then odd ones.
                    for (int64_t par = 0; par < 2; ++par) {
                      int64_t x0 = ((par - g.pw) % 2 + 2) % 2;  // first x with (x + pw) % 2 == par
                      float* __restrict out = d + at(r, x0 + g.pw);
                      for (int64_t j = 0; x0 + 2 * j < g.iw && x0 + 2 * j + g.pw < wp; ++j) out[j] = src[x0 + 2 * j];
                    }
                  }
                  continue;
                }
                for (int64_t r = 0; r < hp; ++r) {
                  int64_t ih = r - g.ph;
                  float* row = d + r * wp;
                  if (ih < 0 || ih >= g.ih) {
                    std::memset(row, 0, sizeof(float) * size_t(wp));
                    continue;
                  }
                  int64_t lo = std::min(wp, g.pw), hi = std::min(wp, g.pw + g.iw);
                  for (int64_t x0 = 0; x0 < lo; ++x0) row[x0] = 0.f;
                  CopyFloats(row + lo, xg + ch * ihw + ih * g.iw + (lo - g.pw), hi - lo);
                  for (int64_t x0 = hi; x0 < wp; ++x0) row[x0] = 0.f;
                }
              }
            };
            if (pool) pool->ParallelFor(cg, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, hwp)), fill);
            else fill(0, cg);
            src_x = dst;
          }
          RowEpilogue gep = ep;
          gep.bias = bias ? bias + gi * mg : nullptr;
          if (SgemmImplicit(packed_[size_t(gi)], n_wide, src_x, offs.data(), wide.data(), n_wide, gep, pool)) {
            float* yg = py + (b * m + gi * mg) * ohw;
            const float* src = wide.data();
            auto compact = [&](int64_t r0, int64_t r1) {
              for (int64_t r = r0; r < r1; ++r)
                for (int64_t oh = 0; oh < g.oh; ++oh) CopyFloats(yg + r * ohw + oh * g.ow, src + r * n_wide + oh * ws, g.ow);
            };
            if (pool) pool->ParallelFor(mg, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, ohw)), compact);
            else compact(0, mg);
            continue;
          }
        }
        Im2ColSource im2col{xg, &g};
        BRowSource src;
        if (pointwise) {
          src.direct = xg;
        } else {
          src.fill = Im2ColSource::Fill;
          src.ctx = &im2col;
        }
        RowEpilogue gep = ep;
        gep.bias = bias ? bias + gi * mg : nullptr;
        SgemmPrepackedRows(packed_[size_t(gi)], ohw, src, py + (b * m + gi * mg) * ohw, ohw, gep, panels, pool);
      }
    };
    if (!by_image) {
      for (int64_t b = 0; b < n; ++b) image(b, b_buffer, ctx.pool);
      return;
    }
    // Each thread claims whole images (single-threaded GEMMs) until none are left.
    ForEachClaimed(ctx.pool, n, [&](int64_t b) { image(b, nullptr, nullptr); });
  }

  ConvAttributes attrs_;
  int64_t group_;
  Activation act_;
  std::vector<PackedA> packed_;  // per group, when W is a constant
};

// ConvTranspose 2-D: Y = col2im(W^T · X) + B, with output_padding / output_shape.
class ConvTransposeKernel : public Kernel {
 public:
  ConvTransposeKernel(const Node& node, int64_t) : Kernel(node), attrs_(node), group_(node.get_int("group", 1)) {
    output_padding_ = node.get_ints("output_padding");
    output_shape_ = node.get_ints("output_shape");
    if (group_ <= 0) Fail("group must be positive");
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& w = Input(in, 1, "W");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(w, "W", {DataType::kFloat32});
    if (x.rank() != 4 && x.rank() != 3) Fail("only 1-D and 2-D ConvTranspose is supported; X has shape " + ShapeToString(x.shape));
    if (w.rank() != x.rank() || w.shape[0] != x.shape[1]) Fail("W " + ShapeToString(w.shape) + " does not match X " + ShapeToString(x.shape));
    Resolve(x, w);
    Shape s = {x.shape[0], w.shape[1] * group_};
    s.insert(s.end(), out_.begin(), out_.end());
    out[0] = {DataType::kFloat32, s, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &x = *in[0], &w = *in[1];
    Resolve(x, w);
    bool one_d = x.rank() == 3;
    int64_t n = x.shape[0], c = x.shape[1], cg = c / group_, mg = w.shape[1], m = mg * group_;
    int64_t ih = one_d ? 1 : x.shape[2], iw = x.shape[one_d ? 2 : 3];
    int64_t kh = one_d ? 1 : kernel_[0], kw = kernel_[one_d ? 0 : 1];
    int64_t sh = one_d ? 1 : stride_[0], sw = stride_[one_d ? 0 : 1];
    int64_t dh = one_d ? 1 : dilation_[0], dw = dilation_[one_d ? 0 : 1];
    int64_t ph = one_d ? 0 : pad_begin_[0], pw = pad_begin_[one_d ? 0 : 1];
    int64_t oh = one_d ? 1 : out_[0], ow = out_[one_d ? 0 : 1];
    int64_t ihw = ih * iw, kdim = mg * kh * kw;
    float* col = ctx.scratch->Floats(size_t(kdim * ihw));
    float* py = out[0].as<float>();
    std::memset(py, 0, out[0].bytes());
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t gi = 0; gi < group_; ++gi) {
        // col[kdim, ihw] = W_g^T [kdim, cg] · X_g [cg, ihw]
        Sgemm(true, false, kdim, ihw, cg, 1.f, w.as<const float>() + gi * cg * kdim, kdim,
              x.as<const float>() + (b * c + gi * cg) * ihw, ihw, 0.f, col, ihw, ctx.pool);
        float* yg = py + (b * m + gi * mg) * oh * ow;
        for (int64_t r = 0; r < kdim; ++r) {
          int64_t kx = r % kw, ky = (r / kw) % kh, ch = r / (kw * kh);
          float* yc = yg + ch * oh * ow;
          const float* src = col + r * ihw;
          for (int64_t y = 0; y < ih; ++y) {
            int64_t oy = y * sh - ph + ky * dh;
            if (oy < 0 || oy >= oh) continue;
            for (int64_t xx = 0; xx < iw; ++xx) {
              int64_t ox = xx * sw - pw + kx * dw;
              if (ox >= 0 && ox < ow) yc[oy * ow + ox] += src[y * iw + xx];
            }
          }
        }
      }
    }
    if (in.size() > 2 && in[2]) {
      const float* bias = in[2]->as<const float>();
      for (int64_t r = 0; r < n * m; ++r)
        for (int64_t i = 0; i < oh * ow; ++i) py[r * oh * ow + i] += bias[r % m];
    }
  }

 private:
  void Resolve(const TensorRef& x, const TensorRef& w) {
    size_t s = size_t(x.rank() - 2);
    kernel_ = attrs_.kernel.empty() ? Shape(w.shape.begin() + 2, w.shape.end()) : attrs_.kernel;
    stride_ = attrs_.strides.empty() ? Shape(s, 1) : attrs_.strides;
    dilation_ = attrs_.dilations.empty() ? Shape(s, 1) : attrs_.dilations;
    Shape opad = output_padding_.empty() ? Shape(s, 0) : output_padding_;
    Shape pads = attrs_.pads.empty() ? Shape(2 * s, 0) : attrs_.pads;
    if (kernel_.size() != s || stride_.size() != s || dilation_.size() != s || opad.size() != s || pads.size() != 2 * s) {
      Fail("kernel_shape, strides, dilations, output_padding and pads must match the spatial rank");
    }
    pad_begin_.assign(s, 0);
    out_.assign(s, 0);
    for (size_t i = 0; i < s; ++i) {
      int64_t in_dim = x.shape[2 + i];
      int64_t ext = dilation_[i] * (kernel_[i] - 1) + 1;
      int64_t full = stride_[i] * (in_dim - 1) + opad[i] + ext;
      if (!output_shape_.empty()) {
        if (output_shape_.size() != s && output_shape_.size() != s + 2) Fail("output_shape must list the spatial dims");
        out_[i] = output_shape_[output_shape_.size() - s + i];
        int64_t total = full - out_[i];
        bool upper = attrs_.auto_pad != "SAME_LOWER";
        pad_begin_[i] = upper ? total / 2 : total - total / 2;
      } else if (attrs_.auto_pad == "SAME_UPPER" || attrs_.auto_pad == "SAME_LOWER") {
        out_[i] = in_dim * stride_[i];
        int64_t total = full - out_[i];
        pad_begin_[i] = attrs_.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      } else {
        pad_begin_[i] = pads[i];
        out_[i] = full - pads[i] - pads[i + s];
      }
      if (out_[i] <= 0) Fail("the output would be empty");
    }
  }

  ConvAttributes attrs_;
  int64_t group_;
  Shape output_padding_, output_shape_;
  Shape kernel_, stride_, dilation_, pad_begin_, out_;
};

}  // namespace

GEBE_CPU_KERNEL("Conv", ConvKernel);
GEBE_CPU_KERNEL("ConvTranspose", ConvTransposeKernel);

}  // namespace gebe::cpu
