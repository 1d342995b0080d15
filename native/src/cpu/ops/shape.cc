// Operators about shapes and constants: Reshape, Flatten, Squeeze, Unsqueeze, Shape, Size,
// Identity, Dropout (inference), Constant, ConstantOfShape, Range, Cast.
#include <cmath>
#include <cstring>

#include "cpu/half.h"
#include "cpu/ops/op_util.h"
#include "cpu/type_lowering.h"

namespace gebe::cpu {

namespace {

void CopyData(const TensorRef& from, TensorRef& to) {
  if (from.bytes() && from.data != to.data) std::memcpy(to.data, from.data, from.bytes());
}

// Base for kernels whose output is the input's bytes under a new shape.
class ViewKernel : public Kernel {
 public:
  using Kernel::Kernel;
  bool IsView() const override { return true; }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    CopyData(*in[0], out[0]);
  }
};

class ReshapeKernel : public ViewKernel {
 public:
  ReshapeKernel(const Node& node, int64_t opset) : ViewKernel(node), opset_(opset) {
    allow_zero_ = node.get_int("allowzero", 0) != 0;
    if (opset < 5) attr_shape_ = node.get_ints("shape");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    std::vector<int64_t> target;
    if (opset_ < 5) {
      target = attr_shape_;
    } else {
      const TensorRef& s = Input(in, 1, "shape");
      ExpectType(s, "shape", {DataType::kInt64});
      if (!Known(s)) return false;
      target = ReadInts(s);
    }
    int64_t known = 1, infer_at = -1;
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] == 0 && !allow_zero_) {
        if (i >= x.shape.size()) Fail("shape " + ShapeToString(target) + " copies dimension " + std::to_string(i) + " that the input " + ShapeToString(x.shape) + " does not have");
        target[i] = x.shape[i];
      }
      if (target[i] == -1) {
        if (infer_at >= 0) Fail("shape " + ShapeToString(target) + " has more than one -1");
        infer_at = int64_t(i);
      } else if (target[i] < 0) {
        Fail("shape " + ShapeToString(target) + " has a negative dimension");
      } else if (__builtin_mul_overflow(known, target[i], &known)) {
        Fail("shape " + ShapeToString(target) + " has more elements than a 64-bit count holds");
      }
    }
    int64_t total = x.count();
    if (infer_at >= 0) {
      if (known == 0 || total % known != 0) {
        Fail("cannot reshape input of shape " + ShapeToString(x.shape) + " to " + ShapeToString(target));
      }
      target[size_t(infer_at)] = total / known;
    } else if (known != total) {
      Fail("cannot reshape input of shape " + ShapeToString(x.shape) + " (" + std::to_string(total) + " elements) to " +
           ShapeToString(target) + " (" + std::to_string(known) + " elements)");
    }
    out[0] = {x.dtype, target, nullptr};
    return true;
  }

 private:
  int64_t opset_;
  bool allow_zero_;
  std::vector<int64_t> attr_shape_;
};

class FlattenKernel : public ViewKernel {
 public:
  FlattenKernel(const Node& node, int64_t) : ViewKernel(node), axis_(node.get_int("axis", 1)) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    int64_t r = x.rank();
    if (axis_ < -r || axis_ > r) Fail("axis " + std::to_string(axis_) + " is out of range for rank " + std::to_string(r));
    size_t axis = size_t(axis_ < 0 ? axis_ + r : axis_);
    out[0] = {x.dtype, {SizeTo(x.shape, axis), SizeFrom(x.shape, axis)}, nullptr};
    return true;
  }

 private:
  int64_t axis_;
};

class SqueezeKernel : public ViewKernel {
 public:
  SqueezeKernel(const Node& node, int64_t opset) : ViewKernel(node), opset_(opset), axes_(node.get_ints("axes")) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    std::vector<int64_t> axes = axes_;
    if (opset_ >= 13 && in.size() > 1 && in[1]) {
      if (!Known(*in[1])) return false;
      axes = ReadInts(*in[1]);
    }
    std::vector<bool> drop(x.shape.size(), false);
    if (axes.empty()) {
      for (size_t i = 0; i < x.shape.size(); ++i) drop[i] = x.shape[i] == 1;
    }
    for (int64_t a : axes) {
      size_t i = size_t(NormalizeAxis(*this, a, x.rank()));
      if (x.shape[i] != 1) Fail("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(x.shape[i]) + " (shape " + ShapeToString(x.shape) + ")");
      drop[i] = true;
    }
    Shape s;
    for (size_t i = 0; i < x.shape.size(); ++i)
      if (!drop[i]) s.push_back(x.shape[i]);
    out[0] = {x.dtype, s, nullptr};
    return true;
  }

