// MaxPool on 8-bit values for the QDQ fusion (DQ → MaxPool → Q with one scale and zero point,
// ../qdq_fusion.cc): a 1-D or 2-D window maximum straight on the UINT8/INT8 data, with no FP32
// round trip. Positions in the padding never win (they are skipped, as -inf would be).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/quantized_conv.h"
#include "cpu/gemm/sgemm.h"

namespace gebe::cpu {

namespace {

class QuantizedMaxPoolKernel : public Kernel {
 public:
  explicit QuantizedMaxPoolKernel(const Node& node) : Kernel(node), attrs_(node), ceil_mode_(node.get_int("ceil_mode", 0) != 0) {
    if (attrs_.kernel.empty()) Fail("kernel_shape is required");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kUInt8, DataType::kInt8});
    if (x.rank() != 3 && x.rank() != 4) Fail("X must be [N, C, W] or [N, C, H, W]");
    ConvGeometry g = Geometry(x);
    Shape s = {x.shape[0], x.shape[1]};
    s.insert(s.end(), g.out.begin(), g.out.end());
    out[0] = {x.dtype, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    if (in[0]->dtype == DataType::kUInt8) Pool<uint8_t>(*in[0], out[0], ctx);
    else Pool<int8_t>(*in[0], out[0], ctx);
  }

 private:
  ConvGeometry Geometry(const TensorRef& x) const {
    return ResolveGeometry(*this, attrs_, Shape(x.shape.begin() + 2, x.shape.end()), {}, ceil_mode_);
  }

  template <typename T>
  void Pool(const TensorRef& x, TensorRef& y, const RunContext& ctx) const {
    ConvGeometry g = Geometry(x);
    bool two = g.spatial == 2;
    int64_t ih = two ? g.in[0] : 1, iw = g.in.back(), oh = two ? g.out[0] : 1, ow = g.out.back();
    int64_t kh = two ? g.kernel[0] : 1, kw = g.kernel.back(), sh = two ? g.stride[0] : 1, sw = g.stride.back();
    int64_t dh = two ? g.dilation[0] : 1, dw = g.dilation.back(), ph = two ? g.pad_begin[0] : 0, pw = g.pad_begin.back();
    int64_t planes = x.shape[0] * x.shape[1];
    const T* px = x.as<const T>();
    T* py = y.as<T>();
    // The window's taps inside the input, per output row and per output column: [lo, hi).
    auto inside = [](int64_t o, int64_t stride, int64_t pad, int64_t dil, int64_t taps, int64_t size) {
      int64_t lo = 0, hi = taps;
      while (lo < hi && o * stride - pad + lo * dil < 0) ++lo;
      while (hi > lo && o * stride - pad + (hi - 1) * dil >= size) --hi;
      return std::pair<int64_t, int64_t>(lo, hi);
    };
    std::vector<std::pair<int64_t, int64_t>> rows(static_cast<size_t>(oh)), cols(static_cast<size_t>(ow));
    for (int64_t r = 0; r < oh; ++r) rows[size_t(r)] = inside(r, sh, ph, dh, kh, ih);
    for (int64_t c = 0; c < ow; ++c) cols[size_t(c)] = inside(c, sw, pw, dw, kw, iw);
    bool pair_columns = kw == 2 && sw == 2 && dw == 1 && pw == 0 && 2 * ow <= iw;
    bool three_wide = kw == 3 && sw == 2 && dw == 1;
    // Separable: the maximum over the window's rows (contiguous, vectorised), then over its columns.
    // Split by output rows, one contiguous range per thread across every plane, as the convolutions
    // around it split positions (ParallelForContiguous): each thread reads the input rows the
    // convolution before wrote on that thread.
    ParallelForContiguous(ctx.pool, oh, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t plane = 0; plane < planes; ++plane)
        PoolPlane(px + plane * ih * iw, ih, iw, r0, r1, ow, sh, ph, dh, sw, pw, dw, rows.data(), cols.data(), pair_columns,
                  three_wide, py + plane * oh * ow);
    });
  }

  // Output rows [r_begin, r_end) of one plane. Everything arrives by value: T is a char type, which
  // may alias a lambda's captures, so stores through it would make the compiler reload them on
  // every iteration and not vectorise.
  template <typename T>
  static void PoolPlane(const T* src, int64_t ih, int64_t iw, int64_t r_begin, int64_t r_end, int64_t ow, int64_t sh,
                        int64_t ph, int64_t dh, int64_t sw, int64_t pw, int64_t dw, const std::pair<int64_t, int64_t>* rows,
                        const std::pair<int64_t, int64_t>* cols, bool pair_columns, bool three_wide, T* dst) {
    // The row maxima with the column padding around them as the type's minimum (what QuantizeLinear
    // makes of an all-padding window's -inf, and no tap's winner otherwise).
    const int64_t span = std::max(iw + pw, (ow - 1) * sw + 2 * dw + 1);  // 3×3 reads up to (ow-1)·sw + 2·dw
    thread_local std::vector<T> line;
    line.assign(size_t(span), std::numeric_limits<T>::min());
    T* ln = line.data() + pw;
    const T* padded = line.data();
    for (int64_t r = r_begin; r < r_end; ++r) {
      const int64_t a0 = rows[r].first, a1 = rows[r].second;
      std::fill(ln, ln + iw, std::numeric_limits<T>::min());
      for (int64_t a = a0; a < a1; ++a) {
        const T* in_row = src + (r * sh - ph + a * dh) * iw;
        for (int64_t i = 0; i < iw; ++i) ln[i] = ln[i] > in_row[i] ? ln[i] : in_row[i];
      }
      T* out = dst + r * ow;
      if (pair_columns) {  // 2-wide, stride 2, inside the row: a loop the compiler vectorises
        for (int64_t c = 0; c < ow; ++c) out[c] = ln[2 * c] > ln[2 * c + 1] ? ln[2 * c] : ln[2 * c + 1];
        continue;
      }
      if (three_wide) {  // 3-wide, stride 2 (ResNet's stem pool), over the padded row
        for (int64_t c = 0; c < ow; ++c) {
          T m = padded[2 * c] > padded[2 * c + 1] ? padded[2 * c] : padded[2 * c + 1];
          out[c] = m > padded[2 * c + 2] ? m : padded[2 * c + 2];
        }
        continue;
      }
      for (int64_t c = 0; c < ow; ++c) {
        const int64_t b0 = cols[c].first, b1 = cols[c].second, base = c * sw - pw;
        T best = std::numeric_limits<T>::min();
        for (int64_t b = b0; b < b1; ++b) best = best > ln[base + b * dw] ? best : ln[base + b * dw];
        out[c] = best;
      }
    }
  }

  ConvAttributes attrs_;
  bool ceil_mode_;
};

}  // namespace

std::unique_ptr<Kernel> MakeQuantizedMaxPool(const Node& pool) { return std::make_unique<QuantizedMaxPoolKernel>(pool); }

}  // namespace gebe::cpu
