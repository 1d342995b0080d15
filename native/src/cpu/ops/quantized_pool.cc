// MaxPool on 8-bit values for the QDQ fusion (DQ → MaxPool → Q with one scale and zero point,
// ../qdq_fusion.cc): a 1-D or 2-D window maximum straight on the UINT8/INT8 data, with no FP32
// round trip. Positions in the padding never win (they are skipped, as -inf would be).
#include <algorithm>
#include <limits>

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
    ForEachClaimed(ctx.pool, planes, [&](int64_t plane) {
      const T* src = px + plane * ih * iw;
      T* dst = py + plane * oh * ow;
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t c = 0; c < ow; ++c) {
          // The type's minimum: what QuantizeLinear makes of an all-padding window's -inf.
          int32_t best = std::numeric_limits<T>::min();
          for (int64_t a = 0; a < kh; ++a) {
            int64_t y0 = r * sh - ph + a * dh;
            if (y0 < 0 || y0 >= ih) continue;
            for (int64_t b = 0; b < kw; ++b) {
              int64_t x0 = c * sw - pw + b * dw;
              if (x0 >= 0 && x0 < iw) best = std::max<int32_t>(best, src[y0 * iw + x0]);
            }
          }
          dst[r * ow + c] = T(best);
        }
    });
  }

  ConvAttributes attrs_;
  bool ceil_mode_;
};

}  // namespace

std::unique_ptr<Kernel> MakeQuantizedMaxPool(const Node& pool) { return std::make_unique<QuantizedMaxPoolKernel>(pool); }

}  // namespace gebe::cpu
