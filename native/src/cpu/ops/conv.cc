// Conv (1-D, 2-D and N-D, groups, depthwise, dilations, pads, auto_pad): attribute and shape checks,
// weights packed once at load, and the choice of path: depthwise (conv_depthwise.cc), constant
// weights (conv_prepacked.cc), im2col + GEMM for weights that arrive at run time, and 3 or more
// spatial dims (conv_nd.cc). A Conv may also carry the 2×2 stride-2 MaxPool after it
// (FuseConvMaxPool), which the small-plane path pools before writing back, or the residual Add
// after it (FuseConvResidualAdd), which the constant-weight paths add in their epilogue. Kernel
// rows and columns that read only padding are dropped (TapWindow); a convolution whose taps still
// mostly read padding runs tap by tap (conv_tap_products.h).
#include <memory>
#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/conv_depthwise.h"
#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/conv_im2col.h"
#include "cpu/ops/conv_nd.h"
#include "cpu/ops/conv_prepacked.h"
#include "cpu/ops/conv_small_plane.h"
#include "cpu/ops/conv_strided.h"
#include "cpu/ops/conv_tap_products.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

// The kernel rows and columns whose taps read the image for at least one output: with a
// dilation as large as the map (DeepLab's ASPP rates 12-36 over a 14×14 map) the others read only
// padding, and the convolution of the taps left, its leading pads shrunk by what was dropped,
// gives the same values for a fraction of the work (at rate 36, a 3×3 conv becomes a 1×1).
struct TapWindow {
  int64_t kh0, kh1, kw0, kw1;

  static TapWindow Of(const Geo2& g) {
    TapWindow t;
    Range(g.ih, g.oh, g.kh, g.sh, g.dh, g.ph, &t.kh0, &t.kh1);
    Range(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw, &t.kw0, &t.kw1);
    return t;
  }
  bool Crops(const Geo2& g) const { return kh0 > 0 || kw0 > 0 || kh1 < g.kh || kw1 < g.kw; }
  Geo2 Apply(Geo2 g) const {
    g.ph -= kh0 * g.dh;
    g.pw -= kw0 * g.dw;
    g.kh = kh1 - kh0;
    g.kw = kw1 - kw0;
    return g;
  }
  bool operator==(const TapWindow& o) const { return kh0 == o.kh0 && kh1 == o.kh1 && kw0 == o.kw0 && kw1 == o.kw1; }

 private:
  // Along one dim: the taps that reach the input for some output (TapRanges) span [*k0, *k1).
  // The run never starts past pad / d, so the leading pad stays >= 0; none reaching the image
  // keeps one tap (its outputs are the bias).
  static void Range(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t p, int64_t* k0, int64_t* k1) {
    const TapRanges reach(in, out, k, s, d, p);
    *k0 = k;
    *k1 = 0;
    for (int64_t t = 0; t < k; ++t) {
      if (reach.Reaches(t)) {
        *k0 = std::min(*k0, t);
        *k1 = t + 1;
      }
    }
    const int64_t most = d > 0 ? std::min(k - 1, p / d) : 0;
    if (*k0 > most) *k0 = most;
    if (*k1 <= *k0) *k1 = *k0 + 1;
  }
};

// W restricted to a TapWindow, packed as ConvWeights, kept while the window stays the same.
class CroppedWeights {
 public:
  ConvWeights& For(const float* w, const TapWindow& taps, int64_t m, int64_t cg, const Geo2& full, int64_t groups) {
    if (source_ == w && taps_ == taps && !data_.empty()) return weights_;
    const int64_t kh = taps.kh1 - taps.kh0, kw = taps.kw1 - taps.kw0;
    data_.resize(size_t(m * cg * kh * kw));
    float* d = data_.data();
    for (int64_t r = 0; r < m * cg; ++r)
      for (int64_t i = taps.kh0; i < taps.kh1; ++i)
        for (int64_t j = taps.kw0; j < taps.kw1; ++j) *d++ = w[(r * full.kh + i) * full.kw + j];
    weights_ = ConvWeights();
    weights_.Prepare(data_.data(), groups, m / groups, cg * kh * kw);
    source_ = w;
    taps_ = taps;
    return weights_;
  }
  // The cropped W (m × cg × kh × kw of the window) that For last made.
  const float* Data() const { return data_.data(); }

 private:
  const float* source_ = nullptr;
  TapWindow taps_{};
  std::vector<float> data_;
  ConvWeights weights_;
};

class ConvKernel : public Kernel {
 public:
  ConvKernel(const Node& node, int64_t) : Kernel(node), attrs_(node), group_(node.get_int("group", 1)) {
    if (group_ <= 0) Fail("group must be positive");
  }

  // After a residual Add, the activation applies to the sum (the Relu that follows a ResNet block's Add).
  bool FuseActivation(const Activation& act) override {
    if (act_.kind != Activation::Kind::kNone || pool_) return false;
    act_ = act;
    return true;
  }

