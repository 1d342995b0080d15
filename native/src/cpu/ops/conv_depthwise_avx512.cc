// The depthwise rows for AVX-512 (16 lanes, masked tails instead of scalar remainders), used only
// when ActiveIsa() is avx512. The loops the compiler vectorises are compiled preferring 512-bit vectors.
#include "cpu/ops/conv_depthwise_rows.h"

#if defined(__x86_64__) || defined(_M_X64)

// GCC vectorises loops with 256-bit vectors even for AVX-512 unless told otherwise; clang's
// target attribute has no such option (it uses 512-bit vectors where profitable).
#if defined(__clang__)
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"
#else
#define GEBE_AVX512_LOOPS "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,prefer-vector-width=512"
#endif

#include <immintrin.h>

#include "cpu/avx512_lanes.h"
#include "cpu/ops/row_clamp_avx512.h"

#include <algorithm>

// GCC 12 implements _mm512_undefined_* (inside some intrinsics) as a self-initialised variable,
// which -Wmaybe-uninitialized reports, as in vector_math_avx512.cc.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace gebe::cpu {

namespace {

using namespace depthwise_detail;

#define GEBE_AVX512 __attribute__((target(GEBE_AVX512_LOOPS)))

using avx512::ClampVector;
using avx512::EvenLanes;
using avx512::OddLanes;
inline __mmask16 Lanes(int64_t k) { return avx512::FirstLanes(k); }



// Stride 2 (compiler-vectorised: even lanes of two loads per tap).
GEBE_AVX512 void Row9Stride2(float* __restrict y, const float* const* p, int64_t n, const float* w, float b) {
  Row9Body<2>(y, p, n, w, b);
}

// A 3x3 kernel's nine weights, each in every lane.
GEBE_AVX512 inline void Broadcast9(const float* w, __m512* wv) {
  for (int t = 0; t < 9; ++t) wv[t] = _mm512_set1_ps(w[t]);
}

GEBE_AVX512 inline __m512 Sum3(__m512 a, __m512 b, __m512 c) { return _mm512_add_ps(a, _mm512_add_ps(b, c)); }

// The nine taps at offset k of each row pointer, on three accumulators so the FMAs overlap, plus b.
GEBE_AVX512 inline __m512 Taps9(const __m512* wv, const float* const* p, int64_t k, __mmask16 m, __m512 bv) {
  __m512 acc0 = _mm512_fmadd_ps(wv[0], _mm512_maskz_loadu_ps(m, p[0] + k), bv);
  __m512 acc1 = _mm512_mul_ps(wv[1], _mm512_maskz_loadu_ps(m, p[1] + k));
  __m512 acc2 = _mm512_mul_ps(wv[2], _mm512_maskz_loadu_ps(m, p[2] + k));
  acc0 = _mm512_fmadd_ps(wv[3], _mm512_maskz_loadu_ps(m, p[3] + k), acc0);
  acc1 = _mm512_fmadd_ps(wv[4], _mm512_maskz_loadu_ps(m, p[4] + k), acc1);
  acc2 = _mm512_fmadd_ps(wv[5], _mm512_maskz_loadu_ps(m, p[5] + k), acc2);
  acc0 = _mm512_fmadd_ps(wv[6], _mm512_maskz_loadu_ps(m, p[6] + k), acc0);
  acc1 = _mm512_fmadd_ps(wv[7], _mm512_maskz_loadu_ps(m, p[7] + k), acc1);
  acc2 = _mm512_fmadd_ps(wv[8], _mm512_maskz_loadu_ps(m, p[8] + k), acc2);
  return Sum3(acc0, acc1, acc2);
}

// Stride 1 with explicit FMAs, 16 outputs per step and one masked step for the rest.
GEBE_AVX512 void Row9Fma(float* __restrict y, const float* const* p, int64_t n, const float* w, float b) {
  __m512 wv[9];
  Broadcast9(w, wv);
  const __m512 bv = _mm512_set1_ps(b);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = Lanes(n - i);
    _mm512_mask_storeu_ps(y + i, m, Taps9(wv, p, i, m, bv));
  }
}

