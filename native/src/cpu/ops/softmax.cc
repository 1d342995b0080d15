// Softmax and LogSoftmax. Before opset 13 the input is coerced to 2-D at `axis` (default 1) and
// normalised over the flattened tail; from 13 on over the single `axis` (default -1).
// Also the fused attention softmax, Softmax(X * scale + bias) over the last axis, that the
// optimiser builds from Mul/Div + Add + Softmax (see fused_kernels.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/ops/fused_kernels.h"
#include "cpu/ops/op_util.h"
#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

namespace {

// Log-softmax of one contiguous row: x − max − log Σ exp(x − max), the exponentials summed by the
// vector code without being stored (y may alias x). The maximum skips NaN, as std::fmax does.
void LogSoftmaxRow(const float* x, float* y, int64_t n) {
  const float mx = MaxSkippingNaN(x, n);
  const float ls = std::log(ExpShiftedSum(x, nullptr, n, mx));  // the sum only: no exponentials stored
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - mx - ls;
}

// (Log-)softmax along an axis with `inner` values after it, for `width` neighbouring columns at
// once: row d of the block at x + d·inner. The maxima, the exponentials and their sums run along
// the contiguous columns instead of one strided column at a time (a 21-class softmax over a
// 256 × 256 map: 27 ms, ONNX Runtime 14). Per column the steps and their order are the row's.
constexpr int64_t kSoftmaxColumns = 512;
// Fewer columns than this after the axis (a vocabulary with a trailing 2) keep the strided loop.
constexpr int64_t kMinSoftmaxColumns = 16;
void SoftmaxColumns(const float* x, float* y, int64_t dim, int64_t inner, int64_t width, bool log) {
  thread_local std::vector<float> stats;
  if (stats.size() < size_t(2 * kSoftmaxColumns)) stats.resize(size_t(2 * kSoftmaxColumns));
  float* mx = stats.data();
  float* sum = mx + kSoftmaxColumns;
  std::fill(mx, mx + width, -INFINITY);
  std::fill(sum, sum + width, 0.f);
  for (int64_t d = 0; d < dim; ++d) {
    const float* r = x + d * inner;
    for (int64_t j = 0; j < width; ++j) mx[j] = r[j] > mx[j] ? r[j] : mx[j];
  }
  for (int64_t d = 0; d < dim; ++d) {
    const float* r = x + d * inner;
    float* e = y + d * inner;
    for (int64_t j = 0; j < width; ++j) e[j] = r[j] - mx[j];
    ExpShiftedSum(e, e, width, 0.f);
    for (int64_t j = 0; j < width; ++j) sum[j] += e[j];
  }
  if (log) {
    for (int64_t j = 0; j < width; ++j) sum[j] = std::log(sum[j]);
    for (int64_t d = 0; d < dim; ++d)
      for (int64_t j = 0; j < width; ++j) y[d * inner + j] = x[d * inner + j] - mx[j] - sum[j];
  } else {
    for (int64_t j = 0; j < width; ++j) sum[j] = 1.f / sum[j];
    for (int64_t d = 0; d < dim; ++d)
      for (int64_t j = 0; j < width; ++j) y[d * inner + j] *= sum[j];
  }
}

class SoftmaxKernel : public Kernel {
 public:
  SoftmaxKernel(const Node& node, int64_t opset, bool log) : Kernel(node), log_(log), legacy_(opset < 13) {
    axis_ = node.get_int("axis", legacy_ ? 1 : -1);
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    ExpectType(x, "input", {DataType::kFloat32});
    if (x.rank() == 0) Fail("input must not be a scalar");
    NormalizeAxis(*this, axis_, x.rank());
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    int64_t outer, dim, inner;
    if (legacy_) {
      outer = SizeTo(x.shape, axis);
      dim = SizeFrom(x.shape, axis);
      inner = 1;
    } else {
      outer = SizeTo(x.shape, axis);
      dim = x.shape[axis];
      inner = SizeFrom(x.shape, axis + 1);
    }
    if (dim == 0) return;
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    if (inner >= kMinSoftmaxColumns) {
      // Along a middle axis (a segmentation head's classes): blocks of neighbouring columns.
      const int64_t chunks = (inner + kSoftmaxColumns - 1) / kSoftmaxColumns;
      ctx.pool->ParallelFor(outer * chunks, std::max<int64_t>(1, 4096 / (dim * kSoftmaxColumns)), [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t o = t / chunks, c0 = (t % chunks) * kSoftmaxColumns;
          const int64_t offset = o * dim * inner + c0;
          SoftmaxColumns(px + offset, py + offset, dim, inner, std::min(kSoftmaxColumns, inner - c0), log_);
        }
      });
      return;
    }
    ctx.pool->ParallelFor(outer * inner, std::max<int64_t>(1, 4096 / dim), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t o = r / inner, i = r % inner;
        const float* xs = px + o * dim * inner + i;
        float* ys = py + o * dim * inner + i;
        if (inner == 1) {
          // The common last-axis case, vectorised.
          if (log_) LogSoftmaxRow(xs, ys, dim);
          else SoftmaxRow(xs, nullptr, 1.f, ys, dim);
          continue;
        }
        // A few columns after the axis: one strided column at a time.
        float mx = -INFINITY;
        for (int64_t d = 0; d < dim; ++d) mx = std::fmax(mx, xs[d * inner]);
        float sum = 0;
        for (int64_t d = 0; d < dim; ++d) {
          float e = std::exp(xs[d * inner] - mx);
          if (!log_) ys[d * inner] = e;
          sum += e;
        }
        if (log_) {
          float ls = std::log(sum);
          for (int64_t d = 0; d < dim; ++d) ys[d * inner] = xs[d * inner] - mx - ls;
        } else {
          float inv = 1.f / sum;
          for (int64_t d = 0; d < dim; ++d) ys[d * inner] *= inv;
        }
      }
    });
  }

 private:
  bool log_, legacy_;
  int64_t axis_;
};

