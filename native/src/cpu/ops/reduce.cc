// Reductions: ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp; ArgMax, ArgMin. Axes come from the attribute
// or (ReduceSum from opset 13, the others from 18) from the optional second input.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/ops/op_util.h"
#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

namespace {

enum class Reduction { kMean, kSum, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

// The reduced shape split as [outer, reduced, inner] blocks is not enough for arbitrary axes, so
// reductions iterate the output and, per output element, the reduced sub-space.
struct ReducePlan {
  Shape out_shape, kept_shape;  // kept_shape: keepdims form
  std::vector<bool> reduced;
};

class ReduceKernel : public Kernel {
 public:
  ReduceKernel(const Node& node, Reduction r) : Kernel(node), r_(r) {
    keepdims_ = node.get_int("keepdims", 1) != 0;
    noop_ = node.get_int("noop_with_empty_axes", 0) != 0;
    axes_ = node.get_ints("axes");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    ExpectType(x, "data", {GEBE_NUMERIC_TYPES});
    if (in.size() > 1 && in[1] && !Known(*in[1])) return false;
    ReducePlan p = Plan(in);
    out[0] = {x.dtype, keepdims_ ? p.kept_shape : p.out_shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    ReducePlan p = Plan(in);
    size_t rank = x.shape.size();
    auto xs = Strides(x.shape);
    // Output iterates kept dims; the reduced sub-space iterates reduced dims.
    Shape rshape;
    std::vector<int64_t> rstrides, kstrides;
    Shape kshape;
    for (size_t d = 0; d < rank; ++d) {
      if (p.reduced[d]) {
        rshape.push_back(x.shape[d]);
        rstrides.push_back(xs[d]);
      } else {
        kshape.push_back(x.shape[d]);
        kstrides.push_back(xs[d]);
      }
    }
    int64_t n_out = ElementCount(kshape), n_red = ElementCount(rshape);
    int64_t block_outer = 1, block_inner = 1;
    const bool one_block = ReducedBlock(x.shape, p, &block_outer, &block_inner);
    const bool trailing = one_block && block_inner == 1;
    if (x.dtype == DataType::kFloat32 && (r_ == Reduction::kMean || r_ == Reduction::kSum) && trailing) {
      // Each output sums one contiguous run of n_red inputs (a global average over H·W, a mean
      // over the last axis): vector code, still accumulated in double.
      const float* px = x.as<const float>();
      float* py = out[0].as<float>();
      ctx.pool->ParallelFor(n_out, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, n_red)), [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o) {
          double sum = SumRow(px + o * n_red, n_red);
          py[o] = r_ == Reduction::kSum ? float(sum) : n_red ? float(sum / double(n_red)) : 0.f;
        }
      });
      return;
    }
    if (x.dtype == DataType::kFloat32 && (r_ == Reduction::kMean || r_ == Reduction::kSum) && n_red > 0 && one_block &&
        block_inner > 1) {
      // The reduced dims form one block between kept ones ([outer, n_red, inner]: a mean over the
      // channels of a map). Each output still adds its n_red values in order from 0 in double, as
      // the per-output walk does, but 256 neighbouring outputs at a time: every input row is read
      // once, along its length, and the adds vectorise across outputs (the walk strode a row's
      // length per value, each output's adds in one chain).
      constexpr int64_t kChunk = 256;
      const float* px = x.as<const float>();
      float* py = out[0].as<float>();
      const int64_t chunks = (block_inner + kChunk - 1) / kChunk;
      const bool mean = r_ == Reduction::kMean;
      ctx.pool->ParallelFor(block_outer * chunks, std::max<int64_t>(1, kParallelGrain / (n_red * kChunk)), [&](int64_t t0, int64_t t1) {
        double acc[kChunk];
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t o = t / chunks, i0 = (t % chunks) * kChunk, len = std::min(kChunk, block_inner - i0);
          for (int64_t i = 0; i < len; ++i) acc[i] = 0;
          const float* base = px + o * n_red * block_inner + i0;
          for (int64_t r = 0; r < n_red; ++r) {
            const float* row = base + r * block_inner;
            for (int64_t i = 0; i < len; ++i) acc[i] += double(row[i]);
          }
          float* dst = py + o * block_inner + i0;
          for (int64_t i = 0; i < len; ++i) dst[i] = mean ? float(acc[i] / double(n_red)) : float(acc[i]);
        }
      });
      return;
    }
    if (x.dtype == DataType::kFloat32 && (r_ == Reduction::kMax || r_ == Reduction::kMin) && trailing && n_red > 0) {
      // Reduce's chain starts from the first value, so a NaN there is the answer and a NaN later
      // is skipped; otherwise the chain from ∓inf gives the same value, taken on independent
      // chains (a maximum over the last axis of 1024: 7x ONNX Runtime as one chain).
      const float* px = x.as<const float>();
      float* py = out[0].as<float>();
      const bool max = r_ == Reduction::kMax;
      ctx.pool->ParallelFor(n_out, std::max<int64_t>(1, 4096 / n_red), [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o) {
          const float* row = px + o * n_red;
          py[o] = std::isnan(row[0]) ? row[0] : max ? MaxSkippingNaN(row, n_red) : MinSkippingNaN(row, n_red);
        }
      });
      return;
    }
    GEBE_DISPATCH_NUMERIC(x.dtype, {
      const T* px = x.as<const T>();
      T* py = out[0].as<T>();
      if (trailing) {
        // Each output reduces one contiguous run: read in place, with no offset table (which
        // for a reduction over everything is as long as the input, built with divisions).
        ctx.pool->ParallelFor(n_out, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, n_red)), [&](int64_t o0, int64_t o1) {
          for (int64_t o = o0; o < o1; ++o) py[o] = Reduce<T>(px + o * n_red, [](int64_t i) { return i; }, n_red);
        });
        return;
      }
      // Offsets of the reduced sub-space, computed once.
      std::vector<int64_t> roff(static_cast<size_t>(n_red));
      for (int64_t i = 0; i < n_red; ++i) {
        int64_t rem = i, off = 0;
        for (size_t d = rshape.size(); d-- > 0;) {
          off += (rem % rshape[d]) * rstrides[d];
          rem /= rshape[d];
        }
        roff[size_t(i)] = off;
      }
      ctx.pool->ParallelFor(n_out, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, n_red)), [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o) {
          int64_t rem = o, base = 0;
          for (size_t d = kshape.size(); d-- > 0;) {
            base += (rem % kshape[d]) * kstrides[d];
            rem /= kshape[d];
          }
          py[o] = Reduce<T>(px + base, [&roff](int64_t i) { return roff[size_t(i)]; }, n_red);
        }
      });
    });
  }

 private:
  // The reduction of the n elements at p + at(i), i < n.
  template <typename T, typename At>
  T Reduce(const T* p, const At& at, int64_t n) const {
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
    switch (r_) {
      case Reduction::kMax: {
        // An empty reduction is -infinity where the type has one, else its lowest value (ONNX, opset 18).
        if (n == 0) return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
        T m = p[at(0)];
        for (int64_t i = 1; i < n; ++i) m = p[at(i)] > m ? p[at(i)] : m;
        return m;
      }
      case Reduction::kMin: {
        if (n == 0) return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
        T m = p[at(0)];
        for (int64_t i = 1; i < n; ++i) m = p[at(i)] < m ? p[at(i)] : m;
        return m;
      }
      case Reduction::kProd: {
        Acc a = 1;
        for (int64_t i = 0; i < n; ++i) a *= p[at(i)];
        return T(a);
      }
      case Reduction::kLogSumExp: {
        double m = -INFINITY;
        for (int64_t i = 0; i < n; ++i) m = std::max(m, double(p[at(i)]));
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += std::exp(double(p[at(i)]) - m);
        return FromReal<T>(m + std::log(s));
      }
      default: break;
    }
    Acc a = 0;
    for (int64_t i = 0; i < n; ++i) {
      Acc v = Acc(p[at(i)]);
      if (r_ == Reduction::kL1) v = v < 0 ? -v : v;
      if (r_ == Reduction::kL2 || r_ == Reduction::kSumSquare) v = v * v;
      a += v;
    }
    switch (r_) {
      case Reduction::kMean: return n ? T(a / Acc(n)) : T(0);
      case Reduction::kL2: return FromReal<T>(std::sqrt(double(a)));
      case Reduction::kLogSum: return FromReal<T>(std::log(double(a)));
      default: return T(a);
    }
  }

  // The input as [outer, reduced, inner] blocks: true when the reduced dims (of more than one
  // element) sit together, with the kept element counts before and after them (both 1 when
  // nothing is reduced). inner 1: each output reduces one contiguous run of the input.
  static bool ReducedBlock(const Shape& shape, const ReducePlan& p, int64_t* outer, int64_t* inner) {
    bool reducing = false, kept_after = false;
    int64_t before = 1, after = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      if (p.reduced[d]) {
        if (kept_after) return false;  // kept dims on both sides of a reduced one
        reducing = true;
      } else if (reducing) {
        kept_after = true;
        after *= shape[d];
      } else {
        before *= shape[d];
      }
    }
    *outer = before;
    *inner = after;
    return true;
  }

  ReducePlan Plan(const std::vector<const TensorRef*>& in) const {
    const TensorRef& x = *in[0];
    std::vector<int64_t> axes = axes_;
    if (in.size() > 1 && in[1]) axes = ReadInts(*in[1]);
    ReducePlan p;
    size_t rank = x.shape.size();
    p.reduced.assign(rank, axes.empty() && !noop_);
    for (int64_t a : axes) p.reduced[size_t(NormalizeAxis(*this, a, int64_t(rank)))] = true;
    for (size_t d = 0; d < rank; ++d) {
      p.kept_shape.push_back(p.reduced[d] ? 1 : x.shape[d]);
      if (!p.reduced[d]) p.out_shape.push_back(x.shape[d]);
    }
    return p;
  }

  Reduction r_;
  bool keepdims_, noop_;
  std::vector<int64_t> axes_;
};