template <int S>
GEBE_AVX512 void Row3(float* y, const float* x0, const float* x1, const float* x2, int64_t n, float w0, float w1,
                      float w2) {
  Row3Body<S>(y, x0, x1, x2, n, w0, w1, w2);
}

// A whole plane, the weights in registers across its rows and the clamp applied before each store
// (one masked step per row end: no compaction pass, no slack reads).
GEBE_AVX512 void Plane9(float* y, const float* const* taps, int64_t rows, int64_t n, int64_t p_stride, const float* w,
                        float b, const RowClamp& c) {
  // The tap pointers in a local array: read through `taps`, the build (no strict aliasing) would
  // reload all nine after every store to y.
  const float* p[9];
  for (int t = 0; t < 9; ++t) p[t] = taps[t];
  __m512 wv[9];
  Broadcast9(w, wv);
  const __m512 bv = _mm512_set1_ps(b), lo = _mm512_set1_ps(c.lo), hi = _mm512_set1_ps(c.hi);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t o = r * p_stride;
    float* yr = y + r * n;
    for (int64_t i = 0; i < n; i += 16) {
      __mmask16 m = Lanes(n - i);
      const int64_t k = o + i;
      _mm512_mask_storeu_ps(yr + i, m, ClampVector(Taps9(wv, p, k, m, bv), c, lo, hi));
    }
  }
}

// R rows of PlaneK at a time, one vector of each: R independent FMA chains over the taps, each
// tap's weight broadcast once for all of them (one chain alone would wait on the FMA's latency).
template <int R>
GEBE_AVX512 inline void PlaneKRows(float* y, const float* const* p, int taps, int64_t r, int64_t n, int64_t p_stride,
                                   const float* w, __m512 bv, const RowClamp& c, __m512 lo, __m512 hi) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = Lanes(n - i);
    const int64_t o = r * p_stride + i;
    __m512 acc[R];
    for (int j = 0; j < R; ++j) acc[j] = bv;
    for (int t = 0; t < taps; ++t) {
      const __m512 wt = _mm512_set1_ps(w[t]);
      const float* q = p[t] + o;
      for (int j = 0; j < R; ++j) acc[j] = _mm512_fmadd_ps(wt, _mm512_maskz_loadu_ps(m, q + j * p_stride), acc[j]);
    }
    for (int j = 0; j < R; ++j) _mm512_mask_storeu_ps(y + (r + j) * n + i, m, ClampVector(acc[j], c, lo, hi));
  }
}

GEBE_AVX512 void PlaneK(float* y, const float* const* p, int taps, int64_t rows, int64_t n, int64_t p_stride,
                        const float* w, float b, const RowClamp& c) {
  const __m512 bv = _mm512_set1_ps(b), lo = _mm512_set1_ps(c.lo), hi = _mm512_set1_ps(c.hi);
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) PlaneKRows<4>(y, p, taps, r, n, p_stride, w, bv, c, lo, hi);
  // The last rows together too: on a 7-row plane, three rows one at a time took half its time.
  if (rows - r == 3) PlaneKRows<3>(y, p, taps, r, n, p_stride, w, bv, c, lo, hi);
  if (rows - r == 2) PlaneKRows<2>(y, p, taps, r, n, p_stride, w, bv, c, lo, hi);
  if (rows - r == 1) PlaneKRows<1>(y, p, taps, r, n, p_stride, w, bv, c, lo, hi);
}