  // Only a bias and a clamp go with the pooling (conv_small_plane.h); other activations, and a
  // residual, keep the MaxPool apart.
  bool FuseMaxPool(std::unique_ptr<Kernel>* pool) override {
    using Kind = Activation::Kind;
    if (pool_ || add_ || (act_.kind != Kind::kNone && act_.kind != Kind::kRelu && act_.kind != Kind::kClip)) return false;
    pool_ = std::move(*pool);
    return true;
  }

  // The Add of this Conv's output and another tensor (input 3 from now on), before any activation.
  bool FuseResidualAdd(std::unique_ptr<Kernel>* add, bool residual_first) override {
    if (add_ || pool_ || act_.kind != Activation::Kind::kNone) return false;
    add_ = std::move(*add);
    residual_first_ = residual_first;
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
    const ConvGeometry g = Geometry(x, w);  // refuses a kernel_shape that is not W's
    out[0] = {DataType::kFloat32, OutputShape(x, w, g), nullptr};
    // The shape, and any error, the absorbed MaxPool or Add would give.
    if (pool_) {
      std::vector<TensorRef> pooled(1);
      pool_->Infer({&out[0]}, pooled);
      out[0] = pooled[0];
    }
    if (add_) {
      std::vector<TensorRef> sum(1);
      add_->Infer(AddInputs(&out[0], &Input(in, 3, "the residual")), sum);
      out[0] = sum[0];
    }
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const ConvGeometry geometry = Geometry(*in[0], *in[1]);
    Extras extras{&act_};
    extras.pool_2x2 = pool_ != nullptr;
    if (!pool_ && !add_) {
      Convolve(in, geometry, out[0].as<float>(), extras, ctx);
      return;
    }
    const Shape shape = OutputShape(*in[0], *in[1], geometry);
    const TensorRef* residual = add_ ? in[3] : nullptr;
    // A residual of the Conv output's own shape and type is added in the epilogue; broadcasting
    // (either way: the Conv's output may be the smaller one) is the Add's.
    if (residual && residual->dtype == DataType::kFloat32 && residual->shape == shape) extras.residual = residual->as<const float>();
    if ((!add_ || extras.residual) && Convolve(in, geometry, out[0].as<float>(), extras, ctx)) return;
    // Where the convolution's path cannot pool or add: the whole output (the activation held back
    // when it follows an Add), then the MaxPool's or the Add's own kernel, then the activation.
    TensorRef full{DataType::kFloat32, shape, nullptr};
    // Up to 9 times the pooled output the planner checked: the same cap applies to it.
    if (full.bytes() > ctx.max_tensor_bytes) {
      Fail("its output before the " + std::string(pool_ ? "MaxPool" : "Add") + " it absorbed, of shape " + ShapeToString(full.shape) +
           ", needs " + std::to_string(full.bytes()) + " bytes, above the memory cap of " + std::to_string(ctx.max_tensor_bytes) +
           " (SessionOptions.max_tensor_bytes)");
    }
    if (unfused_.size() < full.bytes()) unfused_ = AlignedBuffer(full.bytes());
    full.data = unfused_.data();
    const Activation none;
    Convolve(in, geometry, full.as<float>(), Extras{add_ ? &none : &act_}, ctx);
    if (pool_) return pool_->Run({&full}, out, ctx);
    add_->Run(AddInputs(&full, residual), out, ctx);
    act_.Apply(out[0].as<float>(), out[0].count());
  }

 private:
  ConvGeometry Geometry(const TensorRef& x, const TensorRef& w) const {
    return ResolveGeometry(*this, attrs_, Shape(x.shape.begin() + 2, x.shape.end()), Shape(w.shape.begin() + 2, w.shape.end()));
  }

  // Y's shape: the batch, W's output channels, then the spatial dims of `g` (from Geometry(x, w)).
  static Shape OutputShape(const TensorRef& x, const TensorRef& w, const ConvGeometry& g) {
    Shape s = {x.shape[0], w.shape[0]};
    s.insert(s.end(), g.out.begin(), g.out.end());
    return s;
  }

  // What goes with the convolution: its activation, and at most one of a 2×2 stride-2 max pool of
  // it and a residual (of y's shape) added before the activation.
  struct Extras {
    const Activation* act;
    bool pool_2x2 = false;
    const float* residual = nullptr;
  };

  std::vector<const TensorRef*> AddInputs(const TensorRef* conv, const TensorRef* residual) const {
    return residual_first_ ? std::vector<const TensorRef*>{residual, conv} : std::vector<const TensorRef*>{conv, residual};
  }

