// Indexing operators: GatherElements, GatherND, ScatterElements (and the older Scatter),
// ScatterND, TensorScatter, TopK, NonZero, Compress, OneHot, CumSum. Data movement works on any element type by
// width; indices may be negative (counted from the end) and are bounds-checked, naming the node.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

int64_t IndexAt(const TensorRef& t, int64_t i) {
  return t.dtype == DataType::kInt64 ? t.as<const int64_t>()[i] : int64_t(t.as<const int32_t>()[i]);
}

// Resolves a possibly negative index against an extent, failing outside [-extent, extent).
int64_t ResolveIndex(const Kernel& k, int64_t v, int64_t extent) {
  if (v < -extent || v >= extent) {
    throw EngineError(k.node().label() + ": index " + std::to_string(v) + " is out of range for a dimension of size " +
                      std::to_string(extent));
  }
  return v < 0 ? v + extent : v;
}

// GatherElements' and ScatterElements' indices may be shorter than data along any dim but the
// axis, never longer: every position they name off the axis must exist in data.
void CheckIndicesFitData(const Kernel& k, const TensorRef& idx, const TensorRef& x, size_t axis) {
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (d != axis && idx.shape[d] > x.shape[d]) {
      throw EngineError(k.node().label() + ": indices " + ShapeToString(idx.shape) + " are longer than data " +
                        ShapeToString(x.shape) + " in dimension " + std::to_string(d) + " (only the axis, " +
                        std::to_string(axis) + ", may differ freely)");
    }
  }
}

// Index of element `flat` of `shape` in a tensor with strides `strides`, axis `axis` replaced by `at`.
int64_t OffsetWithAxis(int64_t flat, const Shape& shape, const std::vector<int64_t>& strides, size_t axis, int64_t at) {
  int64_t off = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t i = flat % shape[d];
    flat /= shape[d];
    off += (d == axis ? at : i) * strides[d];
  }
  return off;
}

class GatherElementsKernel : public Kernel {
 public:
  GatherElementsKernel(const Node& node, int64_t) : Kernel(node), axis_(node.get_int("axis", 0)) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    const TensorRef& idx = Input(in, 1, "indices");
    ExpectType(idx, "indices", {DataType::kInt64, DataType::kInt32});
    if (x.rank() != idx.rank() || x.rank() == 0) Fail("data and indices must have the same rank (at least 1)");
    CheckIndicesFitData(*this, idx, x, size_t(NormalizeAxis(*this, axis_, x.rank())));
    out[0] = {x.dtype, idx.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &idx = *in[1];
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    auto strides = Strides(x.shape);
    GEBE_DISPATCH_BY_SIZE(ElementSize(x.dtype), {
      const T* px = x.as<const T>();
      T* po = out[0].as<T>();
      for (int64_t i = 0; i < idx.count(); ++i) {
        int64_t at = ResolveIndex(*this, IndexAt(idx, i), x.shape[axis]);
        po[i] = px[OffsetWithAxis(i, idx.shape, strides, axis, at)];
      }
    });
  }

 private:
  int64_t axis_;
};

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Reduction ReadReduction(const Kernel& k, const Node& node) {
  std::string r = node.get_string("reduction", "none");
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  throw EngineError(node.label() + ": reduction '" + r + "' is not one of none, add, mul, max, min");
}

template <typename T>
void Combine(Reduction r, T& dst, T v) {
  switch (r) {
    case Reduction::kNone: dst = v; break;
    case Reduction::kAdd: dst = T(dst + v); break;
    case Reduction::kMul: dst = T(dst * v); break;
    case Reduction::kMax: dst = std::max(dst, v); break;
    case Reduction::kMin: dst = std::min(dst, v); break;
  }
}

// ScatterElements' and ScatterND's updates: written into a copy of data, so of its element type.
void ExpectUpdatesTypeOfData(const Kernel& k, const TensorRef& updates, const TensorRef& data) {
  if (updates.dtype != data.dtype) throw EngineError(k.node().label() + ": updates must have the data's type");
}

