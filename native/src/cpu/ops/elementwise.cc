// Element-wise operators with numpy broadcasting: arithmetic (Add, Sub, Mul, Div, Pow, Mod, BitShift, Min, Max,
// Sum, Mean, BitwiseAnd/Or/Xor/Not), comparisons (Equal, Less, Greater, LessOrEqual, GreaterOrEqual), logic (And, Or, Xor,
// Not) and Where.
#include <cmath>
#include <cstring>

#include "cpu/ops/broadcast_runs.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow, kMin, kMax, kMod, kEqual, kLess, kGreater, kLessEq, kGreaterEq, kAnd, kOr, kXor, kBitShift,
                   kFmod, kShiftRight, kBitAnd, kBitOr, kBitXor };

template <typename T>
inline T Apply(BinOp op, T x, T y) {
  switch (op) {
    case BinOp::kAdd: return x + y;
    case BinOp::kSub: return x - y;
    case BinOp::kMul: return x * y;
    case BinOp::kDiv:
      if constexpr (std::is_integral_v<T>) return IntegerQuotient(x, y);
      else return x / y;
    case BinOp::kPow: return FromReal<T>(std::pow(double(x), double(y)));
    case BinOp::kMin:
      if constexpr (std::is_floating_point_v<T>) { if (std::isnan(x) || std::isnan(y)) return x + y; }
      return x < y ? x : y;
    case BinOp::kMax:
      if constexpr (std::is_floating_point_v<T>) { if (std::isnan(x) || std::isnan(y)) return x + y; }
      return x > y ? x : y;
    case BinOp::kMod:  // fmod=0: the result takes the divisor's sign (Python's %)
      if constexpr (std::is_integral_v<T>) {
        T r = IntegerRemainder(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r = T(r + y);
        return r;
      } else {
        T r = std::fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return r;
      }
    case BinOp::kFmod:  // fmod=1: the dividend's sign (C's fmod)
      if constexpr (std::is_integral_v<T>) return IntegerRemainder(x, y);
      else return std::fmod(x, y);
    case BinOp::kBitShift:
      if constexpr (std::is_unsigned_v<T>) return uint64_t(y) >= sizeof(T) * 8 ? T(0) : T(x << y);
      else return T(0);
    case BinOp::kShiftRight:
      if constexpr (std::is_unsigned_v<T>) return uint64_t(y) >= sizeof(T) * 8 ? T(0) : T(x >> y);
      else return T(0);
    case BinOp::kBitAnd:
      if constexpr (std::is_integral_v<T>) return T(x & y);
      else return T(0);
    case BinOp::kBitOr:
      if constexpr (std::is_integral_v<T>) return T(x | y);
      else return T(0);
    case BinOp::kBitXor:
      if constexpr (std::is_integral_v<T>) return T(x ^ y);
      else return T(0);
    default: return T(0);
  }
}

template <typename T, BinOp op>
void BinaryLoop(T* out, const T* a, const T* b, int64_t n, int64_t step_a, int64_t step_b) {
  if (step_a == 1 && step_b == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<T>(op, a[i], b[i]);
  } else if (step_a == 0 && step_b == 1) {
    T x = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<T>(op, x, b[i]);
  } else if (step_a == 1 && step_b == 0) {
    T y = b[0];
    if constexpr (op == BinOp::kPow && std::is_same_v<T, float>) {
      // x^2 (a variance, an RMSNorm): the square of a float is exact in double, so pow's result
      // rounds to what the float product gives, bit for bit; a scalar pow per element took 11 ns.
      if (y == 2.f) {
        for (int64_t i = 0; i < n; ++i) out[i] = a[i] * a[i];
        return;
      }
      // x^3 (GPT-2's tanh GELU exports Pow(x, 3)): ONNX Runtime takes (x · x) · x in float, which
      // a double pow rounded once differs from in the last place on a quarter of values; ORT's
      // values, bit for bit, and 27x faster than pow.
      if (y == 3.f) {
        for (int64_t i = 0; i < n; ++i) out[i] = a[i] * a[i] * a[i];
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<T>(op, a[i], y);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<T>(op, a[i * step_a], b[i * step_b]);
  }
}

template <typename T>
void BinaryDispatch(BinOp op, T* out, const T* a, const T* b, int64_t n, int64_t sa, int64_t sb) {
  switch (op) {
    case BinOp::kAdd: BinaryLoop<T, BinOp::kAdd>(out, a, b, n, sa, sb); break;
    case BinOp::kSub: BinaryLoop<T, BinOp::kSub>(out, a, b, n, sa, sb); break;
    case BinOp::kMul: BinaryLoop<T, BinOp::kMul>(out, a, b, n, sa, sb); break;
    case BinOp::kDiv: BinaryLoop<T, BinOp::kDiv>(out, a, b, n, sa, sb); break;
    case BinOp::kPow: BinaryLoop<T, BinOp::kPow>(out, a, b, n, sa, sb); break;
    case BinOp::kMin: BinaryLoop<T, BinOp::kMin>(out, a, b, n, sa, sb); break;
    case BinOp::kMax: BinaryLoop<T, BinOp::kMax>(out, a, b, n, sa, sb); break;
    case BinOp::kMod: BinaryLoop<T, BinOp::kMod>(out, a, b, n, sa, sb); break;
    case BinOp::kFmod: BinaryLoop<T, BinOp::kFmod>(out, a, b, n, sa, sb); break;
    case BinOp::kBitShift: BinaryLoop<T, BinOp::kBitShift>(out, a, b, n, sa, sb); break;
    case BinOp::kShiftRight: BinaryLoop<T, BinOp::kShiftRight>(out, a, b, n, sa, sb); break;
    case BinOp::kBitAnd: BinaryLoop<T, BinOp::kBitAnd>(out, a, b, n, sa, sb); break;
    case BinOp::kBitOr: BinaryLoop<T, BinOp::kBitOr>(out, a, b, n, sa, sb); break;
    case BinOp::kBitXor: BinaryLoop<T, BinOp::kBitXor>(out, a, b, n, sa, sb); break;
    default: break;
  }
}

class ArithmeticKernel : public Kernel {
 public:
  ArithmeticKernel(const Node& node, BinOp op) : Kernel(node), op_(op) {
    // Opsets before 7 broadcast only with an explicit attribute and a different rule (axis).
    if (node.get_int("broadcast", 0) != 0 && node.has("axis")) Fail("the legacy broadcast/axis attributes (opset < 7) are not supported");
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& a = Input(in, 0, "A");
    const TensorRef& b = Input(in, 1, "B");
    if (op_ == BinOp::kBitShift || op_ == BinOp::kShiftRight) {
      ExpectType(a, "X", {DataType::kUInt8, DataType::kUInt16, DataType::kUInt32, DataType::kUInt64});
    }
    if (op_ == BinOp::kBitAnd || op_ == BinOp::kBitOr || op_ == BinOp::kBitXor) {
      ExpectType(a, "A", {GEBE_INTEGER_TYPES});
    }
    ExpectType(a, "A", {GEBE_NUMERIC_TYPES});
    if (op_ == BinOp::kPow) ExpectType(b, "B", {GEBE_NUMERIC_TYPES});
    if (a.dtype != b.dtype && op_ != BinOp::kPow) {
      Fail(std::string("inputs must have the same type but are ") + DataTypeName(a.dtype) + " and " + DataTypeName(b.dtype));
    }
    out[0].dtype = a.dtype;
    out[0].shape = BroadcastShapes(*this, a.shape, b.shape);
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &a = *in[0], &b = *in[1];
    TensorRef& o = out[0];
    if (op_ == BinOp::kPow && a.dtype != b.dtype) {
      RunMixedPow(a, b, o, ctx);
      return;
    }
    GEBE_DISPATCH_NUMERIC(a.dtype, {
      T* po = o.as<T>();
      const T* pa = a.as<const T>();
      const T* pb = b.as<const T>();
      ForEachBroadcastRun(o.shape, a.shape, b.shape, ctx.pool,
                          [&](int64_t oi, int64_t n, int64_t ia, int64_t sa, int64_t ib, int64_t sb) {
                            BinaryDispatch<T>(op_, po + oi, pa + ia, pb + ib, n, sa, sb);
                            if (act_.kind != Activation::Kind::kNone) ApplyFused(po + oi, n);
                          });
    });
  }

  // A following activation (ResNet's Add → Relu) applied to each run of outputs while it is in
  // cache, instead of another pass over the tensor.
  bool FuseActivation(const Activation& act) override {
    if (act_.kind != Activation::Kind::kNone) return false;
    if (op_ != BinOp::kAdd && op_ != BinOp::kSub && op_ != BinOp::kMul && op_ != BinOp::kDiv) return false;
    act_ = act;
    return true;
  }

 private:
  // Pow allows a different exponent type (float base, int exponent and the reverse).
  void RunMixedPow(const TensorRef& a, const TensorRef& b, TensorRef& o, const RunContext& ctx) {
    auto read = ReadAsDouble;
    ForEachBroadcastRun(o.shape, a.shape, b.shape, ctx.pool,
                        [&](int64_t oi, int64_t n, int64_t ia, int64_t sa, int64_t ib, int64_t sb) {
                          for (int64_t i = 0; i < n; ++i) {
                            double v = std::pow(read(a, ia + i * sa), read(b, ib + i * sb));
                            GEBE_DISPATCH_NUMERIC(o.dtype, { o.as<T>()[oi + i] = FromReal<T>(v); });
                          }
                        });
  }

  void ApplyFused(float* run, int64_t n) const { act_.Apply(run, n); }
  // Of the activations that fuse, only Relu is defined for integer tensors (opset 14).
  template <typename T>
  void ApplyFused(T* run, int64_t n) const {
    if (act_.kind != Activation::Kind::kRelu) Fail("a fused activation other than Relu on an integer tensor");
    for (int64_t i = 0; i < n; ++i) run[i] = run[i] < T(0) ? T(0) : run[i];
  }

  BinOp op_;
  Activation act_;
};

class ComparisonKernel : public Kernel {
 public:
  ComparisonKernel(const Node& node, BinOp op) : Kernel(node), op_(op) {}

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& a = Input(in, 0, "A");
    const TensorRef& b = Input(in, 1, "B");
    bool logic = op_ == BinOp::kAnd || op_ == BinOp::kOr || op_ == BinOp::kXor;
    if (logic) {
      ExpectType(a, "A", {DataType::kBool});
      ExpectType(b, "B", {DataType::kBool});
    } else {
      ExpectType(a, "A", {GEBE_NUMERIC_TYPES, DataType::kBool});
      if (a.dtype != b.dtype) Fail("inputs must have the same type");
    }
    out[0].dtype = DataType::kBool;
    out[0].shape = BroadcastShapes(*this, a.shape, b.shape);
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &a = *in[0], &b = *in[1];
    uint8_t* po = out[0].as<uint8_t>();
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* pa = a.as<const T>();
      const T* pb = b.as<const T>();
      ForEachBroadcastRun(out[0].shape, a.shape, b.shape, ctx.pool,
                          [&](int64_t oi, int64_t n, int64_t ia, int64_t sa, int64_t ib, int64_t sb) {
                            for (int64_t i = 0; i < n; ++i) {
                              T x = pa[ia + i * sa], y = pb[ib + i * sb];
                              bool r = false;
                              switch (op_) {
                                case BinOp::kEqual: r = x == y; break;
                                case BinOp::kLess: r = x < y; break;
                                case BinOp::kGreater: r = x > y; break;
                                case BinOp::kLessEq: r = x <= y; break;
                                case BinOp::kGreaterEq: r = x >= y; break;
                                case BinOp::kAnd: r = x && y; break;
                                case BinOp::kOr: r = x || y; break;
                                case BinOp::kXor: r = bool(x) != bool(y); break;
                                default: break;
                              }
                              po[oi + i] = r ? 1 : 0;
                            }
                          });
    };
    if (a.dtype == DataType::kBool) {
      run(uint8_t{});
    } else {
      GEBE_DISPATCH_NUMERIC(a.dtype, { run(T{}); });
    }
  }

 private:
  BinOp op_;
};

// Min, Max, Sum, Mean: any number of inputs, folded pairwise with broadcasting.
class VariadicKernel : public Kernel {
 public:
  VariadicKernel(const Node& node, BinOp op, bool mean) : Kernel(node), op_(op), mean_(mean) {}

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    if (in.empty() || !in[0]) Fail("needs at least one input");
    ExpectType(*in[0], "0", {GEBE_NUMERIC_TYPES});
    Shape shape = in[0]->shape;
    for (size_t i = 1; i < in.size(); ++i) {
      if (!in[i]) continue;
      if (in[i]->dtype != in[0]->dtype) Fail("inputs must have the same type");
      shape = BroadcastShapes(*this, shape, in[i]->shape);
    }
    out[0].dtype = in[0]->dtype;
    out[0].shape = shape;
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    TensorRef& o = out[0];
    GEBE_DISPATCH_NUMERIC(o.dtype, {
      T* po = o.as<T>();
      // First input broadcast into the output, then each further input combined in place.
      const TensorRef& a = *in[0];
      ForEachBroadcastRun(o.shape, o.shape, a.shape, ctx.pool,
                          [&](int64_t oi, int64_t n, int64_t, int64_t, int64_t ia, int64_t sa) {
                            for (int64_t i = 0; i < n; ++i) po[oi + i] = a.as<const T>()[ia + i * sa];
                          });
      for (size_t k = 1; k < in.size(); ++k) {
        if (!in[k]) continue;
        const T* pb = in[k]->as<const T>();
        ForEachBroadcastRun(o.shape, o.shape, in[k]->shape, ctx.pool,
                            [&](int64_t oi, int64_t n, int64_t, int64_t, int64_t ib, int64_t sb) {
                              BinaryDispatch<T>(op_, po + oi, po + oi, pb + ib, n, 1, sb);
                            });
      }
      if (mean_) {
        int64_t count = 0;
        for (auto* t : in) count += t ? 1 : 0;
        for (int64_t i = 0; i < o.count(); ++i) po[i] = T(po[i] / T(count));
      }
    });
  }

 private:
  BinOp op_;
  bool mean_;
};

