// Normalisations: BatchNormalization (inference), InstanceNormalization, LayerNormalization,
// GroupNormalization, LpNormalization.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/ops/op_util.h"
#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

namespace {

// Mean and (population) variance of one row, accumulated in double: Instance- and
// GroupNormalization's statistics over a channel or a group.
struct RowMoments {
  double mean = 0, var = 0;
};

// (One chain of double adds waited on each add: a 64 × 128 × 128 InstanceNormalization took
// 2.4 ms, ONNX Runtime 0.33.)
RowMoments MomentsOf(const float* xs, int64_t size) {
  RowMoments m;
  m.mean = SumRow(xs, size) / double(size);
  m.var = SumSquaredDeviations(xs, size, m.mean) / double(size);
  return m;
}

class BatchNormKernel : public Kernel {
 public:
  BatchNormKernel(const Node& node, int64_t) : Kernel(node), epsilon_(node.get_float("epsilon", 1e-5f)) {
    if (node.get_int("training_mode", 0) != 0) Fail("training_mode=1 is not supported; the cpu engine runs inference only");
    if (node.outputs.size() > 1) {
      for (size_t i = 1; i < node.outputs.size(); ++i)
        if (!node.outputs[i].empty()) Fail("training outputs (running mean/var) are not supported");
    }
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kFloat32});
    if (x.rank() < 2) Fail("X must have a channel dimension; shape " + ShapeToString(x.shape));
    const char* names[] = {"scale", "B", "mean", "var"};
    for (size_t i = 1; i < 5; ++i) {
      const TensorRef& p = Input(in, i, names[i - 1]);
      ExpectType(p, names[i - 1], {DataType::kFloat32});
      if (p.count() != x.shape[1]) Fail(std::string(names[i - 1]) + " " + ShapeToString(p.shape) + " must have one value per channel (" + std::to_string(x.shape[1]) + ")");
    }
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    int64_t n = x.shape[0], c = x.shape[1], size = SizeFrom(x.shape, 2);
    const float *scale = in[1]->as<const float>(), *bias = in[2]->as<const float>(), *mean = in[3]->as<const float>(),
                *var = in[4]->as<const float>();
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    ctx.pool->ParallelFor(n * c, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, size)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t ch = r % c;
        float s = scale[ch] / std::sqrt(var[ch] + epsilon_);
        float b = bias[ch] - mean[ch] * s;
        const float* xr = px + r * size;
        float* yr = py + r * size;
        if (act_.kind == Activation::Kind::kRelu) {
          // Relu's rule (x > 0 ? x : 0, NaN to 0) in the same loop: no second pass, and no call
          // per plane on DenseNet's 7 × 7 maps of a thousand channels.
          for (int64_t i = 0; i < size; ++i) {
            const float v = xr[i] * s + b;
            yr[i] = v > 0 ? v : 0.f;
          }
          continue;
        }
        for (int64_t i = 0; i < size; ++i) yr[i] = xr[i] * s + b;
        if (act_.kind != Activation::Kind::kNone) act_.Apply(yr, size);
      }
    });
  }

  // A following activation (DenseNet's and pre-activation ResNets' BatchNormalization → Relu
  // after a Concat or Add, where the normalisation cannot fold into a Conv) applied to each
  // plane while it is in cache, instead of another pass over the tensor.
  bool FuseActivation(const Activation& act) override {
    if (act_.kind != Activation::Kind::kNone) return false;
    act_ = act;
    return true;
  }

 private:
  float epsilon_;
  Activation act_;
};

