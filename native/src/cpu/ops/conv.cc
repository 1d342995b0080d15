// Conv (1-D, 2-D and N-D, groups, depthwise, dilations, pads, auto_pad): attribute and shape checks,
// weights packed once at load, and the choice of path: depthwise (conv_depthwise.cc), constant
// weights (conv_prepacked.cc), im2col + GEMM for weights that arrive at run time, and 3 or more
// spatial dims (conv_nd.cc).
#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/conv_depthwise.h"
#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/conv_im2col.h"
#include "cpu/ops/conv_nd.h"
#include "cpu/ops/conv_prepacked.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

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
  // which do not use GEMM, nor for 1-D/2-D groups thinner than a micro-kernel, nor beyond 3-D).
  void PrepareConstants(const std::vector<const TensorRef*>& constants) override {
    const TensorRef* w = constants.size() > 1 ? constants[1] : nullptr;
    if (!w || w->dtype != DataType::kFloat32 || w->rank() < 3 || w->rank() > 5 || w->shape[0] % group_ != 0) return;
    int64_t mg = w->shape[0] / group_, kdim = w->count() / std::max<int64_t>(1, w->shape[0]);
    if (w->shape[1] == 1 && group_ > 1) return;
    if (mg < gemm_detail::kMR && w->rank() < 5) return;  // 3-D convs have no thin-A path of their own
    weights_.Prepare(w->as<const float>(), group_, mg, kdim);
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& w = Input(in, 1, "W");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(w, "W", {DataType::kFloat32});
    if (x.rank() < 3) Fail("X must have a batch, a channel and at least one spatial dim; it has shape " + ShapeToString(x.shape));
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
    int64_t n = x.shape[0], c = x.shape[1], m = w.shape[0];
    if (geometry.spatial > 2) {
      ConvNdArgs nd;
      nd.x = x.as<const float>();
      nd.w = w.as<const float>();
      nd.bias = bias;
      nd.y = out[0].as<float>();
      nd.n = n;
      nd.c = c;
      nd.m = m;
      nd.groups = group_;
      nd.g = &geometry;
      nd.act = &act_;
      if (weights_.Holds(nd.w)) nd.packed = &weights_.Panels();
      ConvNd(nd, ctx);
      return;
    }
    Geo2 g = To2D(geometry);
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
    if (weights_.Holds(pw)) {
      PrepackedConvArgs args;
      args.x = px;
      args.bias = bias;
      args.y = py;
      args.n = n;
      args.c = c;
      args.m = m;
      args.groups = group_;
      args.g = g;
      args.pointwise = pointwise;
      args.act = &act_;
      args.weights = &weights_;
      RunPrepackedConv(args, ctx);
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
        Sgemm(false, false, mg, ohw, kdim, 1.f, pw + gi * mg * kdim, kdim, src, ohw, 0.f, yg, ohw, ctx.pool);
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
  ConvAttributes attrs_;
  int64_t group_;
  Activation act_;
  ConvWeights weights_;  // when W is a constant
};

}  // namespace

GEBE_CPU_KERNEL("Conv", ConvKernel);

}  // namespace gebe::cpu
