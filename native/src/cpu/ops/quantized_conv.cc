// QLinearConv and ConvInteger (and the QDQ fusion's convolutions) on the integer GEMM
// (../gemm/qgemm.h): 1-D and 2-D convolutions with K = C/group · kernel ≤ kQgemmMaxK generate
// im2col columns as UINT8 into the GEMM's packed panels (padding is the zero point, so it
// contributes nothing), a block of columns per claimed work item, and requantise each block while
// it is in cache. Stride 1 (and larger strides, split into phase planes) reads a zero-point-bordered
// copy of the input over "wide" output rows (the border's columns computed and dropped), where every
// im2col row is one contiguous run. Constant weights are packed once at load. Other shapes use the direct
// convolution of quantized.cc. On AVX-512 VNNI, QLinearConv and the QDQ convolutions that
// QTransposedPays run transposed instead (quantized_conv_transposed.h; ConvInteger's int32 output
// keeps the panels). Every path computes the same exact int32 accumulators.
#include "cpu/ops/quantized_conv.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/gemm/qgemm.h"
#include "cpu/gemm/sgemm.h"
#include "cpu/ops/quantized.h"
#include "cpu/ops/quantized_conv_transposed.h"

namespace gebe::cpu {

namespace {

constexpr int64_t kColumnBlock = 96;  // columns per work item: two AVX-512 tiles
constexpr int64_t kRowsPerPart = 32;  // least output channels per work item where channels are split

enum class Mode { kConvInteger, kQLinear, kQdq };

// Where each operand sits in the step's inputs.
struct Slots {
  int x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias;
};
constexpr Slots kConvIntegerSlots{0, -1, 2, 1, -1, 3, -1, -1, -1};
constexpr Slots kQLinearSlots{0, 1, 2, 3, 4, 5, 6, 7, 8};

const TensorRef* At(const std::vector<const TensorRef*>& in, int slot) {
  return slot >= 0 && size_t(slot) < in.size() ? in[size_t(slot)] : nullptr;
}

using Geometry2D = QConvGeometry;  // the 2-D view of a 1-D or 2-D convolution

class QuantizedConvKernel : public Kernel {
 public:
  QuantizedConvKernel(const Node& node, Mode mode, bool relu)
      : Kernel(node), mode_(mode), relu_(relu), slots_(mode == Mode::kConvInteger ? kConvIntegerSlots : kQLinearSlots),
        attrs_(node), group_(node.get_int("group", 1)) {}

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, size_t(slots_.x), "x");
    const TensorRef& w = Input(in, size_t(slots_.w), "w");
    ExpectType(x, "x", {DataType::kUInt8, DataType::kInt8});
    ExpectType(w, "w", {DataType::kUInt8, DataType::kInt8});
    ExpectZeroPointType(*this, At(in, slots_.x_zp), "x_zero_point", x, "x");
    ExpectZeroPointType(*this, At(in, slots_.w_zp), "w_zero_point", w, "w");
    DataType out_type = DataType::kInt32;
    if (mode_ != Mode::kConvInteger) {
      const TensorRef& yzp = Input(in, size_t(slots_.y_zp), "y_zero_point");
      ExpectType(yzp, "y_zero_point", {DataType::kUInt8, DataType::kInt8});
      for (int i : {slots_.x_scale, slots_.w_scale, slots_.y_scale}) ExpectType(Input(in, size_t(i), "scale"), "scale", {DataType::kFloat32});
      if (const TensorRef* b = At(in, slots_.bias))
        ExpectType(*b, "B", {mode_ == Mode::kQdq ? DataType::kFloat32 : DataType::kInt32});
      out_type = yzp.dtype;
    }
    Shape s;
    IntegerConv(*this, attrs_, group_, x, w, {}, {}, &s, nullptr);
    out[0] = {out_type, s, nullptr};
    return true;
  }

  void PrepareConstants(const std::vector<const TensorRef*>& constants) override {
    const TensorRef* w = At(constants, slots_.w);
    if (!w || !w->data || w->rank() < 3 || w->rank() > 4) return;
    const TensorRef* wzp = At(constants, slots_.w_zp);
    bool zp_input = size_t(slots_.w_zp) < node_.inputs.size() && !node_.inputs[size_t(slots_.w_zp)].empty();
    if (zp_input && (!wzp || !wzp->data)) return;  // a zero point known only at run time
    ExpectZeroPointType(*this, wzp, "w_zero_point", *w, "w");
    packed_ = PackWeights(*w, wzp);
    int64_t taps = w->count() / std::max<int64_t>(1, w->shape[0] * w->shape[1]);
    if (mode_ != Mode::kConvInteger && packed_.size() == 1 &&
        QTransposedPays(group_, w->shape[1], w->shape[0], taps, packed_[0].any_zero_point)) {
      transposed_ = std::make_shared<QTransposedWeights>(
          PackQTransposedWeights(w->data, w->dtype == DataType::kInt8, w->shape[0], w->shape[1], taps));
      packed_[0].packed.reset();
    }
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[size_t(slots_.x)];
    const TensorRef& w = *in[size_t(slots_.w)];
    const TensorRef* xzp = At(in, slots_.x_zp);
    const TensorRef* wzp = At(in, slots_.w_zp);
    if (xzp && xzp->count() > 1) Fail("x_zero_point must be a scalar (one zero point per tensor)");
    if (out[0].count() == 0) return;
    Geometry2D g;
    int64_t k = w.count() / std::max<int64_t>(1, w.shape[0]);
    // No input channels (K = 0) and the shapes the GEMM does not take: the direct loops.
    if (k == 0 || k > kQgemmMaxK || !Resolve2D(x, w, &g)) return RunDirect(in, out);
    const std::vector<QgemmWeights>* weights = &packed_;
    std::vector<QgemmWeights> fresh;
    if (weights->empty()) {
      fresh = PackWeights(w, wzp);
      weights = &fresh;
    }
    if (weights->size() != size_t(group_)) return RunDirect(in, out);
    RunGemm(in, out, g, *weights, ctx);
  }