template <Reduction r>
struct ReduceOp : ReduceKernel {
  ReduceOp(const Node& node, int64_t) : ReduceKernel(node, r) {}
};

class ArgKernel : public Kernel {
 public:
  ArgKernel(const Node& node, bool max) : Kernel(node), max_(max) {
    axis_ = node.get_int("axis", 0);
    keepdims_ = node.get_int("keepdims", 1) != 0;
    last_ = node.get_int("select_last_index", 0) != 0;
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    ExpectType(x, "data", {GEBE_NUMERIC_TYPES});
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    Shape s = x.shape;
    // An empty axis has no index to give (ONNX Runtime refuses it too), unless no output is asked for.
    bool output_empty = false;
    for (size_t d = 0; d < s.size(); ++d) output_empty = output_empty || (d != axis && s[d] == 0);
    if (s[axis] == 0 && !output_empty) {
      Fail("data " + ShapeToString(x.shape) + " is empty along axis " + std::to_string(axis) + ", which has no index to give");
    }
    if (keepdims_) s[axis] = 1;
    else s.erase(s.begin() + long(axis));
    out[0] = {DataType::kInt64, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef& x = *in[0];
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    int64_t outer = SizeTo(x.shape, axis), dim = x.shape[axis], inner = SizeFrom(x.shape, axis + 1);
    int64_t* py = out[0].as<int64_t>();
    GEBE_DISPATCH_NUMERIC(x.dtype, {
      const T* px = x.as<const T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* s = px + o * dim * inner + i;
          int64_t best = 0;
          for (int64_t d = 1; d < dim; ++d) {
            T v = s[d * inner], b = s[best * inner];
            bool better = max_ ? (last_ ? v >= b : v > b) : (last_ ? v <= b : v < b);
            if (better) best = d;
          }
          py[o * inner + i] = best;
        }
      }
    });
  }

 private:
  bool max_;
  int64_t axis_;
  bool keepdims_, last_;
};

