// Unary float operators and activations: Relu, LeakyRelu, PRelu, Sigmoid, Tanh, HardSigmoid,
// HardSwish, Swish, Elu, Selu, Softplus, Erf, Gelu, Clip, Sqrt, Exp, Log, Abs, Neg, Reciprocal, Floor,
// Ceil, Round, Sign, Sin Cos Tan and their inverses/hyperbolics, Mish, Shrink. Abs/Neg/Sign/Relu
// also take integers.
#include <cmath>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/ops/broadcast_runs.h"
#include "cpu/ops/op_util.h"
#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

namespace {

// "v < 0" written once for every element type: for unsigned ones it is a -Wtype-limits warning,
// and a discarded `if constexpr` branch is only skipped inside a template.
template <typename T>
bool IsNegative(T v) {
  if constexpr (std::is_signed_v<T>) {
    return v < 0;
  } else {
    return false;
  }
}

enum class Unary { kRelu, kLeakyRelu, kSigmoid, kTanh, kHardSigmoid, kHardSwish, kElu, kSelu, kSoftplus, kErf,
                   kGelu, kGeluTanh, kSqrt, kExp, kLog, kAbs, kNeg, kReciprocal, kFloor, kCeil, kSign, kRound,
                   kSin, kCos, kSoftsign, kCelu, kThresholdedRelu, kTan, kAsin, kAcos, kAtan, kSinh, kCosh,
                   kAsinh, kAcosh, kAtanh, kMish, kShrink, kSwish };

// y[i] = sqrt(x[i]), correctly rounded as std::sqrt (NaN for a negative x). The compiler keeps
// std::sqrt scalar, with a check after each for errno's sake (3.6x ONNX Runtime); the packed
// instruction gives the same bits four at a time.
inline void SqrtArray(const float* x, float* y, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
#endif
  for (; i < n; ++i) y[i] = std::sqrt(x[i]);
}

class UnaryKernel : public Kernel {
 public:
  UnaryKernel(const Node& node, Unary op) : Kernel(node), op_(op) {
    switch (op) {
      case Unary::kLeakyRelu: alpha_ = node.get_float("alpha", 0.01f); break;
      case Unary::kHardSigmoid:
        alpha_ = node.get_float("alpha", 0.2f);
        beta_ = node.get_float("beta", 0.5f);
        break;
      case Unary::kElu: alpha_ = node.get_float("alpha", 1.0f); break;
      case Unary::kSwish: alpha_ = node.get_float("alpha", 1.0f); break;
      case Unary::kCelu: alpha_ = node.get_float("alpha", 1.0f); break;
      case Unary::kThresholdedRelu: alpha_ = node.get_float("alpha", 1.0f); break;
      case Unary::kShrink:
        alpha_ = node.get_float("lambd", 0.5f);
        beta_ = node.get_float("bias", 0.0f);
        break;
      case Unary::kSelu:
        alpha_ = node.get_float("alpha", 1.67326319217681884765625f);
        beta_ = node.get_float("gamma", 1.05070102214813232421875f);
        break;
      case Unary::kGelu: {
        std::string approx = node.get_string("approximate", "none");
        if (approx == "tanh") op_ = Unary::kGeluTanh;
        else if (approx != "none") Fail("approximate must be 'none' or 'tanh' but is '" + approx + "'");
        break;
      }
      default: break;
    }
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    if (op_ == Unary::kAbs || op_ == Unary::kNeg || op_ == Unary::kSign || op_ == Unary::kRelu) {
      ExpectType(x, "X", {GEBE_NUMERIC_TYPES});
    } else {
      ExpectType(x, "X", {DataType::kFloat32});
    }
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    if (x.dtype != DataType::kFloat32) {
      GEBE_DISPATCH_NUMERIC(x.dtype, {
        const T* px = x.as<const T>();
        T* py = out[0].as<T>();
        for (int64_t i = 0; i < x.count(); ++i) {
          T v = px[i];
          const bool negative = IsNegative(v);
          py[i] = op_ == Unary::kAbs ? (negative ? T(-v) : v)
                  : op_ == Unary::kNeg ? T(-v)
                  : op_ == Unary::kRelu ? (v > 0 ? v : T(0))
                  : T((v > 0) - negative);
        }
      });
      return;
    }
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    ctx.pool->ParallelFor(x.count(), kParallelGrain, [&](int64_t s, int64_t e) { Apply(px + s, py + s, e - s); });
  }