class NotKernel : public Kernel {
 public:
  NotKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kBool});
    out[0] = {DataType::kBool, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const uint8_t* x = in[0]->as<const uint8_t>();
    uint8_t* y = out[0].as<uint8_t>();
    for (int64_t i = 0; i < out[0].count(); ++i) y[i] = x[i] ? 0 : 1;
  }
};

// BitwiseNot (opset 18) of any integer type.
class BitwiseNotKernel : public Kernel {
 public:
  BitwiseNotKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {GEBE_INTEGER_TYPES});
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    GEBE_DISPATCH_BY_SIZE(ElementSize(in[0]->dtype), {
      const T* x = in[0]->as<const T>();
      T* y = out[0].as<T>();
      for (int64_t i = 0; i < out[0].count(); ++i) y[i] = T(~x[i]);
    });
  }
};

class WhereKernel : public Kernel {
 public:
  WhereKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& c = Input(in, 0, "condition");
    const TensorRef& x = Input(in, 1, "X");
    const TensorRef& y = Input(in, 2, "Y");
    ExpectType(c, "condition", {DataType::kBool});
    if (x.dtype != y.dtype) Fail("X and Y must have the same type");
    out[0].dtype = x.dtype;
    out[0].shape = BroadcastShapes(*this, BroadcastShapes(*this, c.shape, x.shape), y.shape);
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &c = *in[0], &x = *in[1], &y = *in[2];
    TensorRef& o = out[0];
    size_t rank = o.shape.size();
    auto sc = BroadcastStrides(c.shape, o.shape), sx = BroadcastStrides(x.shape, o.shape),
         sy = BroadcastStrides(y.shape, o.shape);
    int64_t total = o.count();
    size_t es = ElementSize(o.dtype);
    const uint8_t* pc = c.as<const uint8_t>();
    GEBE_DISPATCH_BY_SIZE(es, {
      const T* px = x.as<const T>();
      const T* py = y.as<const T>();
      T* po = o.as<T>();
      for (int64_t i = 0; i < total; ++i) {
        int64_t rem = i, ic = 0, ix = 0, iy = 0;
        for (size_t d = rank; d-- > 0;) {
          int64_t k = rem % o.shape[d];
          rem /= o.shape[d];
          ic += k * sc[d];
          ix += k * sx[d];
          iy += k * sy[d];
        }
        po[i] = pc[ic] ? px[ix] : py[iy];
      }
    });
  }
};