class ScatterElementsKernel : public Kernel {
 public:
  ScatterElementsKernel(const Node& node, int64_t) : Kernel(node), axis_(node.get_int("axis", 0)), reduction_(ReadReduction(*this, node)) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    const TensorRef& idx = Input(in, 1, "indices");
    const TensorRef& upd = Input(in, 2, "updates");
    ExpectType(idx, "indices", {DataType::kInt64, DataType::kInt32});
    if (idx.shape != upd.shape) Fail("indices and updates must have the same shape");
    if (x.rank() != idx.rank() || x.rank() == 0) Fail("data and indices must have the same rank (at least 1)");
    ExpectUpdatesTypeOfData(*this, upd, x);
    CheckIndicesFitData(*this, idx, x, size_t(NormalizeAxis(*this, axis_, x.rank())));
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &idx = *in[1], &upd = *in[2];
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    auto strides = Strides(x.shape);
    std::memcpy(out[0].data, x.data, x.bytes());
    auto body = [&](auto tag) {
      using T = decltype(tag);
      T* po = out[0].as<T>();
      for (int64_t i = 0; i < idx.count(); ++i) {
        int64_t at = ResolveIndex(*this, IndexAt(idx, i), x.shape[axis]);
        Combine(reduction_, po[OffsetWithAxis(i, idx.shape, strides, axis, at)], upd.as<const T>()[i]);
      }
    };
    if (reduction_ == Reduction::kNone || x.dtype == DataType::kBool) {
      GEBE_DISPATCH_BY_SIZE(ElementSize(x.dtype), { body(T{}); });
    } else {
      GEBE_DISPATCH_NUMERIC(x.dtype, { body(T{}); });
    }
  }

 private:
  int64_t axis_;
  Reduction reduction_;
};

class ScatterNDKernel : public Kernel {
 public:
  ScatterNDKernel(const Node& node, int64_t) : Kernel(node), reduction_(ReadReduction(*this, node)) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    const TensorRef& idx = Input(in, 1, "indices");
    ExpectUpdatesTypeOfData(*this, Input(in, 2, "updates"), x);
    ExpectType(idx, "indices", {DataType::kInt64});
    if (idx.rank() < 1 || idx.shape.back() > x.rank()) Fail("indices' last dimension must be at most the data's rank");
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &idx = *in[1], &upd = *in[2];
    int64_t k = idx.shape.back(), tuples = idx.count() / std::max<int64_t>(k, 1);
    int64_t slice = SizeFrom(x.shape, size_t(k));
    if (upd.count() != tuples * slice) Fail("updates has " + std::to_string(upd.count()) + " elements but needs " + std::to_string(tuples * slice));
    auto strides = Strides(x.shape);
    std::memcpy(out[0].data, x.data, x.bytes());
    auto body = [&](auto tag) {
      using T = decltype(tag);
      T* po = out[0].as<T>();
      for (int64_t t = 0; t < tuples; ++t) {
        int64_t base = 0;
        for (int64_t j = 0; j < k; ++j) base += ResolveIndex(*this, IndexAt(idx, t * k + j), x.shape[size_t(j)]) * strides[size_t(j)];
        for (int64_t e = 0; e < slice; ++e) Combine(reduction_, po[base + e], upd.as<const T>()[t * slice + e]);
      }
    };
    if (reduction_ == Reduction::kNone || x.dtype == DataType::kBool) {
      GEBE_DISPATCH_BY_SIZE(ElementSize(x.dtype), { body(T{}); });
    } else {
      GEBE_DISPATCH_NUMERIC(x.dtype, { body(T{}); });
    }
  }

 private:
  Reduction reduction_;
};