struct ArgMaxKernel : ArgKernel {
  ArgMaxKernel(const Node& node, int64_t) : ArgKernel(node, true) {}
};
struct ArgMinKernel : ArgKernel {
  ArgMinKernel(const Node& node, int64_t) : ArgKernel(node, false) {}
};

}  // namespace

GEBE_CPU_KERNEL("ReduceMean", ReduceOp<Reduction::kMean>);
GEBE_CPU_KERNEL("ReduceSum", ReduceOp<Reduction::kSum>);
GEBE_CPU_KERNEL("ReduceMax", ReduceOp<Reduction::kMax>);
GEBE_CPU_KERNEL("ReduceMin", ReduceOp<Reduction::kMin>);
GEBE_CPU_KERNEL("ReduceProd", ReduceOp<Reduction::kProd>);
GEBE_CPU_KERNEL("ReduceL1", ReduceOp<Reduction::kL1>);
GEBE_CPU_KERNEL("ReduceL2", ReduceOp<Reduction::kL2>);
GEBE_CPU_KERNEL("ReduceSumSquare", ReduceOp<Reduction::kSumSquare>);
GEBE_CPU_KERNEL("ReduceLogSum", ReduceOp<Reduction::kLogSum>);
GEBE_CPU_KERNEL("ReduceLogSumExp", ReduceOp<Reduction::kLogSumExp>);
GEBE_CPU_KERNEL("ArgMax", ArgMaxKernel);
GEBE_CPU_KERNEL("ArgMin", ArgMinKernel);

}  // namespace gebe::cpu