// R outputs of a channels-last row at a time: R independent FMA chains, each tap's weight vector
// loaded once for all of them.
template <int R>
GEBE_AVX512 inline void ChannelsLastOutputs(float* out, const float* in, const float* w, __m512 bias,
                                            const ChannelsLastGeometry& g) {
  __m512 acc[R];
  for (int j = 0; j < R; ++j) acc[j] = bias;
  for (int64_t a = 0; a < g.kh; ++a) {
    const float* in_row = in + a * g.row_step;
    for (int64_t b = 0; b < g.kw; ++b) {
      const __m512 wv = _mm512_load_ps(w + (a * g.kw + b) * 16);
      const float* q = in_row + b * g.tap_step;
      for (int j = 0; j < R; ++j) acc[j] = _mm512_fmadd_ps(wv, _mm512_load_ps(q + j * g.out_step), acc[j]);
    }
  }
  for (int j = 0; j < R; ++j) _mm512_store_ps(out + j * 16, acc[j]);
}

GEBE_AVX512 void ChannelsLastRow(float* out, const float* in, int64_t n, const float* w, const float* bias,
                                 const ChannelsLastGeometry& g) {
  const __m512 bv = _mm512_load_ps(bias);
  int64_t o = 0;
  for (; o + 8 <= n; o += 8) ChannelsLastOutputs<8>(out + o * 16, in + o * g.out_step, w, bv, g);
  switch (n - o) {
    case 7: ChannelsLastOutputs<7>(out + o * 16, in + o * g.out_step, w, bv, g); break;
    case 6: ChannelsLastOutputs<6>(out + o * 16, in + o * g.out_step, w, bv, g); break;
    case 5: ChannelsLastOutputs<5>(out + o * 16, in + o * g.out_step, w, bv, g); break;
    case 4: ChannelsLastOutputs<4>(out + o * 16, in + o * g.out_step, w, bv, g); break;
    case 3: ChannelsLastOutputs<3>(out + o * 16, in + o * g.out_step, w, bv, g); break;
    case 2: ChannelsLastOutputs<2>(out + o * 16, in + o * g.out_step, w, bv, g); break;
    case 1: ChannelsLastOutputs<1>(out + o * 16, in + o * g.out_step, w, bv, g); break;
    default: break;
  }
}

// 16 positions of the flattened input plane at a time (one transpose for what may be several
// short rows), each position's vector stored at its padded row and column.
GEBE_AVX512 void ChannelsLastFill(const float* x, int64_t channels, const Geo2& g, int64_t wp, float* bordered) {
  const int64_t ihw = g.ih * g.iw;
  int64_t r = 0, c = 0;  // the row and column of position p + j
  for (int64_t p = 0; p < ihw; p += 16) {
    const __mmask16 m = Lanes(ihw - p);
    __m512 v[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) v[i] = i < channels ? _mm512_maskz_loadu_ps(m, x + i * ihw + p) : _mm512_setzero_ps();
    avx512::Transpose16(v);
    const int64_t count = std::min<int64_t>(16, ihw - p);
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      if (j >= count) break;
      _mm512_store_ps(bordered + ((r + g.ph) * wp + c + g.pw) * 16, v[j]);
      if (++c == g.iw) c = 0, ++r;
    }
  }
}

GEBE_AVX512 void CopyRow(float* dst, const float* src, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = Lanes(n - i);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_maskz_loadu_ps(m, src + i));
  }
}

// 32 inputs a step (two masked loads), their even and odd lanes gathered by two permutes.
GEBE_AVX512 void SplitRow(float* even, float* odd, const float* src, int64_t n) {
  const __m512i even_idx = EvenLanes(), odd_idx = OddLanes();
  for (int64_t i = 0; i < n; i += 32) {
    int64_t rest = n - i;
    __m512 lo = _mm512_maskz_loadu_ps(Lanes(rest), src + i);
    __m512 hi = _mm512_maskz_loadu_ps(Lanes(rest - 16), src + i + 16);
    _mm512_mask_storeu_ps(even + i / 2, Lanes((rest + 1) / 2), _mm512_permutex2var_ps(lo, even_idx, hi));
    _mm512_mask_storeu_ps(odd + i / 2, Lanes(rest / 2), _mm512_permutex2var_ps(lo, odd_idx, hi));
  }
}