 private:
  // One packed matrix per group: rows = output channels of the group, K = C/group · kernel taps.
  std::vector<QgemmWeights> PackWeights(const TensorRef& w, const TensorRef* wzp) const {
    int64_t m = w.shape[0];
    if (group_ <= 0 || m % group_) return {};
    int64_t mg = m / group_, k = w.count() / std::max<int64_t>(1, m);
    if (wzp && wzp->count() != 1 && wzp->count() != m) Fail("w_zero_point must have 1 or " + std::to_string(m) + " entries");
    if (k > kQgemmMaxK) return {};
    bool is_signed = w.dtype == DataType::kInt8;
    std::vector<QgemmWeights> groups;
    for (int64_t gi = 0; gi < group_; ++gi) {
      const uint8_t* wp = w.as<const uint8_t>() + gi * mg * k;
      const void* zp = nullptr;
      int64_t zp_count = 0;
      if (wzp && wzp->count() > 0) {
        zp_count = wzp->count() == 1 ? 1 : mg;
        zp = wzp->as<const uint8_t>() + (wzp->count() == 1 ? 0 : gi * mg);
      }
      groups.push_back(PackQgemmWeights(wp, is_signed, mg, k, zp, zp_count));
    }
    return groups;
  }

  bool Resolve2D(const TensorRef& x, const TensorRef& w, Geometry2D* out) const {
    if (x.rank() != w.rank() || (x.rank() != 3 && x.rank() != 4)) return false;
    std::vector<int64_t> in_sp(x.shape.begin() + 2, x.shape.end()), k_sp(w.shape.begin() + 2, w.shape.end());
    ConvGeometry g = ResolveGeometry(*this, attrs_, in_sp, k_sp);
    bool two = g.spatial == 2;
    auto dim = [&](const std::vector<int64_t>& v, int i, int64_t one) { return two ? v[size_t(i)] : i == 0 ? one : v[0]; };
    *out = {dim(g.in, 0, 1), dim(g.in, 1, 1), dim(g.kernel, 0, 1), dim(g.kernel, 1, 1), dim(g.out, 0, 1), dim(g.out, 1, 1),
            dim(g.stride, 0, 1), dim(g.stride, 1, 1), dim(g.dilation, 0, 1), dim(g.dilation, 1, 1), dim(g.pad_begin, 0, 0),
            dim(g.pad_begin, 1, 0)};
    return true;
  }

  // dst[t] = src[t · step] ^ flip for t < count.
  static void CopyStrided(const uint8_t* __restrict src, int64_t step, int64_t count, uint8_t flip, uint8_t* __restrict dst) {
    if (step == 1) {  // stride 1's rows: a loop the compiler vectorises (no memcpy call per short row)
      for (int64_t t = 0; t < count; ++t) dst[t] = uint8_t(src[t] ^ flip);
      return;
    }
    int64_t t = 0;
#if defined(__SSE2__)
    // Stride 2 (the downsampling convolutions): the even bytes of 32, 16 outputs a step, then of
    // 16, 8 a step (the rows of 14×14 and 7×7 planes are short). Each load's last byte lies before
    // the next output's, which exists (t + 16 < count, t + 8 < count).
    if (step == 2) {
      const __m128i low = _mm_set1_epi16(0xFF), flip16 = _mm_set1_epi8(char(flip));
      for (; t + 16 < count; t += 16) {
        __m128i lo = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * t)), low);
        __m128i hi = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * t + 16)), low);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + t), _mm_xor_si128(_mm_packus_epi16(lo, hi), flip16));
      }
      for (; t + 8 < count; t += 8) {
        __m128i lo = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * t)), low);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + t), _mm_xor_si128(_mm_packus_epi16(lo, lo), flip16));
      }
    }
