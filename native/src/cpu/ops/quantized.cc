// Integer-arithmetic operators of quantised models (onnxruntime.quantization's QOperator and
// dynamic formats): DynamicQuantizeLinear here, and the direct N-D integer convolution that
// QLinearConv and ConvInteger (quantized_conv.cc) fall back to; the MatMuls: quantized_matmul.cc.
// Accumulation is exact (int64); requantisation is ONNX Runtime's (FP32 scale, half to even, saturated).
#include <cmath>
#include <cstring>
#include <functional>

#include "cpu/ops/quantized.h"

namespace gebe::cpu {

namespace {

void Saturate(TensorRef& y, int64_t i, double v) {
  v = std::nearbyint(v);
  if (y.dtype == DataType::kUInt8) y.as<uint8_t>()[i] = uint8_t(std::fmin(255.0, std::fmax(0.0, v)));
  else y.as<int8_t>()[i] = int8_t(std::fmin(127.0, std::fmax(-128.0, v)));
}

class DynamicQuantizeLinearKernel : public Kernel {
 public:
  DynamicQuantizeLinearKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "x");
    ExpectType(x, "x", {DataType::kFloat32});
    out[0] = {DataType::kUInt8, x.shape, nullptr};
    if (out.size() > 1) out[1] = {DataType::kFloat32, {}, nullptr};
    if (out.size() > 2) out[2] = {DataType::kUInt8, {}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef& x = *in[0];
    const float* px = x.as<const float>();
    float lo = 0, hi = 0;
    for (int64_t i = 0; i < x.count(); ++i) {
      lo = std::fmin(lo, px[i]);
      hi = std::fmax(hi, px[i]);
    }
    // All zeros, or empty: the range is 0 (or underflows to it). ONNX Runtime then reports a scale
    // of 1, as here: y and the zero point are 0 either way, and a consumer that divides by the
    // scale has something to divide by.
    float scale = (hi - lo) / 255.f;
    if (!(scale > 0)) scale = 1.f;
    const float zp = std::fmin(255.f, std::fmax(0.f, std::nearbyint(-lo / scale)));
    for (int64_t i = 0; i < x.count(); ++i) Saturate(out[0], i, std::nearbyint(px[i] / scale) + zp);
    if (out.size() > 1 && out[1].data) out[1].as<float>()[0] = scale;
    if (out.size() > 2 && out[2].data) out[2].as<uint8_t>()[0] = uint8_t(zp);
  }
};

}  // namespace

// Direct integer convolution over any number of spatial dims (groups, strides, dilations, pads).
void IntegerConv(const Kernel& k, const ConvAttributes& attrs, int64_t group, const TensorRef& x, const TensorRef& w,
                 PerIndex xzp, PerIndex wzp, Shape* out_shape, const ConvEmit& emit) {
  if (x.rank() < 3 || w.rank() != x.rank()) throw EngineError(k.node().label() + ": X and W must be [N, C, spatial...] of the same rank");
  int64_t n = x.shape[0], c = x.shape[1], oc = w.shape[0], icg = w.shape[1];
  if (group <= 0 || c != icg * group || oc % group) throw EngineError(k.node().label() + ": channels do not match group");
  std::vector<int64_t> in_sp(x.shape.begin() + 2, x.shape.end()), k_sp(w.shape.begin() + 2, w.shape.end());
  ConvGeometry g = ResolveGeometry(k, attrs, in_sp, k_sp);
  *out_shape = {n, oc};
  out_shape->insert(out_shape->end(), g.out.begin(), g.out.end());
  if (!emit) return;
  size_t sd = in_sp.size();
  int64_t out_sp = ElementCount(g.out), k_count = ElementCount(g.kernel), in_count = ElementCount(g.in);
  int32_t zx = int32_t(xzp.At(0));
  std::vector<int64_t> o_idx(sd), k_idx(sd);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < oc; ++o) {
      int64_t grp = o / (oc / group);
      int32_t zw = int32_t(wzp.At(o));
      for (int64_t p = 0; p < out_sp; ++p) {
        int64_t rem = p;
        for (size_t d = sd; d-- > 0;) { o_idx[d] = rem % g.out[d]; rem /= g.out[d]; }
        int64_t acc = 0;
        for (int64_t ci = 0; ci < icg; ++ci) {
          int64_t ch = grp * icg + ci;
          for (int64_t t = 0; t < k_count; ++t) {
            int64_t r2 = t, off = 0;
            bool inside = true;
            for (size_t d = sd; d-- > 0;) {
              k_idx[d] = r2 % g.kernel[d];
              r2 /= g.kernel[d];
            }
            for (size_t d = 0; d < sd && inside; ++d) {
              int64_t pos = o_idx[d] * g.stride[d] - g.pad_begin[d] + k_idx[d] * g.dilation[d];
              inside = pos >= 0 && pos < g.in[d];
              off = off * g.in[d] + pos;
            }
            int32_t xv = inside ? Int8At(x, (b * c + ch) * in_count + off) : zx;  // padding is the zero point
            acc += int64_t(xv - zx) * (Int8At(w, (o * icg + ci) * k_count + t) - zw);
          }
        }
        emit(b, o, p, (b * oc + o) * out_sp + p, acc);
      }
    }
}

GEBE_CPU_KERNEL("DynamicQuantizeLinear", DynamicQuantizeLinearKernel);

}  // namespace gebe::cpu