// Planes p of a job from p0 on: input plane x, output plane y, output channel m (counted along,
// not divided out per plane: small planes are cheap enough that divisions show).
struct PlaneWalk {
  const DepthwiseJob& d;
  int64_t p, m, n;
  PlaneWalk(const DepthwiseJob& job, int64_t p0)
      : d(job), p(p0), m(p0 % (job.channels * job.multiplier)), n(p0 / (job.channels * job.multiplier)) {}
  const float* x() const { return d.x + (n * d.channels + (d.multiplier == 1 ? m : m / d.multiplier)) * d.g.ih * d.g.iw; }
  float* y() const { return d.y + p * d.g.oh * d.g.ow; }
  const float* w() const { return d.w + m * 9; }
  float bias() const { return d.bias ? d.bias[m] : 0.f; }
  void Next() {
    ++p;
    m = m + 1 == d.channels * d.multiplier ? 0 : m + 1;
    n += m == 0;
  }
};

// Flat9Fits planes (conv_depthwise_rows.h): vector v holds outputs 16v .. 16v + 15 of the plane and
// tap t reads them with one load at offset off[t], masked by mask[v][t] to the lanes whose input
// row and column are inside the image (the others read as the zero padding).
GEBE_AVX512 void Flat9(const DepthwiseJob& d, int64_t p0, int64_t p1) {
  const Geo2& g = d.g;
  const int64_t n = g.oh * g.ow, vectors = (n + 15) / 16;
  __mmask16 mask[kFlat9MaxOutputs / 16][9];
  int64_t off[9], ro[3], co[3];
  for (int64_t k = 0; k < 3; ++k) {
    ro[k] = k * g.dh - g.ph;
    co[k] = k * g.dw - g.pw;
  }
  for (int t = 0; t < 9; ++t) off[t] = ro[t / 3] * g.iw + co[t % 3];
  // Built by every chunk of the ParallelFor, so 16 lanes at a time and without divisions: each
  // lane's output row r and column c (advanced by 16 columns a vector, wrapped row by row), then
  // the row of each kernel row and the column of each kernel column inside the image, and their
  // products. Offsets past ±2^30 clamp (r and c are below 4096, so the answers stay).
  auto clamp30 = [](int64_t v) { return int32_t(std::min<int64_t>(std::max<int64_t>(v, -(1 << 30)), 1 << 30)); };
  const __m512i ow = _mm512_set1_epi32(int32_t(g.ow)), one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512();
  const __m512i ih = _mm512_set1_epi32(clamp30(g.ih)), iw = _mm512_set1_epi32(int32_t(g.iw));
  __m512i rv = zero, cv = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int64_t v = 0; v < vectors; ++v, cv = _mm512_add_epi32(cv, _mm512_set1_epi32(16))) {
    for (__mmask16 wrap; (wrap = _mm512_cmpge_epi32_mask(cv, ow)) != 0;) {
      cv = _mm512_mask_sub_epi32(cv, wrap, cv, ow);
      rv = _mm512_mask_add_epi32(rv, wrap, rv, one);
    }
    __mmask16 rows[3], cols[3];
    for (int k = 0; k < 3; ++k) {
      const __m512i r = _mm512_add_epi32(rv, _mm512_set1_epi32(clamp30(ro[k])));
      const __m512i c = _mm512_add_epi32(cv, _mm512_set1_epi32(clamp30(co[k])));
      rows[k] = _mm512_cmpge_epi32_mask(r, zero) & _mm512_cmplt_epi32_mask(r, ih);
      cols[k] = _mm512_cmpge_epi32_mask(c, zero) & _mm512_cmplt_epi32_mask(c, iw);
    }
    const __mmask16 live = Lanes(n - 16 * v);
    for (int t = 0; t < 9; ++t) mask[v][t] = __mmask16(rows[t / 3] & cols[t % 3] & live);
  }
  const __m512 lo = _mm512_set1_ps(d.clamp.lo), hi = _mm512_set1_ps(d.clamp.hi);
  for (PlaneWalk at(d, p0); at.p < p1; at.Next()) {
    const float* xc = at.x();
    float* yc = at.y();
    __m512 wv[9];
    Broadcast9(at.w(), wv);
    const __m512 bv = _mm512_set1_ps(at.bias());
    for (int64_t v = 0; v < vectors; ++v) {
      const __mmask16* mk = mask[v];
      const float* xv = xc + 16 * v;
      __m512 acc0 = _mm512_fmadd_ps(wv[0], _mm512_maskz_loadu_ps(mk[0], xv + off[0]), bv);
      __m512 acc1 = _mm512_mul_ps(wv[1], _mm512_maskz_loadu_ps(mk[1], xv + off[1]));
      __m512 acc2 = _mm512_mul_ps(wv[2], _mm512_maskz_loadu_ps(mk[2], xv + off[2]));
      acc0 = _mm512_fmadd_ps(wv[3], _mm512_maskz_loadu_ps(mk[3], xv + off[3]), acc0);
      acc1 = _mm512_fmadd_ps(wv[4], _mm512_maskz_loadu_ps(mk[4], xv + off[4]), acc1);
      acc2 = _mm512_fmadd_ps(wv[5], _mm512_maskz_loadu_ps(mk[5], xv + off[5]), acc2);
      acc0 = _mm512_fmadd_ps(wv[6], _mm512_maskz_loadu_ps(mk[6], xv + off[6]), acc0);
      acc1 = _mm512_fmadd_ps(wv[7], _mm512_maskz_loadu_ps(mk[7], xv + off[7]), acc1);
      acc2 = _mm512_fmadd_ps(wv[8], _mm512_maskz_loadu_ps(mk[8], xv + off[8]), acc2);
      __m512 out = ClampVector(Sum3(acc0, acc1, acc2), d.clamp, lo, hi);
      _mm512_mask_storeu_ps(yc + 16 * v, Lanes(n - 16 * v), out);
    }
  }
}

