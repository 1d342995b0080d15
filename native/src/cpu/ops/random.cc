// The random operators: RandomNormal, RandomUniform, RandomNormalLike, RandomUniformLike,
// Bernoulli and Multinomial (a VAE's sampling step, noise a generator adds). Each node keeps its
// own generator (mt19937), seeded from its `seed` attribute when it has one, otherwise from the
// system's entropy, and advancing from run to run, as ONNX Runtime's kernels do; the values are
// therefore not ONNX Runtime's (nor ONNX's reference's), only their distribution. None of them is
// ever folded into a constant (Kernel::Deterministic).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include "cpu/ops/op_util.h"
#include "cpu/type_lowering.h"

namespace gebe::cpu {

namespace {

// A node's generator: seeded once, drawn under a lock (a session's runs take turns, but the
// lock keeps that a fact of this class rather than of its callers).
class Generator {
 public:
  explicit Generator(const Node& node) {
    if (node.has("seed")) {
      // The float's bits, not its value cast to an integer (undefined for 1e30 or NaN).
      const float seed = node.get_float("seed", 0.f);
      uint32_t bits;
      std::memcpy(&bits, &seed, sizeof bits);
      engine_.seed(bits);
    } else {
      std::random_device entropy;
      engine_.seed(entropy());
    }
  }
  template <typename F>
  void Draw(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    f(engine_);
  }

 private:
  std::mutex mu_;
  std::mt19937 engine_;
};

// The element type a dtype attribute names, as it is inside the engine (FP16/BF16/FP64 are FP32).
DataType TypeAttribute(const Node& node, DataType fallback) {
  return node.has("dtype") ? InsideEngine(FromOnnxType(int(node.get_int("dtype", 1)))) : fallback;
}

// RandomNormal / RandomUniform (shape from an attribute) and their *Like forms (the input's shape,
// and its type unless dtype says otherwise): FP32 values.
class RandomFillKernel : public Kernel {
 public:
  RandomFillKernel(const Node& node, bool normal, bool like)
      : Kernel(node), normal_(normal), like_(like), generator_(node), shape_(node.get_ints("shape")),
        a_(normal ? node.get_float("mean", 0.f) : node.get_float("low", 0.f)),
        b_(normal ? node.get_float("scale", 1.f) : node.get_float("high", 1.f)) {
    dtype_ = TypeAttribute(node, like ? DataType::kInvalid : DataType::kFloat32);
    if (dtype_ != DataType::kInvalid && dtype_ != DataType::kFloat32) Fail("dtype must be a float type (FLOAT, FLOAT16, DOUBLE or BFLOAT16)");
    if (!like && !node.has("shape")) Fail("shape is required");
    for (int64_t d : shape_)
      if (d < 0) Fail("shape " + ShapeToString(shape_) + " has a negative dimension");
    if (!normal && !(a_ <= b_)) Fail("low must not be above high");
  }
  bool Deterministic() const override { return false; }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    if (!like_) {
      out[0] = {DataType::kFloat32, shape_, nullptr};
      return true;
    }
    const TensorRef& x = Input(in, 0, "input");
    const DataType t = dtype_ != DataType::kInvalid ? dtype_ : x.dtype;
    if (t != DataType::kFloat32) Fail(std::string("the output's type would be ") + DataTypeName(t) + "; give a float dtype");
    out[0] = {DataType::kFloat32, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>&, std::vector<TensorRef>& out, const RunContext&) override {
    float* y = out[0].as<float>();
    const int64_t n = out[0].count();
    generator_.Draw([&](std::mt19937& engine) {
      if (normal_) {
        std::normal_distribution<float> d(a_, b_);
        for (int64_t i = 0; i < n; ++i) y[i] = d(engine);
      } else {
        std::uniform_real_distribution<float> d(a_, b_);
        for (int64_t i = 0; i < n; ++i) y[i] = d(engine);
      }
    });
  }