template <BinOp op>
struct Arith : ArithmeticKernel {
  Arith(const Node& node, int64_t) : ArithmeticKernel(node, op) {}
};
struct ModKernel : ArithmeticKernel {
  ModKernel(const Node& node, int64_t) : ArithmeticKernel(node, node.get_int("fmod", 0) ? BinOp::kFmod : BinOp::kMod) {}
};
struct BitShiftKernel : ArithmeticKernel {
  BitShiftKernel(const Node& node, int64_t) : ArithmeticKernel(node, Direction(node)) {}
  static BinOp Direction(const Node& node) {
    std::string d = node.get_string("direction", "");
    if (d != "LEFT" && d != "RIGHT") throw EngineError(node.label() + ": direction must be LEFT or RIGHT but is '" + d + "'");
    return d == "LEFT" ? BinOp::kBitShift : BinOp::kShiftRight;
  }
};
template <BinOp op>
struct Compare : ComparisonKernel {
  Compare(const Node& node, int64_t) : ComparisonKernel(node, op) {}
};
template <BinOp op, bool mean>
struct Variadic : VariadicKernel {
  Variadic(const Node& node, int64_t) : VariadicKernel(node, op, mean) {}
};

}  // namespace

GEBE_CPU_KERNEL("Add", Arith<BinOp::kAdd>);
GEBE_CPU_KERNEL("Sub", Arith<BinOp::kSub>);
GEBE_CPU_KERNEL("Mul", Arith<BinOp::kMul>);
GEBE_CPU_KERNEL("Div", Arith<BinOp::kDiv>);
GEBE_CPU_KERNEL("Pow", Arith<BinOp::kPow>);
GEBE_CPU_KERNEL("Mod", ModKernel);
GEBE_CPU_KERNEL("BitShift", BitShiftKernel);
GEBE_CPU_KERNEL("Equal", Compare<BinOp::kEqual>);
GEBE_CPU_KERNEL("Less", Compare<BinOp::kLess>);
GEBE_CPU_KERNEL("Greater", Compare<BinOp::kGreater>);
GEBE_CPU_KERNEL("LessOrEqual", Compare<BinOp::kLessEq>);
GEBE_CPU_KERNEL("GreaterOrEqual", Compare<BinOp::kGreaterEq>);
GEBE_CPU_KERNEL("And", Compare<BinOp::kAnd>);
GEBE_CPU_KERNEL("Or", Compare<BinOp::kOr>);
GEBE_CPU_KERNEL("Xor", Compare<BinOp::kXor>);
using MinKernel = Variadic<BinOp::kMin, false>;
using MaxKernel = Variadic<BinOp::kMax, false>;
using SumKernel = Variadic<BinOp::kAdd, false>;
using MeanKernel = Variadic<BinOp::kAdd, true>;
GEBE_CPU_KERNEL("Min", MinKernel);
GEBE_CPU_KERNEL("Max", MaxKernel);
GEBE_CPU_KERNEL("Sum", SumKernel);
GEBE_CPU_KERNEL("Mean", MeanKernel);
GEBE_CPU_KERNEL("Not", NotKernel);
GEBE_CPU_KERNEL("BitwiseAnd", Arith<BinOp::kBitAnd>);
GEBE_CPU_KERNEL("BitwiseOr", Arith<BinOp::kBitOr>);
GEBE_CPU_KERNEL("BitwiseXor", Arith<BinOp::kBitXor>);
GEBE_CPU_KERNEL("BitwiseNot", BitwiseNotKernel);
GEBE_CPU_KERNEL("Where", WhereKernel);

}  // namespace gebe::cpu