// Rows9Fits planes (conv_depthwise_rows.h), `pair` output rows a vector (2 where input rows have at
// most 16 floats and output rows at most 8, else 1). For each kernel row, a and b are two masked
// loads: the input rows of both output rows (pair) or the two halves of the one input row; kernel
// column kw then takes lane l's input from them with one two-source permute (idx[kw]), zeroed
// where the column is outside the image (valid[kw]).
GEBE_AVX512 void Rows9(const DepthwiseJob& d, int64_t p0, int64_t p1) {
  const Geo2& g = d.g;
  const bool pair = g.iw <= 16 && g.ow <= 8;
  const int64_t per = pair ? 2 : 1, lanes = per * g.ow;
  __m512i idx[3];
  __mmask16 valid[3];
  for (int64_t kw = 0; kw < 3; ++kw) {
    alignas(64) int32_t ix[16] = {};
    unsigned bits = 0;
    for (int64_t l = 0; l < lanes; ++l) {
      const int64_t c = (l % g.ow) * g.sw + kw * g.dw - g.pw;
      if (c < 0 || c >= g.iw) continue;
      ix[l] = int32_t(pair ? (l / g.ow) * 16 + c : c);
      bits |= 1u << l;
    }
    idx[kw] = _mm512_load_si512(ix);
    valid[kw] = __mmask16(bits);
  }
  const __mmask16 row_lo = Lanes(g.iw), row_hi = pair ? row_lo : Lanes(g.iw - 16);
  const int64_t b_off = pair ? g.sh * g.iw : 16;
  const __m512 lo = _mm512_set1_ps(d.clamp.lo), hi = _mm512_set1_ps(d.clamp.hi);
  for (PlaneWalk at(d, p0); at.p < p1; at.Next()) {
    const float* xc = at.x();
    float* yc = at.y();
    __m512 wv[9];
    Broadcast9(at.w(), wv);
    const __m512 bv = _mm512_set1_ps(at.bias());
    for (int64_t oh = 0; oh < g.oh; oh += per) {
      const bool second = pair && oh + 1 < g.oh;
      __m512 acc[3] = {bv, _mm512_setzero_ps(), _mm512_setzero_ps()};
      for (int64_t kh = 0; kh < 3; ++kh) {
        const int64_t r = oh * g.sh + kh * g.dh - g.ph, rb = pair ? r + g.sh : r;
        const float* xr = xc + r * g.iw;
        const __mmask16 ma = r >= 0 && r < g.ih ? row_lo : 0;
        const __mmask16 mb = (!pair || second) && rb >= 0 && rb < g.ih ? row_hi : 0;
        const __m512 a = _mm512_maskz_loadu_ps(ma, xr), b = _mm512_maskz_loadu_ps(mb, xr + b_off);
        for (int64_t kw = 0; kw < 3; ++kw)
          acc[kh] = _mm512_fmadd_ps(wv[kh * 3 + kw], _mm512_maskz_permutex2var_ps(valid[kw], a, idx[kw], b), acc[kh]);
      }
      __m512 out = ClampVector(Sum3(acc[0], acc[1], acc[2]), d.clamp, lo, hi);
      _mm512_mask_storeu_ps(yc + oh * g.ow, Lanes((second ? 2 : 1) * g.ow), out);
    }
  }
}