// TensorScatter (opset 24), a key/value cache's update: past_cache with, for each batch entry b,
// the sequence rows write_indices[b] .. + S along `axis` replaced by update's S rows (S is
// update's extent there); "circular" takes the rows modulo the cache's length (the index too),
// "linear" refuses rows past its end. The cache is copied first, then each prefix's rows, contiguous runs of the dims
// after the axis, are copied over.
class TensorScatterKernel : public Kernel {
 public:
  TensorScatterKernel(const Node& node, int64_t) : Kernel(node), axis_(node.get_int("axis", -2)) {
    const std::string mode = node.get_string("mode", "linear");
    if (mode != "linear" && mode != "circular") Fail("mode must be 'linear' or 'circular' but is '" + mode + "'");
    circular_ = mode == "circular";
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& past = Input(in, 0, "past_cache");
    const TensorRef& update = Input(in, 1, "update");
    if (update.dtype != past.dtype) Fail(std::string("update must have past_cache's type (") + DataTypeName(past.dtype) + ") but is " + DataTypeName(update.dtype));
    const size_t axis = Axis(past);
    bool fits = update.rank() == past.rank() && update.shape[axis] <= past.shape[axis];
    for (size_t d = 0; fits && d < past.shape.size(); ++d) fits = d == axis || update.shape[d] == past.shape[d];
    if (!fits) {
      Fail("update " + ShapeToString(update.shape) + " must be past_cache " + ShapeToString(past.shape) + " with at most " +
           std::to_string(past.shape[axis]) + " rows along axis " + std::to_string(axis));
    }
    if (in.size() > 2 && in[2]) {
      ExpectType(*in[2], "write_indices", {DataType::kInt64});
      if (in[2]->shape != Shape{past.shape[0]}) Fail("write_indices must be [batch] = [" + std::to_string(past.shape[0]) + "]; shape " + ShapeToString(in[2]->shape));
    }
    out[0] = {past.dtype, past.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &past = *in[0], &update = *in[1];
    const TensorRef* where = in.size() > 2 ? in[2] : nullptr;
    const size_t axis = Axis(past);
    const int64_t rows = past.shape[axis], written = update.shape[axis], batch = past.shape[0];
    const int64_t inner = SizeFrom(past.shape, axis + 1), prefixes = SizeTo(past.shape, axis), per_batch = prefixes / std::max<int64_t>(1, batch);
    std::vector<int64_t> start(size_t(batch), 0);
    for (int64_t b = 0; where && b < batch; ++b) {
      const int64_t w = where->as<const int64_t>()[b];
      if (w < 0) Fail("write_indices[" + std::to_string(b) + "] is " + std::to_string(w) + "; a write index must not be negative");
      if (!circular_ && w > rows - written) {
        Fail("write_indices[" + std::to_string(b) + "] is " + std::to_string(w) + ": " + std::to_string(written) + " rows from there do not fit the cache's " +
             std::to_string(rows) + " (mode 'circular' wraps them)");
      }
      start[size_t(b)] = rows > 0 ? w % rows : 0;
    }
    const size_t es = ElementSize(past.dtype), run = size_t(inner) * es;
    std::memcpy(out[0].data, past.data, past.bytes());
    auto* dst = static_cast<uint8_t*>(out[0].data);
    const auto* src = static_cast<const uint8_t*>(update.data);
    for (int64_t p = 0; p < prefixes; ++p) {
      const int64_t b = p / std::max<int64_t>(1, per_batch);
      for (int64_t s = 0; s < written; ++s) {
        const int64_t row = (start[size_t(b)] + s) % rows;
        std::memcpy(dst + size_t((p * rows + row) * inner) * es, src + size_t((p * written + s) * inner) * es, run);
      }
    }
  }

 private:
  size_t Axis(const TensorRef& past) const {
    const int64_t axis = NormalizeAxis(*this, axis_, past.rank());
    if (axis == 0) Fail("axis must not be 0 (the batch dim)");
    return size_t(axis);
  }

  int64_t axis_;
  bool circular_ = false;
};

class GatherNDKernel : public Kernel {
 public:
  GatherNDKernel(const Node& node, int64_t) : Kernel(node), batch_dims_(node.get_int("batch_dims", 0)) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    const TensorRef& idx = Input(in, 1, "indices");
    ExpectType(idx, "indices", {DataType::kInt64});
    int64_t b = batch_dims_;
    if (b < 0 || idx.rank() < 1 || b >= idx.rank() || b >= x.rank()) Fail("batch_dims must be below the ranks of data and indices");
    int64_t k = idx.shape.back();
    if (k < 1 || b + k > x.rank()) Fail("indices' last dimension plus batch_dims must be at most the data's rank");
    for (int64_t i = 0; i < b; ++i)
      if (x.shape[size_t(i)] != idx.shape[size_t(i)]) Fail("the batch dims of data and indices must agree");
    Shape s(idx.shape.begin(), idx.shape.end() - 1);
    s.insert(s.end(), x.shape.begin() + b + k, x.shape.end());
    out[0] = {x.dtype, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &idx = *in[1];
    int64_t b = batch_dims_, k = idx.shape.back();
    int64_t batches = SizeTo(x.shape, size_t(b));
    int64_t tuples_per_batch = SizeTo(idx.shape, idx.shape.size() - 1) / std::max<int64_t>(batches, 1);
    int64_t slice = SizeFrom(x.shape, size_t(b + k));
    int64_t batch_stride = SizeFrom(x.shape, size_t(b));
    auto strides = Strides(x.shape);
    GEBE_DISPATCH_BY_SIZE(ElementSize(x.dtype), {
      const T* px = x.as<const T>();
      T* po = out[0].as<T>();
      for (int64_t bi = 0; bi < batches; ++bi) {
        for (int64_t t = 0; t < tuples_per_batch; ++t) {
          int64_t tuple = bi * tuples_per_batch + t, base = bi * batch_stride;
          for (int64_t j = 0; j < k; ++j) {
            base += ResolveIndex(*this, IndexAt(idx, tuple * k + j), x.shape[size_t(b + j)]) * strides[size_t(b + j)];
          }
          std::memcpy(po + tuple * slice, px + base, size_t(slice) * sizeof(T));
        }
      }
    });
  }

