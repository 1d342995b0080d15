// Softmax and LogSoftmax. Before opset 13 the input is coerced to 2-D at `axis` (default 1) and
// normalised over the flattened tail; from 13 on over the single `axis` (default -1).
#include <cmath>

#include "cpu/ops/op_util.h"
#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

namespace {

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
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    ctx.pool->ParallelFor(outer * inner, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, dim)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t o = r / inner, i = r % inner;
        const float* xs = px + o * dim * inner + i;
        float* ys = py + o * dim * inner + i;
        float mx = -INFINITY;
        for (int64_t d = 0; d < dim; ++d) mx = std::fmax(mx, xs[d * inner]);
        float sum = 0;
        if (inner == 1 && !log_) {
          // The common last-axis case: contiguous, vectorised exp.
          sum = ExpShiftedSum(xs, ys, dim, mx);
          float inv = 1.f / sum;
          for (int64_t d = 0; d < dim; ++d) ys[d] *= inv;
          continue;
        }
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

}  // namespace

GEBE_CPU_KERNEL("Softmax", Softmax);
GEBE_CPU_KERNEL("LogSoftmax", LogSoftmax);

}  // namespace gebe::cpu