 private:
  bool normal_, like_;
  Generator generator_;
  Shape shape_;
  float a_, b_;  // mean and scale, or low and high
  DataType dtype_ = DataType::kInvalid;
};

struct RandomNormalKernel : RandomFillKernel {
  RandomNormalKernel(const Node& node, int64_t) : RandomFillKernel(node, true, false) {}
};
struct RandomUniformKernel : RandomFillKernel {
  RandomUniformKernel(const Node& node, int64_t) : RandomFillKernel(node, false, false) {}
};
struct RandomNormalLikeKernel : RandomFillKernel {
  RandomNormalLikeKernel(const Node& node, int64_t) : RandomFillKernel(node, true, true) {}
};
struct RandomUniformLikeKernel : RandomFillKernel {
  RandomUniformLikeKernel(const Node& node, int64_t) : RandomFillKernel(node, false, true) {}
};

// Bernoulli: 1 with probability x[i], else 0, in dtype's type (the input's by default).
class BernoulliKernel : public Kernel {
 public:
  BernoulliKernel(const Node& node, int64_t) : Kernel(node), generator_(node), dtype_(TypeAttribute(node, DataType::kInvalid)) {
    if (dtype_ != DataType::kInvalid && dtype_ != DataType::kBool && ElementSize(dtype_) == 0) Fail("dtype is not a numeric or boolean type");
  }
  bool Deterministic() const override { return false; }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    ExpectType(x, "input", {DataType::kFloat32});
    out[0] = {dtype_ != DataType::kInvalid ? dtype_ : x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const float* p = in[0]->as<const float>();
    const int64_t n = in[0]->count();
    std::vector<uint8_t> drawn(static_cast<size_t>(n));
    generator_.Draw([&](std::mt19937& engine) {
      std::uniform_real_distribution<float> u(0.f, 1.f);
      for (int64_t i = 0; i < n; ++i) drawn[size_t(i)] = u(engine) < p[i];
    });
    if (out[0].dtype == DataType::kBool) {
      std::copy(drawn.begin(), drawn.end(), out[0].as<uint8_t>());
      return;
    }
    GEBE_DISPATCH_NUMERIC(out[0].dtype, {
      T* y = out[0].as<T>();
      for (int64_t i = 0; i < n; ++i) y[i] = T(drawn[size_t(i)]);
    });
  }

 private:
  Generator generator_;
  DataType dtype_;
};

// Multinomial: sample_size class indices per row of [batch, classes] unnormalised
// log-probabilities, drawn from softmax of the row; INT32 (the default) or INT64.
class MultinomialKernel : public Kernel {
 public:
  MultinomialKernel(const Node& node, int64_t)
      : Kernel(node), generator_(node), samples_(node.get_int("sample_size", 1)),
        dtype_(node.has("dtype") ? FromOnnxType(int(node.get_int("dtype", 6))) : DataType::kInt32) {
    if (samples_ < 0) Fail("sample_size must not be negative");
    if (dtype_ != DataType::kInt32 && dtype_ != DataType::kInt64) Fail("dtype must be INT32 or INT64");
  }
  bool Deterministic() const override { return false; }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    ExpectType(x, "input", {DataType::kFloat32});
    if (x.rank() != 2) Fail("input must be [batch, classes]; shape " + ShapeToString(x.shape));
    out[0] = {dtype_, {x.shape[0], samples_}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef& x = *in[0];
    const int64_t rows = x.shape[0], classes = x.shape[1];
    std::vector<double> cumulative(static_cast<size_t>(classes));
    generator_.Draw([&](std::mt19937& engine) {
      std::uniform_real_distribution<double> u(0.0, 1.0);
      for (int64_t r = 0; r < rows; ++r) {
        const float* row = x.as<const float>() + r * classes;
        const float top = classes > 0 ? MaxOf(row, classes) : 0.f;
        double sum = 0;
        for (int64_t c = 0; c < classes; ++c) cumulative[size_t(c)] = sum += std::exp(double(row[c]) - double(top));
        for (int64_t s = 0; s < samples_; ++s) {
          // The first class whose cumulative weight passes the draw; the last one when none does
          // (a row of NaN or of -inf has no distribution to draw from).
          const double target = u(engine) * sum;
          const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
          const int64_t pick = classes == 0 ? 0 : std::min<int64_t>(classes - 1, it - cumulative.begin());
          if (dtype_ == DataType::kInt64) out[0].as<int64_t>()[r * samples_ + s] = pick;
          else out[0].as<int32_t>()[r * samples_ + s] = int32_t(pick);
        }
      }
    });
  }

 private:
  static float MaxOf(const float* row, int64_t n) {
    float m = row[0];
    for (int64_t i = 1; i < n; ++i) m = std::max(m, row[i]);
    return std::isfinite(m) ? m : 0.f;
  }

  Generator generator_;
  int64_t samples_;
  DataType dtype_;
};

}  // namespace

GEBE_CPU_KERNEL("RandomNormal", RandomNormalKernel);
GEBE_CPU_KERNEL("RandomUniform", RandomUniformKernel);
GEBE_CPU_KERNEL("RandomNormalLike", RandomNormalLikeKernel);
GEBE_CPU_KERNEL("RandomUniformLike", RandomUniformLikeKernel);
GEBE_CPU_KERNEL("Bernoulli", BernoulliKernel);
GEBE_CPU_KERNEL("Multinomial", MultinomialKernel);

}  // namespace gebe::cpu