#endif
    for (; t < count; ++t) dst[t] = uint8_t(src[t * step] ^ flip);
  }

  // Row kk of the im2col matrix over columns p0 .. p0+n (UINT8, sign bit flipped by `flip`,
  // padding = the zero point): per output row, the padded borders and a copy of the inside.
  // Row (ci, ky, kx) of the im2col matrix; the block starts at output (oh0, ow0).
  static void Im2colRow(const uint8_t* x, int64_t ci, int64_t ky, int64_t kx, const Geometry2D& g, int64_t oh0, int64_t ow0,
                        int64_t n, uint8_t flip, uint8_t pad, uint8_t* dst) {
    const uint8_t* plane = x + ci * g.ih * g.iw;
    int64_t oh = oh0, ow = ow0;
    for (int64_t j = 0; j < n; ow = 0, ++oh) {
      int64_t run = std::min(n - j, g.ow - ow);  // the rest of this output row
      int64_t ih = oh * g.sh - g.ph + ky * g.dh;
      uint8_t* d = dst + j;
      j += run;
      if (ih < 0 || ih >= g.ih) {
        for (int64_t t = 0; t < run; ++t) d[t] = pad;
        continue;
      }
      const uint8_t* row = plane + ih * g.iw;
      int64_t iw0 = ow * g.sw - g.pw + kx * g.dw;  // input column of the run's first output
      // Outputs [t0, t1) of the run read inside the row (no divisions for stride 1).
      int64_t t0, t1;
      if (g.sw == 1) {
        t0 = std::min(run, std::max<int64_t>(0, -iw0));
        t1 = std::min(run, g.iw - iw0);
      } else {
        t0 = iw0 >= 0 ? 0 : std::min(run, (-iw0 + g.sw - 1) / g.sw);
        t1 = iw0 >= g.iw ? 0 : std::min(run, (g.iw - 1 - iw0) / g.sw + 1);
      }
      t1 = std::max(t0, t1);
      for (int64_t t = 0; t < t0; ++t) d[t] = pad;  // borders: a column or two, no memset call
      if (t1 > t0 && g.sw == 1) {
        const uint8_t* src = row + iw0 + t0;
        for (int64_t t = 0; t < t1 - t0; ++t) d[t0 + t] = uint8_t(src[t] ^ flip);
      } else if (t1 > t0) {
        CopyStrided(row + iw0 + t0 * g.sw, g.sw, t1 - t0, flip, d + t0);
      }
      for (int64_t t = t1; t < run; ++t) d[t] = pad;
    }
  }

  // 16 columns of four rows → 16 quads: out[j · 4 + r] = rows[r][j].
  static void Interleave4(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, const uint8_t* r3, uint8_t* out) {
#if defined(__SSE2__)
    // SSE2 is part of x86-64 itself: byte then word unpacks, 4 stores instead of 64.
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r2));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r3));
    __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
    __m128i cd_lo = _mm_unpacklo_epi8(c, d), cd_hi = _mm_unpackhi_epi8(c, d);
    auto* o = reinterpret_cast<__m128i*>(out);
    _mm_storeu_si128(o, _mm_unpacklo_epi16(ab_lo, cd_lo));
    _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(ab_lo, cd_lo));
    _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(ab_hi, cd_hi));
    _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(ab_hi, cd_hi));
#else
    const uint8_t* rows[4] = {r0, r1, r2, r3};
    for (int64_t j = 0; j < kQNR; ++j)
      for (int r = 0; r < 4; ++r) out[j * 4 + r] = rows[r][j];