class InstanceNormKernel : public Kernel {
 public:
  InstanceNormKernel(const Node& node, int64_t) : Kernel(node), epsilon_(node.get_float("epsilon", 1e-5f)) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    ExpectType(x, "input", {DataType::kFloat32});
    if (x.rank() < 3) Fail("input must have rank 3 or more; shape " + ShapeToString(x.shape));
    ExpectType(Input(in, 1, "scale"), "scale", {DataType::kFloat32});
    ExpectType(Input(in, 2, "B"), "B", {DataType::kFloat32});
    if (Input(in, 1, "scale").count() != x.shape[1] || Input(in, 2, "B").count() != x.shape[1]) Fail("scale and B need one value per channel");
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    int64_t c = x.shape[1], size = SizeFrom(x.shape, 2);
    const float *scale = in[1]->as<const float>(), *bias = in[2]->as<const float>();
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    ctx.pool->ParallelFor(x.shape[0] * c, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const float* xs = px + r * size;
        RowMoments m = MomentsOf(xs, size);
        float s = scale[r % c] / float(std::sqrt(m.var + epsilon_));
        float b = bias[r % c] - float(m.mean) * s;
        for (int64_t i = 0; i < size; ++i) py[r * size + i] = xs[i] * s + b;
      }
    });
  }

 private:
  float epsilon_;
};

// A scale or bias as one value per element of the normalised dims `norm`: the tensor itself when
// it has exactly that shape (usual), else expanded into `buffer` by broadcasting.
const float* NormalisedRow(const TensorRef& t, const Shape& norm, std::vector<float>& buffer) {
  if (t.count() == ElementCount(norm)) return t.as<const float>();
  buffer.assign(size_t(ElementCount(norm)), 0.f);
  auto st = BroadcastStrides(t.shape, norm);
  for (size_t i = 0; i < buffer.size(); ++i) {
    int64_t rem = int64_t(i), off = 0;
    for (size_t d = norm.size(); d-- > 0;) {
      off += (rem % norm[d]) * st[d];
      rem /= norm[d];
    }
    buffer[i] = t.as<const float>()[off];
  }
  return buffer.data();
}

// LayerNormalization (opset 17): normalise over dims [axis, rank), then scale and bias (broadcast).
class LayerNormKernel : public Kernel {
 public:
  LayerNormKernel(const Node& node, int64_t) : Kernel(node), axis_(node.get_int("axis", -1)), epsilon_(node.get_float("epsilon", 1e-5f)) {
    if (node.get_int("stash_type", 1) != 1) Fail("only stash_type=1 (float) is supported");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& scale = Input(in, 1, "Scale");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(scale, "Scale", {DataType::kFloat32});
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    Shape norm(x.shape.begin() + long(axis), x.shape.end());
    if (BroadcastShapes(*this, scale.shape, norm) != norm) Fail("Scale " + ShapeToString(scale.shape) + " must broadcast to the normalised dims " + ShapeToString(norm));
    if (in.size() > 2 && in[2]) {
      ExpectType(*in[2], "B", {DataType::kFloat32});
      if (BroadcastShapes(*this, in[2]->shape, norm) != norm) Fail("B " + ShapeToString(in[2]->shape) + " must broadcast to the normalised dims " + ShapeToString(norm));
    }
    out[0] = {x.dtype, x.shape, nullptr};
    Shape stat = x.shape;
    for (size_t i = axis; i < stat.size(); ++i) stat[i] = 1;
    if (out.size() > 1) out[1] = {DataType::kFloat32, stat, nullptr};
    if (out.size() > 2) out[2] = {DataType::kFloat32, stat, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    int64_t rows = SizeTo(x.shape, axis), size = SizeFrom(x.shape, axis);
    Shape norm(x.shape.begin() + long(axis), x.shape.end());
    // Scale and B usually have exactly the normalised shape; only broadcast ones are expanded.
    std::vector<float> scale_buf, bias_buf;
    const float* scale = NormalisedRow(*in[1], norm, scale_buf);
    const float* bias = in.size() > 2 && in[2] ? NormalisedRow(*in[2], norm, bias_buf) : nullptr;
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    float* mean_out = out.size() > 1 && out[1].data ? out[1].as<float>() : nullptr;
    float* inv_out = out.size() > 2 && out[2].data ? out[2].as<float>() : nullptr;
    float eps = epsilon_;
    if (size == 0) {  // empty rows: nothing to normalise, statistics undefined
      for (int64_t r = 0; r < rows; ++r) {
        if (mean_out) mean_out[r] = NAN;
        if (inv_out) inv_out[r] = NAN;
      }
      return;
    }
    ctx.pool->ParallelFor(rows, std::max<int64_t>(1, 8192 / size), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        LayerNormRow(px + r * size, scale, bias, eps, py + r * size, size, mean_out ? mean_out + r : nullptr,
                     inv_out ? inv_out + r : nullptr);
      }
    });
  }

 private:
  int64_t axis_;
  float epsilon_;
};