// Wide2Fits planes (conv_depthwise_rows.h): 16 outputs of a row a vector, read where the rows lie
// (no parity split into a zero-bordered copy, no per-row calls). Block j of output row oh reads
// input columns q + 2i + kw·dw (q = 32j − pw) of the kernel's rows: tap (kh, kw) is the even lanes
// of the two loads at q + kw·dw, q + kw·dw + 16. With dw = 1 one pair serves all three kernel
// columns: kw = 0 its even lanes, kw = 1 its odd lanes, kw = 2 the even lanes moved down one with
// column q + 32 (a third, one-lane load) coming in. Loads are masked to the image's columns only in
// the blocks that reach past them (the padding reads as zero; lanes past the row's last output
// compute values never stored); plain loads and stores elsewhere took the kernel alone about 12%
// lower on a 112×112 plane.
struct Wide2Block {
  // masks[kw][h]: load h (0, 1: 16 columns each; 2: one column) of kernel column kw.
  __mmask16 masks[3][3];
  bool inside;  // every column the block reads is in the image: plain loads
};

template <bool kMasked>
GEBE_AVX512 inline __m512 Wide2Load(const Wide2Block& b, int kw, int h, const float* p) {
  return kMasked ? _mm512_maskz_loadu_ps(b.masks[kw][h], p) : _mm512_loadu_ps(p);
}

// The three taps of one kernel row for one block: kernel column kw's 16 inputs in t[kw].
// kMasked: loads masked by b.masks; kAdjacent: dw = 1, one pair of loads serves all three
// columns. Always inlined, so the taps and the accumulators they feed stay in registers.
template <bool kMasked, bool kAdjacent>
GEBE_AVX512 inline __attribute__((always_inline)) void Wide2Taps(const float* xr, const Wide2Block& b, int64_t dw,
                                                                  __m512i even, __m512i odd, __m512* t) {
  if (kAdjacent) {
    const __m512 lo = Wide2Load<kMasked>(b, 0, 0, xr), hi = Wide2Load<kMasked>(b, 0, 1, xr + 16);
    t[0] = _mm512_permutex2var_ps(lo, even, hi);
    t[1] = _mm512_permutex2var_ps(lo, odd, hi);
    const __m512 next = kMasked ? _mm512_maskz_loadu_ps(b.masks[0][2], xr + 32) : _mm512_zextps128_ps512(_mm_load_ss(xr + 32));
    // All 16 lanes written: the mask form only names a pass-through, which GCC's unmasked form
    // leaves undefined (and warns about once inlined).
    const __m512i e = _mm512_castps_si512(t[0]);
    t[2] = _mm512_castsi512_ps(_mm512_mask_alignr_epi32(e, __mmask16(0xffff), _mm512_castps_si512(next), e, 1));
    return;
  }
#pragma GCC unroll 3
  for (int kw = 0; kw < 3; ++kw) {
    const float* xt = xr + kw * dw;
    t[kw] = _mm512_permutex2var_ps(Wide2Load<kMasked>(b, kw, 0, xt), even, Wide2Load<kMasked>(b, kw, 1, xt + 16));
  }
}