#endif
  }

  // Columns p0 .. p0+n of one image's group (icg channels at x) as UINT8 im2col packed panels:
  // four rows at a time, interleaved so each column holds a quad of K.
  static void PackColumns(const uint8_t* x, int64_t icg, const Geometry2D& g, int64_t p0, int64_t n, uint8_t flip, uint8_t pad,
                          uint8_t* b) {
    int64_t k = icg * g.kh * g.kw, quads = QuadsOf(k), panel_stride = quads * kQNR * 4;
    int64_t width = (n + kQNR - 1) / kQNR * kQNR;
    thread_local std::vector<uint8_t> rows;
    rows.assign(size_t(4 * width), 0);  // past K and past n: zeros
    int64_t oh0 = p0 / g.ow, ow0 = p0 % g.ow;
    int64_t ci = 0, ky = 0, kx = 0;  // row kk of im2col, counted without divisions
    for (int64_t q = 0; q < quads; ++q) {
      for (int r = 0; r < 4; ++r) {
        if (q * 4 + r >= k) {
          std::memset(rows.data() + r * width, 0, size_t(width));
          continue;
        }
        Im2colRow(x, ci, ky, kx, g, oh0, ow0, n, flip, pad, rows.data() + r * width);
        if (++kx == g.kw) {
          kx = 0;
          if (++ky == g.kh) ky = 0, ++ci;
        }
      }
      const uint8_t* r0 = rows.data();
      for (int64_t j0 = 0; j0 < width; j0 += kQNR)
        Interleave4(r0 + j0, r0 + width + j0, r0 + 2 * width + j0, r0 + 3 * width + j0, b + (j0 / kQNR) * panel_stride + q * kQNR * 4);
    }
  }

  // Columns p0 .. p0+n of the "wide" output (rows of wp positions, the last wp − ow of each thrown
  // away) over the group's bordered copy xp (WideInput), where im2col row (ci, tap) is the
  // contiguous run at ci · channel + taps[tap] + p0, interleaved straight from the copy into the
  // panels. Bytes past the block's n columns (up to a whole panel) only feed columns that are
  // thrown away; the copy has slack for them.
  static void PackWide(const uint8_t* xp, int64_t icg, const std::vector<int64_t>& taps, int64_t channel, int64_t p0, int64_t n,
                       uint8_t* b) {
    const int64_t ntaps = int64_t(taps.size()), k = icg * ntaps, quads = QuadsOf(k), panel_stride = quads * kQNR * 4;
    const int64_t width = (n + kQNR - 1) / kQNR * kQNR;
    thread_local std::vector<uint8_t> zeros;  // the rows past K
    zeros.assign(size_t(width), 0);
    int64_t ci = 0, tap = 0;
    const uint8_t* src[4];
    for (int64_t q = 0; q < quads; ++q) {
      for (int r = 0; r < 4; ++r) {
        if (q * 4 + r >= k) {
          src[r] = zeros.data();
          continue;
        }
        src[r] = xp + ci * channel + taps[size_t(tap)] + p0;
        if (++tap == ntaps) tap = 0, ++ci;
      }
      uint8_t* out = b + q * kQNR * 4;
      for (int64_t j0 = 0; j0 < width; j0 += kQNR)
        Interleave4(src[0] + j0, src[1] + j0, src[2] + j0, src[3] + j0, out + (j0 / kQNR) * panel_stride);
    }
  }

  // The input laid out so that every im2col row is one contiguous run over wide output rows of wp
  // positions (PackWide), each channel `channel` bytes: stride 1 (any dilation), the input inside a
  // zero-point border, tap (ky, kx) at ky·dh·wp + kx·dw; stride > 1 (dilation 1), the bordered input
  // split into phase planes, phase (py, px) holding its rows py, py + sh, … and columns px, px + sw,
  // …, so that tap (ky, kx) reads phase (ky mod sh, kx mod sw) at row ky / sh, column kx / sw.
  struct WideInput {
    bool usable = false;
    int64_t wp = 0, hp = 0, phases_y = 1, phases_x = 1, channel = 0;
    std::vector<int64_t> taps;

    explicit WideInput(const Geometry2D& g) {
      bool unit = g.sh == 1 && g.sw == 1;
      if (!unit && (g.dh != 1 || g.dw != 1)) return;
      usable = true;
      if (!unit) phases_y = std::min(g.kh, g.sh), phases_x = std::min(g.kw, g.sw);
      wp = unit ? g.ow + (g.kw - 1) * g.dw : g.ow + (g.kw - 1) / g.sw;
      hp = unit ? g.oh + (g.kh - 1) * g.dh : g.oh + (g.kh - 1) / g.sh;
      channel = phases_y * phases_x * hp * wp;
      for (int64_t ky = 0; ky < g.kh; ++ky)
        for (int64_t kx = 0; kx < g.kw; ++kx)
          taps.push_back(unit ? ky * g.dh * wp + kx * g.dw
                              : ((ky % g.sh) * phases_x + kx % g.sw) * hp * wp + (ky / g.sh) * wp + kx / g.sw);
    }

    // Bytes past the last channel that the last block's throw-away columns read.
    int64_t Slack(const Geometry2D& g) const {
      int64_t last = taps.empty() ? 0 : *std::max_element(taps.begin(), taps.end());
      return std::max<int64_t>(0, last + g.oh * wp + kQNR - channel);
    }

    // planes (batch · channels) of x into dst, sign bits flipped by `flip`, the border (and the
    // slack after the last plane) the zero point zx: each plane written whole by one thread.
    void Fill(const uint8_t* x, int64_t planes, const Geometry2D& g, uint8_t flip, uint8_t zx, uint8_t* dst, int64_t slack,
              ThreadPool* pool) const {
      std::memset(dst + planes * channel, zx, size_t(slack));
      // The sizes in locals: 8-bit stores may alias g's fields, which would keep the loops scalar.
      const int64_t ih = g.ih, iw = g.iw, sh = g.sh, sw = g.sw, ph = g.ph, pw = g.pw, hp_ = hp, wp_ = wp;
      const int64_t fy = phases_y, fx = phases_x, ch = channel;
      pool->ParallelFor(planes, 4, [&](int64_t p0, int64_t p1) {
        std::memset(dst + p0 * ch, zx, size_t((p1 - p0) * ch));
        for (int64_t plane = p0; plane < p1; ++plane)
          for (int64_t py = 0; py < fy; ++py)
            for (int64_t px = 0; px < fx; ++px) {
              // Phase columns j whose input column j·sw + px − pw lies inside the row (divisions
              // once per phase, not per row: 7×7 planes have 7-byte rows).
              int64_t first = std::max<int64_t>(0, (pw - px + sw - 1) / sw);
              int64_t end = std::min(wp_, (iw - 1 + pw - px) / sw + 1);
              if (end <= first) continue;
              for (int64_t i = 0; i < hp_; ++i) {
                int64_t iy = i * sh + py - ph;
                if (iy < 0 || iy >= ih) continue;
                const uint8_t* src = x + (plane * ih + iy) * iw + first * sw + px - pw;
                CopyStrided(src, sw, end - first, flip, dst + plane * ch + ((py * fx + px) * hp_ + i) * wp_ + first);
              }
            }
      });
    }
  };

  // What each accumulator becomes: int32 (ConvInteger), or requantised to 8 bits.
  struct Epilogue {
    Mode mode;
    bool relu = false;
    std::vector<float> mul, add;
    std::vector<int32_t> int_bias;
    float y_scale = 1.f;
    Requantizer rq{DataType::kUInt8, 0};

    // The requantisation of channels first.. (QgemmRequantize's rows from 0), `add` per channel
    // from `first` (nullptr: none): QLinearConv's (acc + B) · (x_scale · w_scale / y_scale), or
    // the unfused graph's Conv in FP32 (x_scale · w_scale · acc + B), Relu, QuantizeLinear (÷ y_scale).
    QgemmRequant Channels(int64_t first, const int32_t* add_from_first) const {
      QgemmRequant q;
      q.add = add_from_first;
      q.mul = mul.data() + first;
      if (mode == Mode::kQdq) {
        q.bias = add.data() + first;
        if (relu) q.floor = 0.f;
        q.divide = true;
        q.divisor = y_scale;
      }
      q.lo = rq.lo;
      q.hi = rq.hi;
      q.zero_point = rq.zero_point;
      return q;
    }

    void Row(const int32_t* acc, int64_t n, int64_t channel, TensorRef& y, int64_t at) const {
      if (mode == Mode::kConvInteger) return (void)std::memcpy(y.as<int32_t>() + at, acc, size_t(n) * sizeof(int32_t));
      QgemmRequant q = Channels(channel, int_bias.empty() ? nullptr : int_bias.data() + channel);
      QgemmRequantize(acc, n, 1, n, q, static_cast<uint8_t*>(y.data) + at, n);
    }
  };

  Epilogue MakeEpilogue(const std::vector<const TensorRef*>& in, const TensorRef& y, int64_t m) const {
    Epilogue ep;
    ep.mode = mode_;
    ep.relu = relu_;
    if (mode_ == Mode::kConvInteger) return ep;
    PerIndex xs{At(in, slots_.x_scale)}, ws{At(in, slots_.w_scale)}, ys{At(in, slots_.y_scale)}, yzp{At(in, slots_.y_zp)};
    const TensorRef* wst = At(in, slots_.w_scale);
    if (wst->count() != 1 && wst->count() != m) Fail("w_scale must have 1 or " + std::to_string(m) + " entries");
    ep.rq = Requantizer(y.dtype, int32_t(yzp.At(0)));
    ep.y_scale = ys.Float(0);
    ep.mul.resize(size_t(m));
    ep.add.assign(size_t(m), 0.f);
    const TensorRef* bias = At(in, slots_.bias);
    if (bias && bias->count() != m) Fail("B must have " + std::to_string(m) + " entries, one per output channel");
    for (int64_t o = 0; o < m; ++o) {
      ep.mul[size_t(o)] = mode_ == Mode::kQLinear ? xs.Float(0) * ws.Float(o) / ys.Float(0) : xs.Float(0) * ws.Float(o);
      if (bias && mode_ == Mode::kQdq) ep.add[size_t(o)] = bias->as<const float>()[o];
    }
    if (bias && mode_ == Mode::kQLinear) ep.int_bias.assign(bias->as<const int32_t>(), bias->as<const int32_t>() + m);
    return ep;
  }

  // What every work item of one RunGemm shares: the shapes, the activations as the GEMM reads them,
  // where its columns come from, and what the accumulators become.
  struct GemmJob {
    const Geometry2D& g;
    const std::vector<QgemmWeights>& weights;  // per group
    const uint8_t* x;                          // the activations, NCHW
    TensorRef& y;
    const Epilogue ep;
    const int64_t group, batch, c, icg, m, mg, k, p;
    // INT8 activations are read as UINT8 with the sign bit flipped (value + 128), their zero point moved alike.
    const uint8_t flip;
    const int32_t zx;
    // Stride 1, and larger strides without dilation: the input copied once (WideInput), GEMM
    // columns over wide output rows of wp; otherwise im2col rows built per block (PackColumns).
    const WideInput layout;
    const int64_t cols, blocks;  // GEMM columns per image and group, and their blocks of kColumnBlock
    const uint8_t* padded_x = nullptr;  // the wide layout's copy of x
    std::vector<int32_t> corrections;   // per output channel (ZeroPointCorrections)
    std::vector<int32_t> adds;          // per output channel, what the requantisation adds (RequantAdds)
    std::vector<QgemmRequant> requant;  // per group, unless ConvInteger

    GemmJob(const TensorRef& xt, const TensorRef* xzp, TensorRef& yt, const Geometry2D& geometry,
            const std::vector<QgemmWeights>& w, int64_t groups, Epilogue epilogue)
        : g(geometry), weights(w), x(xt.as<const uint8_t>()), y(yt), ep(std::move(epilogue)), group(groups),
          batch(xt.shape[0]), c(xt.shape[1]), icg(c / group), m(yt.shape[1]), mg(m / group), k(icg * g.kh * g.kw),
          p(g.oh * g.ow), flip(xt.dtype == DataType::kInt8 ? 0x80 : 0),
          zx((xzp && xzp->data && xzp->count() == 1 ? Int8At(*xzp, 0) : 0) + (flip ? 128 : 0)), layout(geometry),
          cols(layout.usable ? g.oh * layout.wp : p), blocks((cols + kColumnBlock - 1) / kColumnBlock) {}
  };

  // One work item: columns p0 .. p0+n of image b's group gi, for that group's output channels r0 .. r0+rows.
  struct GemmBlock {
    int64_t b, gi, p0, n, r0, rows;
  };

  // How the items are cut: every image, group and column block, and where few column blocks
  // (the 14×14 and 7×7 planes of a ResNet's last stages: one to three) would leave threads idle,
  // the output channels in parts too, each part packing its own copy of the block's columns
  // (O(K·n) against its GEMM's O(rows·K·n)).
  struct WorkSplit {
    int64_t units, part_rows, parts;

    GemmBlock Block(const GemmJob& job, int64_t item) const {
      int64_t r0 = (item % parts) * part_rows, rows = std::min(part_rows, job.mg - r0);
      item /= parts;
      int64_t b = item / (job.group * job.blocks), gi = (item / job.blocks) % job.group, p0 = (item % job.blocks) * kColumnBlock;
      return {b, gi, p0, std::min(kColumnBlock, job.cols - p0), r0, rows};
    }
  };

  static WorkSplit SplitWork(const GemmJob& job, const RunContext& ctx) {
    int64_t units = job.batch * job.group * job.blocks, threads = ctx.pool ? ctx.pool->size() : 1;
    int64_t part_rows = job.mg;
    if (threads > 1 && units < 4 * threads && job.mg >= 2 * kRowsPerPart) {
      int64_t parts = std::min((4 * threads + units - 1) / units, job.mg / kRowsPerPart);
      part_rows = (job.mg + parts - 1) / parts;
      part_rows = (part_rows + kQMR - 1) / kQMR * kQMR;
    }
    return {units, part_rows, (job.mg + part_rows - 1) / part_rows};
  }

  void RunGemm(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const Geometry2D& g,
               const std::vector<QgemmWeights>& weights, const RunContext& ctx) const {
    GemmJob job(*in[size_t(slots_.x)], At(in, slots_.x_zp), out[0], g, weights, group_, MakeEpilogue(in, out[0], out[0].shape[1]));
    job.corrections = ZeroPointCorrections(job);
    job.adds = RequantAdds(job);
    job.requant = GroupRequants(job);
    if (transposed_ && weights.data() == packed_.data()) return RunTransposed(job, ctx);  // the constant weights, packed for it
    if (job.layout.usable) job.padded_x = CopyWideInput(job, ctx);
    const WorkSplit split = SplitWork(job, ctx);
    // One contiguous run of items (column blocks in order) per thread: the 8-bit output rows of
    // neighbouring blocks share cache lines, which then change cores once per plane, not per block.
    ParallelForContiguous(ctx.pool, split.units * split.parts, 1, [&](int64_t i0, int64_t i1) {
      for (int64_t item = i0; item < i1; ++item) RunBlock(job, split.Block(job, item));
    });
  }

  // Per output channel: −zx·Σw + K·zx·zw (wrapping in uint32 the way the exact int32 result does).
  static std::vector<int32_t> ZeroPointCorrections(const GemmJob& job) {
    std::vector<int32_t> corrections(static_cast<size_t>(job.m));
    for (int64_t gi = 0; gi < job.group; ++gi)
      for (int64_t o = 0; o < job.mg; ++o) {
        const QgemmWeights& wg = job.weights[size_t(gi)];
        uint32_t corr = uint32_t(int64_t(job.k) * job.zx * wg.zero_points[size_t(o)]) -
                        uint32_t(job.zx) * uint32_t(wg.row_sums[size_t(o)]);
        corrections[size_t(gi * job.mg + o)] = int32_t(corr);
      }
    return corrections;
  }

  // Per output channel, what the requantisation adds: the correction, and for QLinearConv its INT32 bias too.
  static std::vector<int32_t> RequantAdds(const GemmJob& job) {
    std::vector<int32_t> adds(static_cast<size_t>(job.m));
    for (int64_t channel = 0; channel < job.m; ++channel) {
      uint32_t corr = uint32_t(job.corrections[size_t(channel)]);
      adds[size_t(channel)] = int32_t(corr + (job.ep.int_bias.empty() ? 0u : uint32_t(job.ep.int_bias[size_t(channel)])));
    }
    return adds;
  }

  // Each group's requantisation (QLinearConv and the QDQ convolutions; ConvInteger keeps int32).
  std::vector<QgemmRequant> GroupRequants(const GemmJob& job) const {
    std::vector<QgemmRequant> requant(static_cast<size_t>(job.group));
    if (mode_ == Mode::kConvInteger) return requant;
    for (int64_t gi = 0; gi < job.group; ++gi) {
      requant[size_t(gi)] = job.ep.Channels(gi * job.mg, job.adds.data() + gi * job.mg);
      if (job.weights[size_t(gi)].any_zero_point) requant[size_t(gi)].zw = job.weights[size_t(gi)].zero_points.data();
    }
    return requant;
  }

  // The transposed form (quantized_conv_transposed.h), image by image.
  void RunTransposed(const GemmJob& job, const RunContext& ctx) const {
    for (int64_t b = 0; b < job.batch; ++b)
      QTransposedConv(job.x + b * job.c * job.g.ih * job.g.iw, job.g, job.flip, uint8_t(job.zx), *transposed_, job.requant[0],
                      static_cast<uint8_t*>(job.y.data) + b * job.m * job.p, ctx.pool);
  }

  // The wide layout's bordered copy of every image's channels (WideInput::Fill).
  static const uint8_t* CopyWideInput(const GemmJob& job, const RunContext& ctx) {
    thread_local std::vector<uint8_t> padded;
    int64_t slack = job.layout.Slack(job.g);
    padded.resize(size_t(job.batch * job.c * job.layout.channel + slack));
    job.layout.Fill(job.x, job.batch * job.c, job.g, job.flip, uint8_t(job.zx), padded.data(), slack, ctx.pool);
    return padded.data();
  }

  // One work item: its columns packed, multiplied by its rows of the group's weights, written to y.
  void RunBlock(const GemmJob& job, const GemmBlock& block) const {
    thread_local std::vector<uint8_t> packed_b;
    thread_local std::vector<int32_t> acc, col_sums;
    packed_b.resize(QgemmPackedBytes(job.k, kColumnBlock));
    acc.resize(size_t(job.mg * kColumnBlock));
    const QgemmWeights& wg = job.weights[size_t(block.gi)];
    PackBlock(job, block, packed_b.data());
    if (wg.any_zero_point) {
      col_sums.resize(size_t(kColumnBlock));
      QgemmColumnSums(packed_b.data(), job.k, block.n, col_sums.data());
    }
    QgemmPacked(wg, block.r0, block.rows, packed_b.data(), block.n, acc.data(), kColumnBlock);
    const int32_t* sums = wg.any_zero_point ? col_sums.data() : nullptr;
    if (mode_ != Mode::kConvInteger) RequantizeBlock(job, block, acc.data(), sums);
    else StoreInt32Block(job, block, acc.data(), sums);
  }

  // The block's columns as UINT8 im2col packed panels: straight from the wide copy, or row by row.
  static void PackBlock(const GemmJob& job, const GemmBlock& block, uint8_t* packed_b) {
    const int64_t first_channel = block.b * job.c + block.gi * job.icg;
    if (job.layout.usable)
      PackWide(job.padded_x + first_channel * job.layout.channel, job.icg, job.layout.taps, job.layout.channel, block.p0,
               block.n, packed_b);
    else
      PackColumns(job.x + first_channel * job.g.ih * job.g.iw, job.icg, job.g, block.p0, block.n, job.flip, uint8_t(job.zx),
                  packed_b);
  }

  // QLinearConv and the QDQ convolutions: the block's accumulators requantised to 8 bits in y.
  // col_sums: the block's column sums where the weights have zero points, else nullptr.
  static void RequantizeBlock(const GemmJob& job, const GemmBlock& block, const int32_t* acc, const int32_t* col_sums) {
    QgemmRequant rq = job.requant[size_t(block.gi)];
    if (rq.add) rq.add += block.r0;
    rq.mul += block.r0;
    if (rq.bias) rq.bias += block.r0;
    if (rq.zw) rq.zw += block.r0;
    if (col_sums) rq.col_sums = col_sums;
    uint8_t* y8 = static_cast<uint8_t*>(job.y.data) + (block.b * job.m + block.gi * job.mg + block.r0) * job.p;
    if (!job.layout.usable) return QgemmRequantize(acc, kColumnBlock, block.rows, block.n, rq, y8 + block.p0, job.p);
    // The whole block requantised at once (whole vectors, one call per channel), then the real
    // columns of each wide row copied into y: per wide row and channel, a call on 7 or 14 columns
    // cost more in setup and masked tails than the copy does.
    thread_local std::vector<uint8_t> staged;
    staged.resize(size_t(job.mg * kColumnBlock));
    QgemmRequantize(acc, kColumnBlock, block.rows, block.n, rq, staged.data(), kColumnBlock);
    CopyRealColumns(job, block, staged.data(), y8);
  }

  // The real columns of each wide row of a requantised block (rows of kColumnBlock in staged) into
  // its channels' output planes at y8.
  static void CopyRealColumns(const GemmJob& job, const GemmBlock& block, const uint8_t* staged, uint8_t* y8) {
    const int64_t ow = job.g.ow, wp = job.layout.wp, p = job.p;  // locals: the 8-bit stores may alias job
    for (int64_t o = 0; o < block.rows; ++o) {
      const uint8_t* src = staged + o * kColumnBlock;
      uint8_t* dst = y8 + o * p;
      int64_t r = block.p0 / wp, col = block.p0 % wp;
      for (int64_t j = 0; j < block.n; ++r, col = 0) {
        int64_t seg = std::min(block.n - j, wp - col), real = std::min(seg, ow - col);
        if (real >= 16) std::memcpy(dst + r * ow + col, src + j, size_t(real));
        else
          for (int64_t t = 0; t < real; ++t) dst[r * ow + col + t] = src[j + t];
        j += seg;
      }
    }
  }

  // ConvInteger: the block's corrected int32 accumulators themselves (acc corrected in place).
  static void StoreInt32Block(const GemmJob& job, const GemmBlock& block, int32_t* acc, const int32_t* col_sums) {
    const QgemmWeights& wg = job.weights[size_t(block.gi)];
    for (int64_t o = block.r0; o < block.r0 + block.rows; ++o) {
      // acc - zx·Σw - zw·Σx + K·zx·zw: wraps in uint32 the way the exact int32 result does.
      int32_t zw = wg.zero_points[size_t(o)];
      int32_t* row = acc + (o - block.r0) * kColumnBlock;
      int64_t channel = block.gi * job.mg + o, base = (block.b * job.m + channel) * job.p;
      for (int64_t j = 0; j < block.n; ++j) {
        uint32_t v = uint32_t(row[j]) + uint32_t(job.corrections[size_t(channel)]);
        if (col_sums) v -= uint32_t(zw) * uint32_t(col_sums[size_t(j)]);
        row[j] = int32_t(v);
      }
      if (!job.layout.usable) {
        job.ep.Row(row, block.n, channel, job.y, base + block.p0);
        continue;
      }
      for (int64_t j = 0; j < block.n;) {  // the real columns of each wide row
        int64_t r = (block.p0 + j) / job.layout.wp, col = (block.p0 + j) % job.layout.wp;
        int64_t seg = std::min(block.n - j, job.layout.wp - col);
        if (col < job.g.ow) job.ep.Row(row + j, std::min(seg, job.g.ow - col), channel, job.y, base + r * job.g.ow + col);
        j += seg;
      }
    }
  }

  // The direct convolution (N-D, or K beyond the GEMM's exact range), same epilogue.
  void RunDirect(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) const {
    TensorRef& y = out[0];
    int64_t m = y.shape[1];
    Epilogue ep = MakeEpilogue(in, y, m);
    Shape s;
    IntegerConv(*this, attrs_, group_, *in[size_t(slots_.x)], *in[size_t(slots_.w)], {At(in, slots_.x_zp)}, {At(in, slots_.w_zp)}, &s,
                ConvEmit([&](int64_t, int64_t o, int64_t, int64_t at, int64_t acc) {
                  int32_t a = int32_t(acc);
                  ep.Row(&a, 1, o, y, at);
                }));
  }

  Mode mode_;
  bool relu_;
  Slots slots_;
  ConvAttributes attrs_;
  int64_t group_;
  std::vector<QgemmWeights> packed_;  // per group, when the weights are constants
  // The same weights for the transposed form (quantized_conv_transposed.h) where it pays; its
  // packed_ entry then keeps only the sums and zero points the corrections need.
  std::shared_ptr<QTransposedWeights> transposed_;
};

struct ConvIntegerKernel : QuantizedConvKernel {
  ConvIntegerKernel(const Node& node, int64_t) : QuantizedConvKernel(node, Mode::kConvInteger, false) {}
};
struct QLinearConvKernel : QuantizedConvKernel {
  QLinearConvKernel(const Node& node, int64_t) : QuantizedConvKernel(node, Mode::kQLinear, false) {}
};

}  // namespace

std::unique_ptr<Kernel> MakeQdqConv(const Node& conv, bool relu) {
  return std::make_unique<QuantizedConvKernel>(conv, Mode::kQdq, relu);
}

GEBE_CPU_KERNEL("ConvInteger", ConvIntegerKernel);
GEBE_CPU_KERNEL("QLinearConv", QLinearConvKernel);

}  // namespace gebe::cpu
