// Integer-arithmetic operators of quantised models (onnxruntime.quantization's QOperator and
// dynamic formats): DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, and the direct N-D
// integer convolution that QLinearConv and ConvInteger (quantized_conv.cc) fall back to.
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
    float scale = (hi - lo) / 255.f;
    float zp = scale == 0 ? 0.f : std::fmin(255.f, std::fmax(0.f, std::nearbyint(-lo / scale)));
    for (int64_t i = 0; i < x.count(); ++i) Saturate(out[0], i, scale == 0 ? zp : std::nearbyint(px[i] / scale) + zp);
    if (out.size() > 1 && out[1].data) out[1].as<float>()[0] = scale;
    if (out.size() > 2 && out[2].data) out[2].as<uint8_t>()[0] = uint8_t(zp);
  }
};

// Shared by MatMulInteger and QLinearMatMul: numpy matmul shapes with broadcast batch dims.
struct MatMulShape {
  Shape out;
  int64_t m = 0, k = 0, n = 0, batches = 0;
  std::vector<int64_t> a_batch, b_batch;  // per output batch: offset (in matrices) into A and B
};

MatMulShape ResolveMatMul(const Kernel& kernel, const Shape& a_in, const Shape& b_in) {
  Shape a = a_in, b = b_in;
  if (a.empty() || b.empty()) throw EngineError(kernel.node().label() + ": inputs must have rank 1 or more");
  bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulShape r;
  r.m = a[a.size() - 2];
  r.k = a.back();
  r.n = b.back();
  if (b[b.size() - 2] != r.k) {
    throw EngineError(kernel.node().label() + ": shapes " + ShapeToString(a_in) + " and " + ShapeToString(b_in) + " cannot be multiplied");
  }
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Shape batch = BroadcastShapes(kernel, ab, bb);
  r.batches = ElementCount(batch);
  auto sa = BroadcastStrides(ab, batch), sb = BroadcastStrides(bb, batch);
  for (int64_t i = 0; i < r.batches; ++i) {
    int64_t rem = i, oa = 0, ob = 0;
    for (size_t d = batch.size(); d-- > 0;) {
      oa += (rem % batch[d]) * sa[d];
      ob += (rem % batch[d]) * sb[d];
      rem /= batch[d];
    }
    r.a_batch.push_back(oa);
    r.b_batch.push_back(ob);
  }
  r.out = batch;
  if (!a_vec) r.out.push_back(r.m);
  if (!b_vec) r.out.push_back(r.n);
  return r;
}

// acc[b, i, j] = Σ_k (A[b, i, k] - azp[i]) (B[b, k, j] - bzp[j]), then `emit(b, i, j, acc)`.
template <typename Emit>
void IntegerMatMul(const MatMulShape& s, const TensorRef& a, const TensorRef& b, PerIndex azp, PerIndex bzp, Emit emit) {
  for (int64_t bt = 0; bt < s.batches; ++bt) {
    int64_t a0 = s.a_batch[size_t(bt)] * s.m * s.k, b0 = s.b_batch[size_t(bt)] * s.k * s.n;
    for (int64_t i = 0; i < s.m; ++i) {
      int32_t za = int32_t(azp.At(i));
      for (int64_t j = 0; j < s.n; ++j) {
        int32_t zb = int32_t(bzp.At(j));
        int64_t acc = 0;
        for (int64_t kk = 0; kk < s.k; ++kk) acc += int64_t(Int8At(a, a0 + i * s.k + kk) - za) * (Int8At(b, b0 + kk * s.n + j) - zb);
        emit(bt, i, j, acc);
      }
    }
  }
}

class MatMulIntegerKernel : public Kernel {
 public:
  MatMulIntegerKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& a = Input(in, 0, "A");
    const TensorRef& b = Input(in, 1, "B");
    ExpectType(a, "A", {DataType::kUInt8, DataType::kInt8});
    ExpectType(b, "B", {DataType::kUInt8, DataType::kInt8});
    out[0] = {DataType::kInt32, ResolveMatMul(*this, a.shape, b.shape).out, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    MatMulShape s = ResolveMatMul(*this, in[0]->shape, in[1]->shape);
    PerIndex azp{in.size() > 2 ? in[2] : nullptr}, bzp{in.size() > 3 ? in[3] : nullptr};
    int32_t* po = out[0].as<int32_t>();
    IntegerMatMul(s, *in[0], *in[1], azp, bzp, [&](int64_t bt, int64_t i, int64_t j, int64_t acc) {
      po[(bt * s.m + i) * s.n + j] = int32_t(acc);
    });
  }
};

class QLinearMatMulKernel : public Kernel {
 public:
  QLinearMatMulKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& a = Input(in, 0, "a");
    const TensorRef& b = Input(in, 3, "b");
    const TensorRef& yzp = Input(in, 7, "y_zero_point");
    ExpectType(a, "a", {DataType::kUInt8, DataType::kInt8});
    ExpectType(b, "b", {DataType::kUInt8, DataType::kInt8});
    ExpectType(yzp, "y_zero_point", {DataType::kUInt8, DataType::kInt8});
    for (size_t i : {size_t(1), size_t(4), size_t(6)}) ExpectType(Input(in, i, "scale"), "scale", {DataType::kFloat32});
    out[0] = {yzp.dtype, ResolveMatMul(*this, a.shape, b.shape).out, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    MatMulShape s = ResolveMatMul(*this, in[0]->shape, in[3]->shape);
    PerIndex as{in[1]}, azp{in[2]}, bs{in[4]}, bzp{in[5]}, ys{in[6]}, yzp{in[7]};
    Requantizer rq(out[0].dtype, int32_t(yzp.At(0)));
    IntegerMatMul(s, *in[0], *in[3], azp, bzp, [&](int64_t bt, int64_t i, int64_t j, int64_t acc) {
      // The scale in FP32, a_scale · b_scale / y_scale, as ONNX Runtime computes it.
      Store8(out[0], (bt * s.m + i) * s.n + j, rq(float(acc) * (as.Float(i) * bs.Float(j) / ys.Float(0))));
    });
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
GEBE_CPU_KERNEL("MatMulInteger", MatMulIntegerKernel);
GEBE_CPU_KERNEL("QLinearMatMul", QLinearMatMulKernel);

}  // namespace gebe::cpu