 private:
  void Apply(const float* x, float* y, int64_t n) const {
    const float a = alpha_, b = beta_;
    switch (op_) {
      case Unary::kRelu: for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0.f; break;
      case Unary::kLeakyRelu: LeakyArray(x, &a, 0, y, n); break;
      case Unary::kSigmoid: SigmoidArray(x, y, n); break;  // vectorised
      case Unary::kTanh: TanhArray(x, y, n); break;  // vectorised
      case Unary::kHardSigmoid: HardSigmoidArray(x, y, n, a, b, false); break;  // vectorised
      case Unary::kHardSwish: HardSigmoidArray(x, y, n, 1.f / 6.f, 0.5f, true); break;
      case Unary::kElu: for (int64_t i = 0; i < n; ++i) y[i] = x[i] >= 0 ? x[i] : a * (std::exp(x[i]) - 1.f); break;
      case Unary::kCelu:
        // max(0, x) + min(0, a(exp(x/a) - 1)) is x for x > 0 and the second term otherwise, for
        // either sign of alpha. Written as a branch because fmax/fmin drop a NaN operand, which
        // made Celu(NaN) 0 where ONNX (and ONNX Runtime) propagate NaN.
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 || std::isnan(x[i]) ? x[i] : a * (std::exp(x[i] / a) - 1.f);
        break;
      case Unary::kThresholdedRelu: for (int64_t i = 0; i < n; ++i) y[i] = x[i] > a ? x[i] : 0.f; break;
      case Unary::kSelu:
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? b * x[i] : b * (a * std::exp(x[i]) - a);
        break;
      case Unary::kSoftplus: SoftplusArray(x, y, n); break;  // vectorised
      case Unary::kSoftsign: for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.f + std::fabs(x[i])); break;
      case Unary::kErf: ErfArray(x, y, n); break;  // vectorised: BERT's Gelu is Div, Erf, Add, Mul
      case Unary::kGelu: GeluArray(x, y, n); break;
      case Unary::kGeluTanh:
        // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), the tanh vectorised over chunks that stay
        // in L1 (GPT-style MLPs: std::tanh took 20 ns an element).
        for (int64_t i0 = 0; i0 < n; i0 += 256) {
          float t[256];
          const int64_t len = std::min<int64_t>(256, n - i0);
          for (int64_t i = 0; i < len; ++i) {
            const float v = x[i0 + i];
            t[i] = 0.79788456080286536f * (v + 0.044715f * v * v * v);
          }
          TanhArray(t, t, len);
          for (int64_t i = 0; i < len; ++i) y[i0 + i] = 0.5f * x[i0 + i] * (1.f + t[i]);
        }
        break;
      case Unary::kSqrt: SqrtArray(x, y, n); break;
      case Unary::kExp: ExpArray(x, y, n); break;  // vectorised
      case Unary::kLog: LogArray(x, y, n); break;  // vectorised
      case Unary::kAbs: for (int64_t i = 0; i < n; ++i) y[i] = std::fabs(x[i]); break;
      case Unary::kNeg: for (int64_t i = 0; i < n; ++i) y[i] = -x[i]; break;
      case Unary::kReciprocal: for (int64_t i = 0; i < n; ++i) y[i] = 1.f / x[i]; break;
      case Unary::kFloor: for (int64_t i = 0; i < n; ++i) y[i] = std::floor(x[i]); break;
      case Unary::kCeil: for (int64_t i = 0; i < n; ++i) y[i] = std::ceil(x[i]); break;
      case Unary::kRound: for (int64_t i = 0; i < n; ++i) y[i] = std::nearbyint(x[i]); break;
      case Unary::kSign:  // NaN stays NaN (numpy's sign, which ONNX follows; both comparisons are false for it)
        for (int64_t i = 0; i < n; ++i) y[i] = std::isnan(x[i]) ? x[i] : float((x[i] > 0) - (x[i] < 0));
        break;
      case Unary::kSin: for (int64_t i = 0; i < n; ++i) y[i] = std::sin(x[i]); break;
      case Unary::kCos: for (int64_t i = 0; i < n; ++i) y[i] = std::cos(x[i]); break;
      case Unary::kTan: for (int64_t i = 0; i < n; ++i) y[i] = std::tan(x[i]); break;
      case Unary::kAsin: for (int64_t i = 0; i < n; ++i) y[i] = std::asin(x[i]); break;
      case Unary::kAcos: for (int64_t i = 0; i < n; ++i) y[i] = std::acos(x[i]); break;
      case Unary::kAtan: for (int64_t i = 0; i < n; ++i) y[i] = std::atan(x[i]); break;
      case Unary::kSinh: for (int64_t i = 0; i < n; ++i) y[i] = std::sinh(x[i]); break;
      case Unary::kCosh: for (int64_t i = 0; i < n; ++i) y[i] = std::cosh(x[i]); break;
      case Unary::kAsinh: for (int64_t i = 0; i < n; ++i) y[i] = std::asinh(x[i]); break;
      case Unary::kAcosh: for (int64_t i = 0; i < n; ++i) y[i] = std::acosh(x[i]); break;
      case Unary::kAtanh: for (int64_t i = 0; i < n; ++i) y[i] = std::atanh(x[i]); break;
      case Unary::kMish:
        // x · tanh(softplus(x)), both vectorised over chunks that stay in L1 (YOLOv4's activation:
        // the scalar log1p, exp and tanh took 20 ns an element).
        for (int64_t i0 = 0; i0 < n; i0 += 256) {
          float t[256];
          const int64_t len = std::min<int64_t>(256, n - i0);
          SoftplusArray(x + i0, t, len);
          TanhArray(t, t, len);
          for (int64_t i = 0; i < len; ++i) y[i0 + i] = x[i0 + i] * t[i];
        }
        break;
      case Unary::kShrink:
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] < -a ? x[i] + b : x[i] > a ? x[i] - b : 0.f;
        break;
      case Unary::kSwish:
        // x · sigmoid(alpha · x) (opset 24); alpha 1 is SiLU, whose row is one pass.
        if (a == 1.f) {
          SiluArray(x, y, n);
          break;
        }
        for (int64_t i0 = 0; i0 < n; i0 += 256) {
          float t[256];
          const int64_t len = std::min<int64_t>(256, n - i0);
          for (int64_t i = 0; i < len; ++i) t[i] = a * x[i0 + i];
          SigmoidArray(t, t, len);
          for (int64_t i = 0; i < len; ++i) y[i0 + i] = x[i0 + i] * t[i];
        }
        break;
    }
  }

  Unary op_;
  float alpha_ = 0, beta_ = 0;
};