 private:
  int64_t opset_;
  std::vector<int64_t> axes_;
};

class UnsqueezeKernel : public ViewKernel {
 public:
  UnsqueezeKernel(const Node& node, int64_t opset) : ViewKernel(node), opset_(opset), axes_(node.get_ints("axes")) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    std::vector<int64_t> axes = axes_;
    if (opset_ >= 13) {
      const TensorRef& a = Input(in, 1, "axes");
      if (!Known(a)) return false;
      axes = ReadInts(a);
    }
    int64_t rank = x.rank() + int64_t(axes.size());
    std::vector<bool> inserted(size_t(rank), false);
    for (int64_t a : axes) {
      size_t i = size_t(NormalizeAxis(*this, a, rank));
      if (inserted[i]) Fail("axes has a duplicate entry " + std::to_string(a));
      inserted[i] = true;
    }
    Shape s;
    size_t k = 0;
    for (int64_t i = 0; i < rank; ++i) s.push_back(inserted[size_t(i)] ? 1 : x.shape[k++]);
    out[0] = {x.dtype, s, nullptr};
    return true;
  }

 private:
  int64_t opset_;
  std::vector<int64_t> axes_;
};

class IdentityKernel : public ViewKernel {
 public:
  IdentityKernel(const Node& node, int64_t) : ViewKernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
};

// Dropout at inference: output = input, mask = all true.
class DropoutKernel : public Kernel {
 public:
  DropoutKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    if (in.size() > 2 && in[2]) {
      if (!in[2]->data) return false;
      if (in[2]->as<const uint8_t>()[0]) Fail("training_mode=true is not supported; the cpu engine runs inference only");
    }
    out[0] = {x.dtype, x.shape, nullptr};
    if (out.size() > 1) out[1] = {DataType::kBool, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    CopyData(*in[0], out[0]);
    if (out.size() > 1 && out[1].data) std::memset(out[1].data, 1, out[1].bytes());
  }
};

class ShapeKernel : public Kernel {
 public:
  ShapeKernel(const Node& node, int64_t) : Kernel(node), start_(node.get_int("start", 0)), end_(node.get_int("end", INT64_MAX)) {}
  bool ShapeOnly() const override { return true; }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "data");
    int64_t s, e;
    Range(x.rank(), s, e);
    out[0] = {DataType::kInt64, {std::max<int64_t>(0, e - s)}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    int64_t s, e;
    Range(in[0]->rank(), s, e);
    for (int64_t i = s; i < e; ++i) out[0].as<int64_t>()[i - s] = in[0]->shape[size_t(i)];
  }

 private:
  void Range(int64_t r, int64_t& s, int64_t& e) const {
    s = start_ < 0 ? std::max<int64_t>(0, start_ + r) : std::min(start_, r);
    e = end_ < 0 ? std::max<int64_t>(0, end_ + r) : std::min(end_, r);
  }
  int64_t start_, end_;
};

class SizeKernel : public Kernel {
 public:
  SizeKernel(const Node& node, int64_t) : Kernel(node) {}
  bool ShapeOnly() const override { return true; }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    Input(in, 0, "data");
    out[0] = {DataType::kInt64, {}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    out[0].as<int64_t>()[0] = in[0]->count();
  }
};