// RMSNormalization (opset 23): x / sqrt(mean(x²) + epsilon) over dims [axis, rank), times Scale
// (broadcast to those dims). The mean of squares is summed in double, as the variance of the
// other normalisations here.
class RmsNormKernel : public Kernel {
 public:
  RmsNormKernel(const Node& node, int64_t) : Kernel(node), axis_(node.get_int("axis", -1)), epsilon_(node.get_float("epsilon", 1e-5f)) {
    if (node.get_int("stash_type", 1) != 1) Fail("only stash_type=1 (float) is supported");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& scale = Input(in, 1, "scale");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(scale, "scale", {DataType::kFloat32});
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    Shape norm(x.shape.begin() + long(axis), x.shape.end());
    if (BroadcastShapes(*this, scale.shape, norm) != norm) Fail("scale " + ShapeToString(scale.shape) + " must broadcast to the normalised dims " + ShapeToString(norm));
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    int64_t rows = SizeTo(x.shape, axis), size = SizeFrom(x.shape, axis);
    if (size == 0) return;
    std::vector<float> scale_buf;
    const float* scale = NormalisedRow(*in[1], Shape(x.shape.begin() + long(axis), x.shape.end()), scale_buf);
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    const double eps = epsilon_;
    ctx.pool->ParallelFor(rows, std::max<int64_t>(1, 8192 / size), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const float* xr = px + r * size;
        float* yr = py + r * size;
        const float inv = float(1.0 / std::sqrt(SumSquaredDeviations(xr, size, 0.0) / double(size) + eps));
        for (int64_t i = 0; i < size; ++i) yr[i] = xr[i] * inv * scale[i];
      }
    });
  }

 private:
  int64_t axis_;
  float epsilon_;
};

}  // namespace

// GroupNormalization: X [N, C, ...] in num_groups groups of C / num_groups channels, each
// normalised over its channels and spatial positions; scale and bias have one value per group
// (opset 18) or per channel (opset 21).
class GroupNormKernel : public Kernel {
 public:
  GroupNormKernel(const Node& node, int64_t opset)
      : Kernel(node), per_channel_(opset >= 21), groups_(node.get_int("num_groups", 0)), epsilon_(node.get_float("epsilon", 1e-5f)) {
    if (groups_ <= 0) Fail("num_groups must be positive");
    if (node.get_int("stash_type", 1) != 1) Fail("only stash_type=1 (float) is supported");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kFloat32});
    if (x.rank() < 2) Fail("X must be [N, C, ...]; shape " + ShapeToString(x.shape));
    if (x.shape[1] % groups_ != 0) Fail("C (" + std::to_string(x.shape[1]) + ") is not a multiple of num_groups (" + std::to_string(groups_) + ")");
    int64_t want = per_channel_ ? x.shape[1] : groups_;
    for (size_t i = 1; i <= 2; ++i) {
      const TensorRef& t = Input(in, i, i == 1 ? "scale" : "bias");
      ExpectType(t, i == 1 ? "scale" : "bias", {DataType::kFloat32});
      if (t.count() != want) {
        Fail(std::string(i == 1 ? "scale" : "bias") + " has " + std::to_string(t.count()) + " values; it needs one per " +
             (per_channel_ ? "channel" : "group") + " (" + std::to_string(want) + ")");
      }
    }
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    int64_t c = x.shape[1], per_group = c / groups_, spatial = SizeFrom(x.shape, 2), size = per_group * spatial;
    const float *scale = in[1]->as<const float>(), *bias = in[2]->as<const float>();
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    ctx.pool->ParallelFor(x.shape[0] * groups_, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const float* xs = px + r * size;
        RowMoments m = MomentsOf(xs, size);
        float inv = 1.f / float(std::sqrt(m.var + epsilon_));
        int64_t g = r % groups_;
        for (int64_t k = 0; k < per_group; ++k) {
          int64_t p = per_channel_ ? g * per_group + k : g;
          float s = scale[p] * inv, b = bias[p] - float(m.mean) * s;
          const float* xc = xs + k * spatial;
          float* yc = py + r * size + k * spatial;
          for (int64_t i = 0; i < spatial; ++i) yc[i] = xc[i] * s + b;
        }
      }
    });
  }

 private:
  bool per_channel_;
  int64_t groups_;
  float epsilon_;
};