 private:
  int64_t batch_dims_;
};

class TopKKernel : public Kernel {
 public:
  TopKKernel(const Node& node, int64_t opset) : Kernel(node), opset_(opset) {
    axis_ = node.get_int("axis", -1);
    largest_ = node.get_int("largest", 1) != 0;
    if (opset < 10) k_attr_ = node.get_int("k", 0);
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {GEBE_NUMERIC_TYPES});
    int64_t k = k_attr_;
    if (opset_ >= 10) {
      const TensorRef& kt = Input(in, 1, "K");
      ExpectType(kt, "K", {DataType::kInt64});
      if (!Known(kt)) return false;
      if (kt.count() != 1) Fail("K must hold one value");
      k = ReadInts(kt)[0];
    }
    int64_t axis = NormalizeAxis(*this, axis_, x.rank());
    if (k < 0 || k > x.shape[size_t(axis)]) Fail("K = " + std::to_string(k) + " is outside 0.." + std::to_string(x.shape[size_t(axis)]));
    Shape s = x.shape;
    s[size_t(axis)] = k;
    out[0] = {x.dtype, s, nullptr};
    if (out.size() > 1) out[1] = {DataType::kInt64, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef& x = *in[0];
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    int64_t n = x.shape[axis], k = out[0].shape[axis];
    int64_t outer = SizeTo(x.shape, axis), inner = SizeFrom(x.shape, axis + 1);
    std::vector<int64_t> order(static_cast<size_t>(n));
    GEBE_DISPATCH_NUMERIC(x.dtype, {
      const T* px = x.as<const T>();
      T* pv = out[0].as<T>();
      int64_t* pi = out.size() > 1 && out[1].data ? out[1].as<int64_t>() : nullptr;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* row = px + o * n * inner + i;
          std::iota(order.begin(), order.end(), 0);
          // Ties keep the lower index first, as ONNX Runtime does.
          auto better = [&](int64_t a, int64_t b) {
            T va = row[a * inner], vb = row[b * inner];
            if (va == vb) return a < b;
            return largest_ ? va > vb : va < vb;
          };
          std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
          for (int64_t j = 0; j < k; ++j) {
            int64_t at = (o * k + j) * inner + i;
            pv[at] = row[order[size_t(j)] * inner];
            if (pi) pi[at] = order[size_t(j)];
          }
        }
      }
    });
  }

 private:
  int64_t opset_, axis_ = -1, k_attr_ = 0;
  bool largest_ = true;
};