// a[kw] += wk[kw] · t[kw] (one kernel row of weights wk[0..2]).
GEBE_AVX512 inline __attribute__((always_inline)) void Wide2Fma(const __m512* t, const __m512* wk, __m512* a) {
#pragma GCC unroll 3
  for (int kw = 0; kw < 3; ++kw) a[kw] = _mm512_fmadd_ps(wk[kw], t[kw], a[kw]);
}

// The outputs of block b in kRows (1 or 2) consecutive output rows, before the clamp: row k
// reads input rows rows[2k], rows[2k + 1], rows[2k + 2] (null: outside the image, read as zero
// padding), so two rows share their middle input row (stride 2, dilation 1) and load it once.
template <bool kMasked, bool kAdjacent, int kRows>
GEBE_AVX512 inline __attribute__((always_inline)) void Wide2Vectors(const float* const* rows, int64_t q,
                                                                     const __m512* wv, __m512 bv, const Wide2Block& b,
                                                                     int64_t dw, __m512i even, __m512i odd,
                                                                     __m512* out) {
  __m512 a[2][3], t[3];
#pragma GCC unroll 2
  for (int k = 0; k < kRows; ++k) {
    a[k][0] = bv;
    a[k][1] = a[k][2] = _mm512_setzero_ps();
  }
#pragma GCC unroll 5
  for (int r = 0; r < 2 * kRows + 1; ++r) {
    if (rows[r] == nullptr) continue;
    Wide2Taps<kMasked, kAdjacent>(rows[r] + q, b, dw, even, odd, t);
    // Input row r is kernel row r - 2k of output row k.
    if (r <= 2) Wide2Fma(t, wv + 3 * r, a[0]);
    if (kRows == 2 && r >= 2) Wide2Fma(t, wv + 3 * (r - 2), a[1]);
  }
#pragma GCC unroll 2
  for (int k = 0; k < kRows; ++k) out[k] = Sum3(a[k][0], a[k][1], a[k][2]);
}

// kRows (1 or 2) output rows from yr on: row k from input rows rows[2k .. 2k + 2].
template <bool kAdjacent, int kRows>
GEBE_AVX512 inline __attribute__((always_inline)) void Wide2OutputRows(const float* const* rows, float* yr,
                                                                        const Wide2Block* block, int64_t blocks,
                                                                        int64_t ow, int64_t pw, int64_t dw,
                                                                        const __m512* wv, __m512 bv,
                                                                        const RowClamp& clamp, __m512 lo, __m512 hi) {
  const __m512i even = EvenLanes(), odd = OddLanes();
  for (int64_t j = 0; j < blocks; ++j) {
    const Wide2Block& b = block[j];
    const int64_t q = 32 * j - pw;
    __m512 out[2];
    if (b.inside) {
      Wide2Vectors<false, kAdjacent, kRows>(rows, q, wv, bv, b, dw, even, odd, out);
    } else {
      Wide2Vectors<true, kAdjacent, kRows>(rows, q, wv, bv, b, dw, even, odd, out);
    }
#pragma GCC unroll 2
    for (int k = 0; k < kRows; ++k) {
      const __m512 v = ClampVector(out[k], clamp, lo, hi);
      float* y = yr + k * ow + 16 * j;
      if (16 * j + 16 <= ow) {
        _mm512_storeu_ps(y, v);
      } else {
        _mm512_mask_storeu_ps(y, Lanes(ow - 16 * j), v);
      }
    }
  }
}

