// Loss operators that exported evaluation graphs carry: NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (log-softmax over axis 1, then NLL), with class weights, ignore_index
// and reduction none / sum / mean (mean divides by the summed weights of counted targets).
#include <algorithm>
#include <cmath>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

class LossKernel : public Kernel {
 public:
  LossKernel(const Node& node, bool softmax) : Kernel(node), softmax_(softmax) {
    std::string r = node.get_string("reduction", "mean");
    if (r != "none" && r != "sum" && r != "mean") Fail("reduction '" + r + "' is not one of none, sum, mean");
    reduction_ = r;
    has_ignore_ = node.has("ignore_index");
    ignore_ = node.get_int("ignore_index", 0);
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, softmax_ ? "scores" : "input");
    const TensorRef& t = Input(in, 1, softmax_ ? "labels" : "target");
    ExpectType(x, "input", {DataType::kFloat32});
    ExpectType(t, "target", {DataType::kInt64, DataType::kInt32});
    if (x.rank() < 2 || t.rank() != x.rank() - 1 || t.shape[0] != x.shape[0]) Fail("input must be [N, C, d...] and target [N, d...]");
    for (int d = 1; d < t.rank(); ++d)
      if (t.shape[size_t(d)] != x.shape[size_t(d + 1)]) Fail("target's dims must match input's spatial dims");
    if (in.size() > 2 && in[2]) {
      ExpectType(*in[2], "weights", {DataType::kFloat32});
      if (in[2]->rank() != 1 || in[2]->count() != x.shape[1]) Fail("weights must have one entry per class");
    }
    out[0] = {x.dtype, reduction_ == "none" ? t.shape : Shape{}, nullptr};
    if (out.size() > 1) out[1] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &t = *in[1];
    const float* weight = in.size() > 2 && in[2] ? in[2]->as<const float>() : nullptr;
    int64_t n = x.shape[0], c = x.shape[1], inner = SizeFrom(x.shape, 2);
    const float* px = x.as<const float>();
    std::vector<float> log_prob;
    if (softmax_) {
      log_prob.resize(size_t(x.count()));
      for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < inner; ++i) {
          double m = -INFINITY, s = 0;
          for (int64_t k = 0; k < c; ++k) m = std::fmax(m, px[(b * c + k) * inner + i]);
          for (int64_t k = 0; k < c; ++k) s += std::exp(double(px[(b * c + k) * inner + i]) - m);
          double lse = m + std::log(s);
          for (int64_t k = 0; k < c; ++k) log_prob[size_t((b * c + k) * inner + i)] = float(px[(b * c + k) * inner + i] - lse);
        }
      if (out.size() > 1 && out[1].data) std::copy(log_prob.begin(), log_prob.end(), out[1].as<float>());
      px = log_prob.data();
    }
    float* po = out[0].as<float>();
    double total = 0, weights = 0;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = b * inner + i;
        int64_t label = t.dtype == DataType::kInt64 ? t.as<const int64_t>()[at] : t.as<const int32_t>()[at];
        double loss = 0, w = 0;
        if (!(has_ignore_ && label == ignore_)) {
          if (label < 0 || label >= c) Fail("target " + std::to_string(label) + " is outside 0.." + std::to_string(c - 1));
          w = weight ? weight[label] : 1.0;
          loss = -double(px[(b * c + label) * inner + i]) * w;
        }
        if (reduction_ == "none") po[at] = float(loss);
        total += loss;
        weights += w;
      }
    if (reduction_ == "sum") po[0] = float(total);
    if (reduction_ == "mean") po[0] = float(total / weights);
  }

 private:
  bool softmax_;
  std::string reduction_;
  bool has_ignore_ = false;
  int64_t ignore_ = 0;
};

struct NllLossKernel : LossKernel {
  NllLossKernel(const Node& node, int64_t) : LossKernel(node, false) {}
};
struct SoftmaxCrossEntropyLossKernel : LossKernel {
  SoftmaxCrossEntropyLossKernel(const Node& node, int64_t) : LossKernel(node, true) {}
};

}  // namespace

GEBE_CPU_KERNEL("NegativeLogLikelihoodLoss", NllLossKernel);
GEBE_CPU_KERNEL("SoftmaxCrossEntropyLoss", SoftmaxCrossEntropyLossKernel);

}  // namespace gebe::cpu