bool IsNonZero(const TensorRef& t, int64_t i) {
  switch (ElementSize(t.dtype)) {
    case 1: return t.as<const uint8_t>()[i] != 0;
    case 2: return t.as<const uint16_t>()[i] != 0;
    case 4: return t.dtype == DataType::kFloat32 ? t.as<const float>()[i] != 0 : t.as<const uint32_t>()[i] != 0;
    default: return t.dtype == DataType::kFloat64 ? t.as<const double>()[i] != 0 : t.as<const uint64_t>()[i] != 0;
  }
}

// Output shapes depend on values: the planner runs these once the inputs are known.
class NonZeroKernel : public Kernel {
 public:
  NonZeroKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    if (!Known(x)) return false;
    int64_t nnz = 0;
    for (int64_t i = 0; i < x.count(); ++i) nnz += IsNonZero(x, i);
    out[0] = {DataType::kInt64, {int64_t(x.rank()), nnz}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef& x = *in[0];
    int64_t nnz = out[0].shape[1], j = 0;
    int64_t* po = out[0].as<int64_t>();
    for (int64_t i = 0; i < x.count(); ++i) {
      if (!IsNonZero(x, i)) continue;
      int64_t rem = i;
      for (size_t d = x.shape.size(); d-- > 0;) {
        po[int64_t(d) * nnz + j] = rem % x.shape[d];
        rem /= x.shape[d];
      }
      ++j;
    }
  }
};

class CompressKernel : public Kernel {
 public:
  CompressKernel(const Node& node, int64_t) : Kernel(node), has_axis_(node.has("axis")), axis_(node.get_int("axis", 0)) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    const TensorRef& c = Input(in, 1, "condition");
    ExpectType(c, "condition", {DataType::kBool});
    if (c.rank() != 1) Fail("condition must be 1-D");
    if (!Known(c)) return false;
    int64_t extent = has_axis_ ? x.shape[size_t(NormalizeAxis(*this, axis_, x.rank()))] : x.count();
    int64_t kept = 0;
    for (int64_t i = 0; i < std::min(extent, c.count()); ++i) kept += c.as<const uint8_t>()[i] != 0;
    Shape s = has_axis_ ? x.shape : Shape{kept};
    if (has_axis_) s[size_t(NormalizeAxis(*this, axis_, x.rank()))] = kept;
    out[0] = {x.dtype, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &c = *in[1];
    size_t es = ElementSize(x.dtype);
    const uint8_t* px = static_cast<const uint8_t*>(x.data);
    uint8_t* po = static_cast<uint8_t*>(out[0].data);
    size_t axis = has_axis_ ? size_t(NormalizeAxis(*this, axis_, x.rank())) : 0;
    int64_t outer = has_axis_ ? SizeTo(x.shape, axis) : 1;
    int64_t extent = has_axis_ ? x.shape[axis] : x.count();
    int64_t inner = has_axis_ ? SizeFrom(x.shape, axis + 1) : 1;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < std::min(extent, c.count()); ++i) {
        if (!c.as<const uint8_t>()[i]) continue;
        std::memcpy(po, px + size_t((o * extent + i) * inner) * es, size_t(inner) * es);
        po += size_t(inner) * es;
      }
    }
  }

 private:
  bool has_axis_;
  int64_t axis_;
};

