// Gemm and MatMul (batched, broadcasting) on the blocked SGEMM, with an optional fused bias
// (MatMul + Add folded by the optimiser) and activation.
#include <cstring>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

class GemmKernel : public Kernel {
 public:
  GemmKernel(const Node& node, int64_t) : Kernel(node) {
    alpha_ = node.get_float("alpha", 1.f);
    beta_ = node.get_float("beta", 1.f);
    trans_a_ = node.get_int("transA", 0) != 0;
    trans_b_ = node.get_int("transB", 0) != 0;
  }
  bool FuseActivation(const Activation& act) override {
    if (act_.kind != Activation::Kind::kNone) return false;
    act_ = act;
    return true;
  }
  void PrepareConstants(const std::vector<const TensorRef*>& constants) override {
    const TensorRef* b = constants.size() > 1 ? constants[1] : nullptr;
    if (!b || b->dtype != DataType::kFloat32 || b->rank() != 2) return;
    int64_t k = trans_b_ ? b->shape[1] : b->shape[0], n = trans_b_ ? b->shape[0] : b->shape[1];
    packed_ = PackB(trans_b_, k, n, b->as<const float>(), b->shape[1]);
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& a = Input(in, 0, "A");
    const TensorRef& b = Input(in, 1, "B");
    ExpectType(a, "A", {DataType::kFloat32});
    ExpectType(b, "B", {DataType::kFloat32});
    if (a.rank() != 2 || b.rank() != 2) Fail("A " + ShapeToString(a.shape) + " and B " + ShapeToString(b.shape) + " must be 2-D");
    int64_t m = trans_a_ ? a.shape[1] : a.shape[0], ka = trans_a_ ? a.shape[0] : a.shape[1];
    int64_t kb = trans_b_ ? b.shape[1] : b.shape[0], n = trans_b_ ? b.shape[0] : b.shape[1];
    if (ka != kb) Fail("inner dimensions differ: A " + ShapeToString(a.shape) + (trans_a_ ? " (transposed)" : "") + " vs B " + ShapeToString(b.shape) + (trans_b_ ? " (transposed)" : ""));
    if (in.size() > 2 && in[2]) {
      ExpectType(*in[2], "C", {DataType::kFloat32});
      if (BroadcastShapes(*this, in[2]->shape, {m, n}) != Shape{m, n}) Fail("C " + ShapeToString(in[2]->shape) + " does not broadcast to [" + std::to_string(m) + ", " + std::to_string(n) + "]");
    }
    out[0] = {DataType::kFloat32, {m, n}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &a = *in[0], &b = *in[1];
    int64_t m = out[0].shape[0], n = out[0].shape[1];
    int64_t k = trans_a_ ? a.shape[0] : a.shape[1];
    float* y = out[0].as<float>();
    float beta = 0.f;
    if (in.size() > 2 && in[2] && beta_ != 0.f) {
      // Broadcast C into Y, then accumulate the product on top.
      const TensorRef& c = *in[2];
      auto st = BroadcastStrides(c.shape, out[0].shape);
      const float* pc = c.as<const float>();
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) y[i * n + j] = beta_ * pc[i * st[0] + j * st[1]];
      beta = 1.f;
    }
    ThreadPool* pool = PoolForProduct(m * n * k, ctx.pool, k * n);
    if (packed_.source != nullptr && packed_.source == b.data) {
      SgemmPacked(trans_a_, m, packed_, alpha_, a.as<const float>(), a.shape[1], beta, y, n, pool);
    } else {
      Sgemm(trans_a_, trans_b_, m, n, k, alpha_, a.as<const float>(), a.shape[1], b.as<const float>(), b.shape[1], beta, y, n, pool);
    }
    act_.Apply(y, m * n);
  }

 private:
  PackedB packed_;
  float alpha_, beta_;
  bool trans_a_, trans_b_;
  Activation act_;
};