class ConstantKernel : public Kernel {
 public:
  ConstantKernel(const Node& node, int64_t) : Kernel(node) {
    if (node.has("value")) {
      value_ = node.attributes.at("value").t;
      if (value_.dtype == DataType::kString || value_.dtype == DataType::kInvalid || value_.dtype == DataType::kFloat16 ||
          value_.dtype == DataType::kBFloat16) {
        Fail("the value's element type is not supported by the cpu engine");
      }
    } else if (node.has("value_float")) {
      value_ = ConstTensor::Allocate(DataType::kFloat32, {});
      static_cast<float*>(value_.storage->data())[0] = node.get_float("value_float", 0);
    } else if (node.has("value_int")) {
      value_ = ConstTensor::Allocate(DataType::kInt64, {});
      static_cast<int64_t*>(value_.storage->data())[0] = node.get_int("value_int", 0);
    } else if (node.has("value_floats")) {
      auto v = node.get_floats("value_floats");
      value_ = ConstTensor::Allocate(DataType::kFloat32, {int64_t(v.size())});
      if (!v.empty()) std::memcpy(value_.storage->data(), v.data(), v.size() * 4);
    } else if (node.has("value_ints")) {
      auto v = node.get_ints("value_ints");
      value_ = ConstTensor::Allocate(DataType::kInt64, {int64_t(v.size())});
      if (!v.empty()) std::memcpy(value_.storage->data(), v.data(), v.size() * 8);
    } else {
      Fail("only the value, value_float(s) and value_int(s) attributes are supported (sparse and string constants are not)");
    }
  }
  bool Infer(const std::vector<const TensorRef*>&, std::vector<TensorRef>& out) override {
    out[0] = {value_.dtype, value_.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>&, std::vector<TensorRef>& out, const RunContext&) override {
    TensorRef v = value_.ref();
    CopyData(v, out[0]);
  }

 private:
  ConstTensor value_;
};

class ConstantOfShapeKernel : public Kernel {
 public:
  ConstantOfShapeKernel(const Node& node, int64_t) : Kernel(node) {
    if (node.has("value")) {
      value_ = node.attributes.at("value").t;
      if (value_.count() != 1) Fail("value must hold exactly one element");
    } else {
      value_ = ConstTensor::Allocate(DataType::kFloat32, {1});
      static_cast<float*>(value_.storage->data())[0] = 0.f;
    }
    if (ElementSize(value_.dtype) == 0) Fail("value has an unsupported element type");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& s = Input(in, 0, "input");
    ExpectType(s, "input", {DataType::kInt64});
    if (!Known(s)) return false;
    Shape shape = ReadInts(s);
    for (int64_t d : shape)
      if (d < 0) Fail("shape " + ShapeToString(shape) + " has a negative dimension");
    out[0] = {value_.dtype, shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>&, std::vector<TensorRef>& out, const RunContext&) override {
    GEBE_DISPATCH_BY_SIZE(ElementSize(value_.dtype), {
      T v = value_.as<T>()[0];
      T* p = out[0].as<T>();
      for (int64_t i = 0; i < out[0].count(); ++i) p[i] = v;
    });
  }

 private:
  ConstTensor value_;
};

class RangeKernel : public Kernel {
 public:
  RangeKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& start = Input(in, 0, "start");
    Input(in, 1, "limit");
    Input(in, 2, "delta");
    ExpectType(start, "start", {DataType::kFloat32, DataType::kInt64, DataType::kInt32, DataType::kFloat64});
    for (int i = 0; i < 3; ++i) {
      if (in[size_t(i)]->count() != 1) Fail("start, limit and delta must be scalars");
      if (in[size_t(i)]->dtype != start.dtype) Fail("start, limit and delta must have the same type");
    }
    if (!in[0]->data || !in[1]->data || !in[2]->data) return false;
    int64_t n = 0;
    GEBE_DISPATCH_NUMERIC(start.dtype, {
      double s = double(in[0]->as<const T>()[0]), l = double(in[1]->as<const T>()[0]), d = double(in[2]->as<const T>()[0]);
      if (!std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) Fail("start, limit and delta must be finite numbers");
      if (d == 0) Fail("delta must not be zero");
      // Checked as a double first: converting a count past int64 (or NaN) is undefined, and the
      // tensor-size cap only applies once the count is an integer that cannot overflow in bytes.
      const double steps = std::ceil((l - s) / d);
      if (!(steps <= double(int64_t(1) << 40))) {
        Fail("a range from " + std::to_string(s) + " to " + std::to_string(l) + " by " + std::to_string(d) + " has too many elements (at most 2^40)");
      }
      n = steps > 0 ? int64_t(steps) : 0;
    });
    out[0] = {start.dtype, {n}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    GEBE_DISPATCH_NUMERIC(out[0].dtype, {
      T s = in[0]->as<const T>()[0], d = in[2]->as<const T>()[0];
      T* p = out[0].as<T>();
      for (int64_t i = 0; i < out[0].count(); ++i) p[i] = T(s + T(i) * d);
    });
  }
};

class CastKernel : public Kernel {
 public:
  CastKernel(const Node& node, int64_t) : Kernel(node) {
    if (node.op_type == "CastLike") return;  // the target type is input 1's, known at Infer
    int to = int(node.get_int("to", 0));
    static const int onnx_ok[] = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16};
    bool ok = false;
    for (int t : onnx_ok) ok = ok || t == to;
    if (!ok) Fail(std::string("casting to ") + OnnxTypeName(to) + " is not supported by the cpu engine");
    to_ = FromOnnxType(to);
    round_to_ = FromOnnxType(int(node.get_int(kCastRoundToAttribute, 0)));
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    if (ElementSize(x.dtype) == 0) Fail(std::string("casting from ") + DataTypeName(x.dtype) + " is not supported");
    if (node_.op_type == "CastLike") {
      to_ = Input(in, 1, "target_type").dtype;
      if (ElementSize(to_) == 0) Fail(std::string("casting to ") + DataTypeName(to_) + " is not supported");
    }
    out[0] = {to_, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef& x = *in[0];
    int64_t n = x.count();
    // The conversions type lowering puts at a graph's edges (and same-type copies) go straight
    // through the vectorised converters: no per-element type switch, no staging buffer.
    if (to_ == DataType::kFloat32 && x.dtype == DataType::kFloat16) return HalfToFloat(x.as<const uint16_t>(), out[0].as<float>(), n);
    if (to_ == DataType::kFloat32 && x.dtype == DataType::kBFloat16) return BFloat16ToFloat(x.as<const uint16_t>(), out[0].as<float>(), n);
    if (x.dtype == DataType::kFloat32 && to_ == DataType::kFloat16) return FloatToHalf(x.as<const float>(), out[0].as<uint16_t>(), n);
    if (x.dtype == DataType::kFloat32 && to_ == DataType::kBFloat16) return FloatToBFloat16(x.as<const float>(), out[0].as<uint16_t>(), n);
    // Other half casts go through FP32 (exactly representable there); the rest through double/int64.
    if (x.dtype == DataType::kFloat16 || x.dtype == DataType::kBFloat16) {
      std::vector<float> wide(size_t(std::max<int64_t>(n, 1)));
      if (x.dtype == DataType::kFloat16) HalfToFloat(x.as<const uint16_t>(), wide.data(), n);
      else BFloat16ToFloat(x.as<const uint16_t>(), wide.data(), n);
      TensorRef f{DataType::kFloat32, x.shape, wide.data()};
      Convert(f, out[0]);
      return;
    }
    if (to_ == DataType::kFloat16 || to_ == DataType::kBFloat16) {
      std::vector<float> wide(size_t(std::max<int64_t>(n, 1)));
      TensorRef f{DataType::kFloat32, x.shape, wide.data()};
      Convert(x, f);
      if (to_ == DataType::kFloat16) FloatToHalf(wide.data(), out[0].as<uint16_t>(), n);
      else FloatToBFloat16(wide.data(), out[0].as<uint16_t>(), n);
      return;
    }
    if (x.dtype == to_ && to_ != DataType::kBool) {
      if (x.data != out[0].data) std::memcpy(out[0].data, x.data, size_t(n) * ElementSize(to_));
    } else {
      Convert(x, out[0]);
    }
    if (to_ == DataType::kFloat32 && (round_to_ == DataType::kFloat16 || round_to_ == DataType::kBFloat16)) {
      // A Cast to FP16/BF16 inside a graph computed in FP32 (type_lowering.cc): keep the rounding.
      RoundThroughNarrow(round_to_ == DataType::kFloat16, out[0].as<float>(), n);
    }
  }