template <Unary op>
struct UnaryOp : UnaryKernel {
  UnaryOp(const Node& node, int64_t) : UnaryKernel(node, op) {}
};

// Clip: min/max are attributes before opset 11 and optional inputs from 11 on.
class ClipKernel : public Kernel {
 public:
  ClipKernel(const Node& node, int64_t opset) : Kernel(node), opset_(opset) {
    min_ = node.get_float("min", -std::numeric_limits<float>::infinity());
    max_ = node.get_float("max", std::numeric_limits<float>::infinity());
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    ExpectType(x, "input", {GEBE_NUMERIC_TYPES});
    for (size_t i = 1; i < in.size() && i < 3; ++i) {
      if (in[i] && in[i]->count() != 1) Fail("min and max must be scalars");
      if (in[i] && in[i]->dtype != x.dtype) Fail("min and max must have the input's type");
    }
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    GEBE_DISPATCH_NUMERIC(in[0]->dtype, {
      T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
      if (opset_ < 11) {
        lo = FromReal<T>(min_);  // the defaults are +-inf: an integer input's own limits
        hi = FromReal<T>(max_);
      }
      if (in.size() > 1 && in[1]) lo = in[1]->as<const T>()[0];
      if (in.size() > 2 && in[2]) hi = in[2]->as<const T>()[0];
      const T* px = in[0]->as<const T>();
      T* py = out[0].as<T>();
      ctx.pool->ParallelFor(in[0]->count(), kParallelGrain, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) {
          T v = px[i] < lo ? lo : px[i];
          py[i] = v > hi ? hi : v;
        }
      });
    });
  }

 private:
  int64_t opset_;
  float min_, max_;
};