class OneHotKernel : public Kernel {
 public:
  OneHotKernel(const Node& node, int64_t) : Kernel(node), axis_(node.get_int("axis", -1)) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& idx = Input(in, 0, "indices");
    const TensorRef& depth = Input(in, 1, "depth");
    const TensorRef& values = Input(in, 2, "values");
    ExpectType(idx, "indices", {GEBE_NUMERIC_TYPES});
    ExpectType(depth, "depth", {GEBE_NUMERIC_TYPES});
    if (values.count() != 2) Fail("values must hold [off_value, on_value]");
    if (!Known(depth)) return false;
    if (depth.count() != 1) Fail("depth must hold one value");
    int64_t d = FromReal<int64_t>(ReadAsDouble(depth, 0));
    if (d <= 0) Fail("depth must be positive but is " + std::to_string(d));
    Shape s = idx.shape;
    int64_t axis = NormalizeAxis(*this, axis_, idx.rank() + 1);
    s.insert(s.begin() + axis, d);
    out[0] = {values.dtype, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &idx = *in[0], &values = *in[2];
    size_t axis = size_t(NormalizeAxis(*this, axis_, idx.rank() + 1));
    int64_t depth = out[0].shape[axis];
    int64_t outer = SizeTo(idx.shape, axis), inner = SizeFrom(idx.shape, axis);
    GEBE_DISPATCH_BY_SIZE(ElementSize(values.dtype), {
      const T* pv = values.as<const T>();
      T* po = out[0].as<T>();
      for (int64_t i = 0; i < out[0].count(); ++i) po[i] = pv[0];
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          int64_t v = FromReal<int64_t>(ReadAsDouble(idx, o * inner + i));
          if (v < 0) v += depth;
          if (v < 0 || v >= depth) continue;  // out of range: all off
          po[(o * depth + v) * inner + i] = pv[1];
        }
      }
    });
  }

 private:
  int64_t axis_;
};

class CumSumKernel : public Kernel {
 public:
  CumSumKernel(const Node& node, int64_t) : Kernel(node) {
    exclusive_ = node.get_int("exclusive", 0) != 0;
    reverse_ = node.get_int("reverse", 0) != 0;
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "x");
    const TensorRef& axis = Input(in, 1, "axis");
    ExpectType(x, "x", {GEBE_NUMERIC_TYPES});
    ExpectType(axis, "axis", {DataType::kInt64, DataType::kInt32});
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &at = *in[1];
    if (at.count() != 1) Fail("axis must hold one value");
    size_t axis = size_t(NormalizeAxis(*this, ReadInts(at)[0], x.rank()));
    int64_t n = x.shape[axis], outer = SizeTo(x.shape, axis), inner = SizeFrom(x.shape, axis + 1);
    GEBE_DISPATCH_NUMERIC(x.dtype, {
      const T* px = x.as<const T>();
      T* po = out[0].as<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          T sum = T(0);
          for (int64_t s = 0; s < n; ++s) {
            int64_t j = reverse_ ? n - 1 - s : s;
            int64_t off = (o * n + j) * inner + i;
            if (exclusive_) {
              po[off] = sum;
              sum = T(sum + px[off]);
            } else {
              sum = T(sum + px[off]);
              po[off] = sum;
            }
          }
        }
      }
    });
  }

 private:
  bool exclusive_ = false, reverse_ = false;
};

}  // namespace

GEBE_CPU_KERNEL("GatherElements", GatherElementsKernel);
GEBE_CPU_KERNEL("ScatterElements", ScatterElementsKernel);
GEBE_CPU_KERNEL("Scatter", ScatterElementsKernel);
GEBE_CPU_KERNEL("ScatterND", ScatterNDKernel);
GEBE_CPU_KERNEL("TensorScatter", TensorScatterKernel);
GEBE_CPU_KERNEL("GatherND", GatherNDKernel);
GEBE_CPU_KERNEL("TopK", TopKKernel);
GEBE_CPU_KERNEL("NonZero", NonZeroKernel);
GEBE_CPU_KERNEL("Compress", CompressKernel);
GEBE_CPU_KERNEL("OneHot", OneHotKernel);
GEBE_CPU_KERNEL("CumSum", CumSumKernel);

}  // namespace gebe::cpu