 private:
  void Convert(const TensorRef& x, TensorRef& o) {
    int64_t n = x.count();
    // Through double for floats; integers keep full 64-bit precision through int64. UINT64 values
    // of 2^63 and above do not fit int64: they convert to floats from their unsigned value (read
    // through int64 they came out negative), and floats that large convert to UINT64 directly.
    bool src_float = x.dtype == DataType::kFloat32 || x.dtype == DataType::kFloat64;
    bool src_u64 = x.dtype == DataType::kUInt64;
    constexpr double kTwo63 = 9223372036854775808.0;
    for (int64_t i = 0; i < n; ++i) {
      double dv = 0;
      int64_t iv = 0;
      uint64_t uv = 0;
      switch (x.dtype) {
        case DataType::kFloat32: dv = x.as<const float>()[i]; break;
        case DataType::kFloat64: dv = x.as<const double>()[i]; break;
        case DataType::kInt64: iv = x.as<const int64_t>()[i]; break;
        case DataType::kInt32: iv = x.as<const int32_t>()[i]; break;
        case DataType::kInt16: iv = x.as<const int16_t>()[i]; break;
        case DataType::kInt8: iv = x.as<const int8_t>()[i]; break;
        case DataType::kUInt8: case DataType::kBool: iv = x.as<const uint8_t>()[i]; break;
        case DataType::kUInt16: iv = x.as<const uint16_t>()[i]; break;
        case DataType::kUInt32: iv = x.as<const uint32_t>()[i]; break;
        case DataType::kUInt64: uv = x.as<const uint64_t>()[i]; iv = int64_t(uv); break;  // same bits: modulo 2^64 for integer targets
        default: break;
      }
      if (!src_float) dv = src_u64 ? double(uv) : double(iv);
      else iv = std::isfinite(dv) ? FromReal<int64_t>(dv) : 0;
      switch (o.dtype) {
        case DataType::kFloat32: o.as<float>()[i] = src_float ? float(dv) : src_u64 ? float(uv) : float(iv); break;  // one rounding from integers
        case DataType::kFloat64: o.as<double>()[i] = dv; break;
        case DataType::kInt64: o.as<int64_t>()[i] = iv; break;
        case DataType::kInt32: o.as<int32_t>()[i] = int32_t(iv); break;
        case DataType::kInt16: o.as<int16_t>()[i] = int16_t(iv); break;
        case DataType::kInt8: o.as<int8_t>()[i] = int8_t(iv); break;
        case DataType::kUInt8: o.as<uint8_t>()[i] = uint8_t(iv); break;
        case DataType::kUInt16: o.as<uint16_t>()[i] = uint16_t(iv); break;
        case DataType::kUInt32: o.as<uint32_t>()[i] = uint32_t(iv); break;
        case DataType::kUInt64: o.as<uint64_t>()[i] = src_float && dv >= kTwo63 && dv < 2 * kTwo63 ? uint64_t(dv) : uint64_t(iv); break;
        case DataType::kBool: o.as<uint8_t>()[i] = src_float ? dv != 0 : iv != 0; break;
        default: break;
      }
    }
  }

  DataType to_ = DataType::kInvalid;
  DataType round_to_ = DataType::kInvalid;
};

}  // namespace

GEBE_CPU_KERNEL("Reshape", ReshapeKernel);
GEBE_CPU_KERNEL("Flatten", FlattenKernel);
GEBE_CPU_KERNEL("Squeeze", SqueezeKernel);
GEBE_CPU_KERNEL("Unsqueeze", UnsqueezeKernel);
GEBE_CPU_KERNEL("Identity", IdentityKernel);
GEBE_CPU_KERNEL("Dropout", DropoutKernel);
GEBE_CPU_KERNEL("Shape", ShapeKernel);
GEBE_CPU_KERNEL("Size", SizeKernel);
GEBE_CPU_KERNEL("Constant", ConstantKernel);
GEBE_CPU_KERNEL("ConstantOfShape", ConstantOfShapeKernel);
GEBE_CPU_KERNEL("Range", RangeKernel);
GEBE_CPU_KERNEL("Cast", CastKernel);
GEBE_CPU_KERNEL("CastLike", CastKernel);

}  // namespace gebe::cpu