  // The convolution into y, with `extras`. Where the path the geometry takes cannot do a pool or
  // residual asked for (the pool: only the small-plane path; the residual: constant weights, 2-D,
  // not depthwise), returns false having done nothing.
  bool Convolve(const std::vector<const TensorRef*>& in, const ConvGeometry& geometry, float* py, const Extras& extras,
                const RunContext& ctx) {
    const bool pool_2x2 = extras.pool_2x2, plain = !pool_2x2 && !extras.residual;
    const Activation& act = *extras.act;
    const TensorRef &x = *in[0], &w = *in[1];
    const float* bias = in.size() > 2 && in[2] ? in[2]->as<const float>() : nullptr;
    int64_t n = x.shape[0], c = x.shape[1], m = w.shape[0];
    if (geometry.spatial > 2) {
      if (!plain) return false;
      ConvNdArgs nd;
      nd.x = x.as<const float>();
      nd.w = w.as<const float>();
      nd.bias = bias;
      nd.y = py;
      nd.n = n;
      nd.c = c;
      nd.m = m;
      nd.groups = group_;
      nd.g = &geometry;
      nd.act = &act;
      if (weights_.Holds(nd.w)) nd.packed = &weights_.Panels();
      ConvNd(nd, ctx);
      return true;
    }
    Geo2 g = To2D(geometry);
    const int64_t cg = c / group_, mg = m / group_;
    int64_t ohw = g.oh * g.ow, ihw = g.ih * g.iw, kdim = cg * g.kh * g.kw;
    const float* px = x.as<const float>();
    const float* pw = w.as<const float>();
    if (cg == 1 && group_ == c && c > 1) {
      if (!plain) return false;
      Depthwise(px, pw, bias, py, n * m, c, mg, g, act, ctx.pool);
      return true;
    }
    // A 1×1 stride-1 unpadded conv reads the input as the GEMM's B in place.
    auto is_pointwise = [](const Geo2& k) {
      return k.kh == 1 && k.kw == 1 && k.sh == 1 && k.sw == 1 && k.ph == 0 && k.pw == 0 && k.oh == k.ih && k.ow == k.iw;
    };
    bool pointwise = is_pointwise(g);
    if (weights_.Holds(pw)) {
      ConvWeights* weights = &weights_;
      const TapWindow taps = TapWindow::Of(g);
      const bool cropped = taps.Crops(g);
      if (cropped) {
        g = taps.Apply(g);
        weights = &cropped_.For(pw, taps, mg * group_, cg, To2D(geometry), group_);
        pointwise = is_pointwise(g);
      }
      if (pool_2x2 && !SmallPlanePays(g, cg, mg, group_)) return false;
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
      args.act = &act;
      args.weights = weights;
      args.pool_2x2 = pool_2x2;
      args.residual = extras.residual;
      if (!pool_2x2 && !cropped && StridedDirectPays(g, cg, mg)) {
        RunStridedDirect(args, pw, &strided_weights_, ctx);
        return true;
      }
      if (!pool_2x2 && TapProductsPay(g, cg, mg)) {
        RunTapProducts(args, cropped ? cropped_.Data() : pw, &tap_weights_, ctx);
        return true;
      }
      RunPrepackedConv(args, ctx);
      return true;
    }
    if (!plain) return false;
    float* col = pointwise ? nullptr : ctx.scratch->Floats(size_t(kdim * ohw));
    ThreadPool* pool = PoolForProduct(mg * ohw * kdim, ctx.pool);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t gi = 0; gi < group_; ++gi) {
        const float* xg = px + (b * c + gi * cg) * ihw;
        const float* src = xg;
        if (!pointwise) {
          Im2Col(xg, cg, g, col, pool);
          src = col;
        }
        float* yg = py + (b * m + gi * mg) * ohw;
        Sgemm(false, false, mg, ohw, kdim, 1.f, pw + gi * mg * kdim, kdim, src, ohw, 0.f, yg, ohw, pool);
      }
    }
    if (bias || act.kind != Activation::Kind::kNone) {
      ctx.pool->ParallelFor(n * m, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, ohw)), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          float* row = py + r * ohw;
          if (bias) {
            float bv = bias[r % m];
            for (int64_t i = 0; i < ohw; ++i) row[i] += bv;
          }
          act.Apply(row, ohw);
        }
      });
    }
    return true;
  }

  ConvAttributes attrs_;
  int64_t group_;
  Activation act_;
  ConvWeights weights_;  // when W is a constant
  CroppedWeights cropped_;  // W's taps that read the image, when the others read only padding
  TapWeights tap_weights_;  // W (or its cropped taps) one tap at a time, when im2col would be mostly padding
  StridedWeights strided_weights_;  // W by blocks of 16 output channels, for the direct stride-2 path
  // A MaxPool absorbed by FuseConvMaxPool, or an Add by FuseConvResidualAdd (its other input
  // first when residual_first_): their kernels give the shape, and pool or add where the
  // convolution's path cannot, from unfused_ (a session runs on one thread at a time).
  std::unique_ptr<Kernel> pool_, add_;
  bool residual_first_ = false;
  AlignedBuffer unfused_;
};

}  // namespace

GEBE_CPU_KERNEL("Conv", ConvKernel);

}  // namespace gebe::cpu