struct Softmax : SoftmaxKernel {
  Softmax(const Node& node, int64_t opset) : SoftmaxKernel(node, opset, false) {}
};
struct LogSoftmax : SoftmaxKernel {
  LogSoftmax(const Node& node, int64_t opset) : SoftmaxKernel(node, opset, true) {}
};

// Softmax(X * scale + bias) over the last axis; inputs X and (optional) bias broadcast together
// like the Mul and Add they replace, and `scale_shape` is the shape of the replaced Mul/Div's
// constant (it takes part in the broadcast too, as it did in the original graph).
class ScaledSoftmaxKernel : public Kernel {
 public:
  ScaledSoftmaxKernel(const Node& node, float scale, Shape scale_shape)
      : Kernel(node), scale_(scale), scale_shape_(std::move(scale_shape)) {}

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    ExpectType(x, "input", {DataType::kFloat32});
    Shape s = BroadcastShapes(*this, x.shape, scale_shape_);
    if (in.size() > 1 && in[1]) {
      ExpectType(*in[1], "bias", {DataType::kFloat32});
      s = BroadcastShapes(*this, s, in[1]->shape);
    }
    if (s.empty()) Fail("input must not be a scalar");
    out[0] = {DataType::kFloat32, s, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const Shape& shape = out[0].shape;
    const TensorRef& x = *in[0];
    const TensorRef* bias = in.size() > 1 ? in[1] : nullptr;
    const size_t rank = shape.size();
    const int64_t dim = shape.back(), rows = SizeTo(shape, rank - 1);
    if (dim == 0) return;
    auto xs = BroadcastStrides(x.shape, shape);
    std::vector<int64_t> bs = bias ? BroadcastStrides(bias->shape, shape) : std::vector<int64_t>(rank, 0);
    // Both operands contiguous along the axis: rows go straight to the vector kernel; otherwise
    // (a broadcast last axis) each row is gathered first.
    const bool direct = xs[rank - 1] == 1 && (!bias || bs[rank - 1] == 1);
    const float* px = x.as<const float>();
    const float* pb = bias ? bias->as<const float>() : nullptr;
    float* py = out[0].as<float>();
    const float scale = scale_;
    ctx.pool->ParallelFor(rows, std::max<int64_t>(1, 4096 / dim), [&](int64_t r0, int64_t r1) {
      std::vector<float> row(direct ? 0 : size_t(dim));
      for (int64_t r = r0; r < r1; ++r) {
        int64_t ox, ob;
        BroadcastRowOffsets(r, shape, xs, bs, &ox, &ob);
        float* y = py + r * dim;
        if (direct) {
          SoftmaxRow(px + ox, pb ? pb + ob : nullptr, scale, y, dim);
          continue;
        }
        for (int64_t j = 0; j < dim; ++j) {
          row[size_t(j)] = px[ox + j * xs[rank - 1]] * scale + (pb ? pb[ob + j * bs[rank - 1]] : 0.f);
        }
        SoftmaxRow(row.data(), nullptr, 1.f, y, dim);
      }
    });
  }

 private:
  float scale_;
  Shape scale_shape_;
};

}  // namespace

std::unique_ptr<Kernel> MakeScaledSoftmax(const Node& node, float scale, const Shape& scale_shape) {
  return std::make_unique<ScaledSoftmaxKernel>(node, scale, scale_shape);
}

GEBE_CPU_KERNEL("Softmax", Softmax);
GEBE_CPU_KERNEL("LogSoftmax", LogSoftmax);

}  // namespace gebe::cpu
