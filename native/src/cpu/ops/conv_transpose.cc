// ConvTranspose (1-D, 2-D and N-D (conv_nd.cc), groups, output_padding / output_shape, auto_pad): Y = col2im(W^T · X) + B.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/conv_nd.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

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
    if (x.rank() < 3) Fail("X must have a batch, a channel and at least one spatial dim; it has shape " + ShapeToString(x.shape));
    if (w.rank() != x.rank() || w.shape[0] != x.shape[1]) Fail("W " + ShapeToString(w.shape) + " does not match X " + ShapeToString(x.shape));
    if (x.shape[1] % group_ != 0) Fail("X's " + std::to_string(x.shape[1]) + " channels do not split into " + std::to_string(group_) + " groups");
    if (in.size() > 2 && in[2]) {
      ExpectType(*in[2], "B", {DataType::kFloat32});
      if (in[2]->rank() != 1 || in[2]->count() != w.shape[1] * group_) {
        Fail("B " + ShapeToString(in[2]->shape) + " must have " + std::to_string(w.shape[1] * group_) + " elements");
      }
    }
    Resolve(x, w);
    Shape s = {x.shape[0], w.shape[1] * group_};
    s.insert(s.end(), out_.begin(), out_.end());
    out[0] = {DataType::kFloat32, s, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &x = *in[0], &w = *in[1];
    Resolve(x, w);
    if (x.rank() > 4) {
      RunNd(x, w, in.size() > 2 && in[2] ? in[2]->as<const float>() : nullptr, out[0].as<float>(), ctx);
      return;
    }
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
    ThreadPool* pool = PoolForProduct(kdim * ihw * cg, ctx.pool);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t gi = 0; gi < group_; ++gi) {
        // col[kdim, ihw] = W_g^T [kdim, cg] · X_g [cg, ihw]
        Sgemm(true, false, kdim, ihw, cg, 1.f, w.as<const float>() + gi * cg * kdim, kdim,
              x.as<const float>() + (b * c + gi * cg) * ihw, ihw, 0.f, col, ihw, pool);
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
  void RunNd(const TensorRef& x, const TensorRef& w, const float* bias, float* y, const RunContext& ctx) const {
    ConvGeometry g;
    g.spatial = int(x.rank() - 2);
    g.in.assign(x.shape.begin() + 2, x.shape.end());
    g.out = out_;
    g.kernel = kernel_;
    g.stride = stride_;
    g.dilation = dilation_;
    g.pad_begin = pad_begin_;
    ConvNdArgs nd;
    nd.x = x.as<const float>();
    nd.w = w.as<const float>();
    nd.bias = bias;
    nd.y = y;
    nd.n = x.shape[0];
    nd.c = x.shape[1];
    nd.m = w.shape[1] * group_;
    nd.groups = group_;
    nd.g = &g;
    ConvTransposeNd(nd, ctx);
  }

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
    CheckKernelMatchesWeights(*this, kernel_, Shape(w.shape.begin() + 2, w.shape.end()));
    CheckPositiveWindow(*this, kernel_, stride_, dilation_);
    pad_begin_.assign(s, 0);
    out_.assign(s, 0);
    for (size_t i = 0; i < s; ++i) {
      int64_t in_dim = x.shape[2 + i];
      int64_t ext = dilation_[i] * (kernel_[i] - 1) + 1;
      int64_t full = stride_[i] * (in_dim - 1) + opad[i] + ext;
      if (!output_shape_.empty()) {
        if (output_shape_.size() != s && output_shape_.size() != s + 2) Fail("output_shape must list the spatial dims");
        out_[i] = output_shape_[output_shape_.size() - s + i];
        // As ONNX says and ONNX Runtime does: an output_shape past the full extent pads zeros at the end.
        pad_begin_[i] = PadBegin(attrs_.auto_pad, std::max<int64_t>(full - out_[i], 0));
      } else if (attrs_.auto_pad == "SAME_UPPER" || attrs_.auto_pad == "SAME_LOWER") {
        out_[i] = in_dim * stride_[i];
        pad_begin_[i] = PadBegin(attrs_.auto_pad, full - out_[i]);
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

GEBE_CPU_KERNEL("ConvTranspose", ConvTransposeKernel);

}  // namespace gebe::cpu