// LpNormalization: x / ||x||_p along `axis` (p = 1 or 2); a zero norm leaves zeros.
class LpNormKernel : public Kernel {
 public:
  LpNormKernel(const Node& node, int64_t) : Kernel(node), axis_(node.get_int("axis", -1)), p_(node.get_int("p", 2)) {
    if (p_ != 1 && p_ != 2) Fail("p must be 1 or 2, not " + std::to_string(p_));
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    ExpectType(x, "input", {DataType::kFloat32});
    NormalizeAxis(*this, axis_, x.rank());
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    int64_t n = x.shape[axis], inner = SizeFrom(x.shape, axis + 1), outer = SizeTo(x.shape, axis);
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    if (inner == 1 && p_ == 2) {
      // Along the last axis (an embedding's L2 normalisation): the sum of squares through the
      // vector code (exact squares, added in double), then one scale per row. The strided walk
      // below chained every element's add and divided in double: 1.9x ONNX Runtime's time on
      // 1024 rows of 512.
      ctx.pool->ParallelFor(outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, n)), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const float* xr = px + r * n;
          float* yr = py + r * n;
          const double norm = std::sqrt(SumSquaredDeviations(xr, n, 0.0));
          if (norm == 0) {
            std::fill(yr, yr + n, 0.f);
          } else if (1.0 / norm <= double(std::numeric_limits<float>::max())) {
            const float scale = float(1.0 / norm);
            for (int64_t i = 0; i < n; ++i) yr[i] = xr[i] * scale;
          } else {
            // A norm below 1 / FLT_MAX (subnormal elements): its reciprocal is not a float.
            for (int64_t i = 0; i < n; ++i) yr[i] = float(double(xr[i]) / norm);
          }
        }
      });
      return;
    }
    ctx.pool->ParallelFor(outer * inner, 64, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t base = (r / inner) * n * inner + r % inner;
        double norm = 0;
        for (int64_t i = 0; i < n; ++i) {
          float v = px[base + i * inner];
          norm += p_ == 1 ? std::fabs(v) : double(v) * v;
        }
        if (p_ == 2) norm = std::sqrt(norm);
        for (int64_t i = 0; i < n; ++i) py[base + i * inner] = norm == 0 ? 0.f : float(px[base + i * inner] / norm);
      }
    });
  }

 private:
  int64_t axis_, p_;
};

GEBE_CPU_KERNEL("GroupNormalization", GroupNormKernel);
GEBE_CPU_KERNEL("LpNormalization", LpNormKernel);
GEBE_CPU_KERNEL("BatchNormalization", BatchNormKernel);
GEBE_CPU_KERNEL("InstanceNormalization", InstanceNormKernel);
GEBE_CPU_KERNEL("LayerNormalization", LayerNormKernel);
GEBE_CPU_KERNEL("RMSNormalization", RmsNormKernel);

}  // namespace gebe::cpu