// MatMul with numpy semantics; input 2 (added by the MatMul+Add fusion) is a bias over the last dim.
class MatMulKernel : public Kernel {
 public:
  MatMulKernel(const Node& node, int64_t) : Kernel(node) {}
  void PrepareConstants(const std::vector<const TensorRef*>& constants) override {
    const TensorRef* b = constants.size() > 1 ? constants[1] : nullptr;
    if (!b || b->dtype != DataType::kFloat32 || b->rank() != 2) return;
    packed_ = PackB(false, b->shape[0], b->shape[1], b->as<const float>(), b->shape[1]);
  }
  bool FuseActivation(const Activation& act) override {
    if (act_.kind != Activation::Kind::kNone) return false;
    act_ = act;
    return true;
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& a = Input(in, 0, "A");
    const TensorRef& b = Input(in, 1, "B");
    ExpectType(a, "A", {DataType::kFloat32});
    ExpectType(b, "B", {DataType::kFloat32});
    if (a.rank() == 0 || b.rank() == 0) Fail("inputs must not be scalars");
    Shape as = a.shape, bs = b.shape;
    if (as.size() == 1) as.insert(as.begin(), 1);
    if (bs.size() == 1) bs.push_back(1);
    if (as.back() != bs[bs.size() - 2]) Fail("inner dimensions differ: A " + ShapeToString(a.shape) + " vs B " + ShapeToString(b.shape));
    Shape batch = BroadcastShapes(*this, Shape(as.begin(), as.end() - 2), Shape(bs.begin(), bs.end() - 2));
    Shape s = batch;
    if (a.rank() > 1) s.push_back(as[as.size() - 2]);
    if (b.rank() > 1) s.push_back(bs.back());
    if (in.size() > 2 && in[2] && (in[2]->rank() != 1 || in[2]->shape[0] != bs.back())) Fail("fused bias has the wrong shape");
    out[0] = {DataType::kFloat32, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &a = *in[0], &b = *in[1];
    Shape as = a.shape, bs = b.shape;
    if (as.size() == 1) as.insert(as.begin(), 1);
    if (bs.size() == 1) bs.push_back(1);
    int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    Shape abatch(as.begin(), as.end() - 2), bbatch(bs.begin(), bs.end() - 2);
    Shape batch = BroadcastShapes(*this, abatch, bbatch);
    int64_t batches = ElementCount(batch);
    auto sa = BroadcastStrides(abatch, batch), sb = BroadcastStrides(bbatch, batch);
    const float* pa = a.as<const float>();
    const float* pb = b.as<const float>();
    float* py = out[0].as<float>();
    const float* bias = in.size() > 2 && in[2] ? in[2]->as<const float>() : nullptr;
    // A whole batch of A against one shared B is a single tall GEMM.
    bool b_shared = ElementCount(bbatch) == 1 && abatch == batch;
    if (b_shared) {
      m *= batches;
      batches = 1;
    }
    auto one = [&](int64_t t, ThreadPool* pool) {
      int64_t rem = t, oa = 0, ob = 0;
      for (size_t d = batch.size(); d-- > 0;) {
        int64_t i = rem % batch[d];
        rem /= batch[d];
        oa += i * sa[d];
        ob += i * sb[d];
      }
      float* y = py + t * m * n;
      float beta = 0.f;
      if (bias) {
        for (int64_t i = 0; i < m; ++i) std::memcpy(y + i * n, bias, sizeof(float) * size_t(n));
        beta = 1.f;
      }
      if (packed_.source != nullptr && packed_.source == b.data && b.rank() == 2) {
        SgemmPacked(false, m, packed_, 1.f, pa + oa * m * k, k, beta, y, n, pool);
      } else {
        Sgemm(false, false, m, n, k, 1.f, pa + oa * m * k, k, pb + ob * k * n, n, beta, y, n, pool);
      }
    };
    ForEachProduct(batches, m * n * k, ctx.pool, one, k * n);
    act_.Apply(py, out[0].count());
  }

 private:
  PackedB packed_;
  Activation act_;
};

}  // namespace

GEBE_CPU_KERNEL("Gemm", GemmKernel);
GEBE_CPU_KERNEL("MatMul", MatMulKernel);

}  // namespace gebe::cpu