class PReluKernel : public Kernel {
 public:
  PReluKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& slope = Input(in, 1, "slope");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(slope, "slope", {DataType::kFloat32});
    Shape s = BroadcastShapes(*this, x.shape, slope.shape);
    if (s != x.shape) Fail("slope " + ShapeToString(slope.shape) + " must broadcast to X " + ShapeToString(x.shape));
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &x = *in[0], &slope = *in[1];
    const float* px = x.as<const float>();
    const float* ps = slope.as<const float>();
    float* py = out[0].as<float>();
    // Runs of X (whole rows of H·W for a per-channel slope) against one slope or a slope row (an
    // element's index worked out dim by dim took 8 ns: 1.7 ms for 64 × 56 × 56).
    ForEachBroadcastRun(x.shape, x.shape, slope.shape, ctx.pool,
                        [&](int64_t o, int64_t n, int64_t ox, int64_t, int64_t os, int64_t step) {
                          LeakyArray(px + ox, ps + os, step, py + o, n);
                        });
  }
};

}  // namespace

GEBE_CPU_KERNEL("Relu", UnaryOp<Unary::kRelu>);
GEBE_CPU_KERNEL("LeakyRelu", UnaryOp<Unary::kLeakyRelu>);
GEBE_CPU_KERNEL("Sigmoid", UnaryOp<Unary::kSigmoid>);
GEBE_CPU_KERNEL("Tanh", UnaryOp<Unary::kTanh>);
GEBE_CPU_KERNEL("HardSigmoid", UnaryOp<Unary::kHardSigmoid>);
GEBE_CPU_KERNEL("HardSwish", UnaryOp<Unary::kHardSwish>);
GEBE_CPU_KERNEL("Elu", UnaryOp<Unary::kElu>);
GEBE_CPU_KERNEL("Celu", UnaryOp<Unary::kCelu>);
GEBE_CPU_KERNEL("Selu", UnaryOp<Unary::kSelu>);
GEBE_CPU_KERNEL("ThresholdedRelu", UnaryOp<Unary::kThresholdedRelu>);
GEBE_CPU_KERNEL("Softplus", UnaryOp<Unary::kSoftplus>);
GEBE_CPU_KERNEL("Softsign", UnaryOp<Unary::kSoftsign>);
GEBE_CPU_KERNEL("Erf", UnaryOp<Unary::kErf>);
GEBE_CPU_KERNEL("Gelu", UnaryOp<Unary::kGelu>);
GEBE_CPU_KERNEL("Sqrt", UnaryOp<Unary::kSqrt>);
GEBE_CPU_KERNEL("Exp", UnaryOp<Unary::kExp>);
GEBE_CPU_KERNEL("Log", UnaryOp<Unary::kLog>);
GEBE_CPU_KERNEL("Abs", UnaryOp<Unary::kAbs>);
GEBE_CPU_KERNEL("Neg", UnaryOp<Unary::kNeg>);
GEBE_CPU_KERNEL("Reciprocal", UnaryOp<Unary::kReciprocal>);
GEBE_CPU_KERNEL("Floor", UnaryOp<Unary::kFloor>);
GEBE_CPU_KERNEL("Ceil", UnaryOp<Unary::kCeil>);
GEBE_CPU_KERNEL("Round", UnaryOp<Unary::kRound>);
GEBE_CPU_KERNEL("Sign", UnaryOp<Unary::kSign>);
GEBE_CPU_KERNEL("Sin", UnaryOp<Unary::kSin>);
GEBE_CPU_KERNEL("Cos", UnaryOp<Unary::kCos>);
GEBE_CPU_KERNEL("Tan", UnaryOp<Unary::kTan>);
GEBE_CPU_KERNEL("Asin", UnaryOp<Unary::kAsin>);
GEBE_CPU_KERNEL("Acos", UnaryOp<Unary::kAcos>);
GEBE_CPU_KERNEL("Atan", UnaryOp<Unary::kAtan>);
GEBE_CPU_KERNEL("Sinh", UnaryOp<Unary::kSinh>);
GEBE_CPU_KERNEL("Cosh", UnaryOp<Unary::kCosh>);
GEBE_CPU_KERNEL("Asinh", UnaryOp<Unary::kAsinh>);
GEBE_CPU_KERNEL("Acosh", UnaryOp<Unary::kAcosh>);
GEBE_CPU_KERNEL("Atanh", UnaryOp<Unary::kAtanh>);
GEBE_CPU_KERNEL("Mish", UnaryOp<Unary::kMish>);
GEBE_CPU_KERNEL("Shrink", UnaryOp<Unary::kShrink>);
GEBE_CPU_KERNEL("Swish", UnaryOp<Unary::kSwish>);
GEBE_CPU_KERNEL("Clip", ClipKernel);
GEBE_CPU_KERNEL("PRelu", PReluKernel);

}  // namespace gebe::cpu