template <bool kAdjacent>
GEBE_AVX512 void Wide2Planes(const DepthwiseJob& d, int64_t p0, int64_t p1) {
  const Geo2& g = d.g;
  const int64_t blocks = (g.ow + 15) / 16, ow = g.ow, oh_count = g.oh, ih = g.ih, iw = g.iw, dw = g.dw;
  Wide2Block block[kWide2MaxOutputs / 16];
  for (int64_t j = 0; j < blocks; ++j) {
    block[j].inside = true;
    for (int64_t kw = 0; kw < 3; ++kw)
      for (int64_t h = 0; h < 3; ++h) {
        const int64_t first = 32 * j - g.pw + kw * dw + 16 * h;
        unsigned bits = 0;
        for (int64_t i = 0; i < (h == 2 ? 1 : 16); ++i)
          if (first + i >= 0 && first + i < iw) bits |= 1u << i;
        block[j].masks[kw][h] = __mmask16(bits);
        // The plain path's third load (dw = 1) reads one column; with dw > 1 there is none.
        if (h < 2 || kAdjacent) block[j].inside &= bits == (h == 2 ? 1u : 0xffffu);
      }
  }
  // Output rows oh and oh + 1 share an input row when the kernel's last row of one is the
  // first of the next.
  const bool pairs = g.sh == 2 * g.dh;
  const RowClamp clamp = d.clamp;
  const __m512 lo = _mm512_set1_ps(clamp.lo), hi = _mm512_set1_ps(clamp.hi);
  for (PlaneWalk at(d, p0); at.p < p1; at.Next()) {
    const float* xc = at.x();
    float* yc = at.y();
    __m512 wv[9];
    Broadcast9(at.w(), wv);
    const __m512 bv = _mm512_set1_ps(at.bias());
    auto input_row = [&](int64_t r) { return r < 0 || r >= ih ? nullptr : xc + r * iw; };
    int64_t oh = 0;
    if (pairs) {
      for (; oh + 2 <= oh_count; oh += 2) {
        const int64_t top = oh * g.sh - g.ph;
        const float* rows[5];
        for (int64_t k = 0; k < 5; ++k) rows[k] = input_row(top + k * g.dh);
        Wide2OutputRows<kAdjacent, 2>(rows, yc + oh * ow, block, blocks, ow, g.pw, dw, wv, bv, clamp, lo, hi);
      }
    }
    for (; oh < oh_count; ++oh) {
      const int64_t top = oh * g.sh - g.ph;
      const float* rows[3];
      for (int64_t k = 0; k < 3; ++k) rows[k] = input_row(top + k * g.dh);
      Wide2OutputRows<kAdjacent, 1>(rows, yc + oh * ow, block, blocks, ow, g.pw, dw, wv, bv, clamp, lo, hi);
    }
  }
}

GEBE_AVX512 void Wide2(const DepthwiseJob& d, int64_t p0, int64_t p1) {
  if (d.g.dw == 1) {
    Wide2Planes<true>(d, p0, p1);
  } else {
    Wide2Planes<false>(d, p0, p1);
  }
}

}  // namespace

const DepthwiseRows* Avx512DepthwiseRows() {
  static const DepthwiseRows rows{Row9Fma, Row9Stride2, Row3<1>, Row3<2>, Plane9, PlaneK, CopyRow, SplitRow, Flat9, Rows9, Wide2, ChannelsLastRow, ChannelsLastFill};
  return &rows;
}

}  // namespace gebe::cpu

#else

namespace gebe::cpu {
const DepthwiseRows* Avx512DepthwiseRows() { return nullptr; }
}  // namespace gebe::cpu

#endif
