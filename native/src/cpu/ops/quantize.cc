// Linear quantisation: QuantizeLinear (FP32 → UINT8/INT8, round half to even, saturate) and
// DequantizeLinear (UINT8/INT8/INT32 → FP32), per tensor or per axis (1-D scale).
#include <algorithm>
#include <cmath>

#include "cpu/ops/op_util.h"
#include "cpu/ops/quantize_rows.h"

namespace gebe::cpu {

namespace {

// 0 (the attribute's default: from the inputs' types), FLOAT, FLOAT16 or BFLOAT16.
bool IsFloatTypeCode(int64_t onnx_type) { return onnx_type == 0 || onnx_type == 1 || onnx_type == 10 || onnx_type == 16; }

class QuantizeBase : public Kernel {
 public:
  QuantizeBase(const Node& node, bool quantize) : Kernel(node), quantize_(quantize), axis_(node.get_int("axis", 1)) {
    // Opset 21: blocked scales (block_size > 0) and an output_dtype instead of a zero point.
    if (node.get_int("block_size", 0) != 0) Fail("block_size (blocked quantisation) is not supported");
    int64_t output_dtype = node.get_int("output_dtype", 0);
    if (quantize) {
      if (output_dtype != 0 && output_dtype != 2 && output_dtype != 3) Fail("output_dtype must be UINT8 or INT8");
      output_dtype_ = FromOnnxType(int(output_dtype));
      // Opset 23: the precision of x / scale. Every float is FP32 inside the engine (FLOAT16 and
      // BFLOAT16 weights and edges are widened at load), so each float precision computes in FP32.
      if (!IsFloatTypeCode(node.get_int("precision", 0))) Fail("precision must be FLOAT, FLOAT16 or BFLOAT16");
    } else if (!IsFloatTypeCode(output_dtype)) {
      // Opset 23: DequantizeLinear's output type; FP32 inside the engine, as above.
      Fail("output_dtype must be FLOAT, FLOAT16 or BFLOAT16");
    }
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "x");
    const TensorRef& scale = Input(in, 1, "scale");
    ExpectType(scale, "scale", {DataType::kFloat32});
    const TensorRef* zp = in.size() > 2 ? in[2] : nullptr;
    if (scale.rank() > 1) Fail("scale must be a scalar or 1-D");
    if (scale.rank() == 1 && scale.count() != 1) {
      int64_t axis = NormalizeAxis(*this, axis_, x.rank());
      if (x.shape[size_t(axis)] != scale.count()) Fail("scale has " + std::to_string(scale.count()) + " entries but axis " + std::to_string(axis) + " has " + std::to_string(x.shape[size_t(axis)]));
    }
    if (zp && zp->count() != scale.count()) Fail("zero_point must have scale's shape");
    if (quantize_) {
      ExpectType(x, "x", {DataType::kFloat32, DataType::kInt32});
      DataType t = zp ? zp->dtype : output_dtype_ != DataType::kInvalid ? output_dtype_ : DataType::kUInt8;
      if (t != DataType::kUInt8 && t != DataType::kInt8) Fail("zero_point must be UINT8 or INT8");
      out[0] = {t, x.shape, nullptr};
    } else {
      ExpectType(x, "x", {DataType::kUInt8, DataType::kInt8, DataType::kInt32});
      if (zp && zp->dtype != x.dtype) Fail("zero_point must have x's type");
      out[0] = {DataType::kFloat32, x.shape, nullptr};
    }
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &x = *in[0], &scale = *in[1];
    const TensorRef* zp = in.size() > 2 ? in[2] : nullptr;
    int64_t channels = scale.count();
    // Elements that share one scale in a row: per tensor, all of them (one run, not one per element).
    int64_t inner = std::max<int64_t>(1, x.count());
    if (channels > 1) inner = SizeFrom(x.shape, size_t(NormalizeAxis(*this, axis_, x.rank())) + 1);
    if (FastPath(x, out[0], scale, zp, channels, inner, ctx)) return;
    for (int64_t i = 0; i < x.count(); ++i) {
      int64_t c = channels > 1 ? (i / inner) % channels : 0;
      float s = scale.as<const float>()[c];
      double z = zp ? ReadAsDouble(*zp, c) : 0.0;
      if (quantize_) {
        // The quotient in FP32, as ONNX Runtime computes it (a double quotient rounds .5 cases differently).
        double q = std::nearbyint(float(ReadAsDouble(x, i)) / s) + z;  // default rounding mode: half to even
        if (out[0].dtype == DataType::kUInt8) out[0].as<uint8_t>()[i] = uint8_t(std::fmin(255.0, std::fmax(0.0, q)));
        else out[0].as<int8_t>()[i] = int8_t(std::fmin(127.0, std::fmax(-128.0, q)));
      } else {
        out[0].as<float>()[i] = float((ReadAsDouble(x, i) - z) * s);
      }
    }
  }

 private:
  // FP32 → 8-bit and 8-bit → FP32, the QDQ models' case: the same arithmetic as the general loop
  // below (FP32 quotient rounded half to even, saturated: the rows of quantize_rows.h; an 8-bit
  // difference times the scale is exact before its one rounding, in FP32 as in double), over
  // contiguous runs that share a channel's scale, split across the pool. False for the other type pairs.
  template <typename Q>
  static void DequantizeRun(const Q* x, float* y, int64_t n, float s, float z) {
    for (int64_t k = 0; k < n; ++k) y[k] = (float(x[k]) - z) * s;
  }

  bool FastPath(const TensorRef& x, TensorRef& y, const TensorRef& scale, const TensorRef* zp, int64_t channels, int64_t inner,
                const RunContext& ctx) const {
    bool q8 = quantize_ && x.dtype == DataType::kFloat32 && (y.dtype == DataType::kUInt8 || y.dtype == DataType::kInt8);
    bool dq8 = !quantize_ && (x.dtype == DataType::kUInt8 || x.dtype == DataType::kInt8);
    if (!q8 && !dq8) return false;
    bool is_unsigned = (quantize_ ? y.dtype : x.dtype) == DataType::kUInt8;
    const float* scales = scale.as<const float>();
    auto zero = [&](int64_t c) { return zp ? float(ReadAsDouble(*zp, c)) : 0.f; };
    ctx.pool->ParallelFor(x.count(), 16384, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1;) {
        int64_t block = i / inner, end = std::min(i1, (block + 1) * inner), c = channels > 1 ? block % channels : 0;
        float s = scales[c], z = zero(c);
        if (q8) {
          QuantizeParams q{s, z, is_unsigned ? 0.f : -128.f, is_unsigned ? 255.f : 127.f};
          ActiveQuantizeRows().quantize(x.as<const float>() + i, end - i, q, static_cast<uint8_t*>(y.data) + i);
        } else {
          if (is_unsigned) DequantizeRun(x.as<const uint8_t>() + i, y.as<float>() + i, end - i, s, z);
          else DequantizeRun(x.as<const int8_t>() + i, y.as<float>() + i, end - i, s, z);
        }
        i = end;
      }
    });
    return true;
  }

  bool quantize_;
  int64_t axis_;
  DataType output_dtype_ = DataType::kInvalid;  // kInvalid: the zero point's type, else UINT8
};

struct QuantizeLinearKernel : QuantizeBase {
  QuantizeLinearKernel(const Node& node, int64_t) : QuantizeBase(node, true) {}
};
struct DequantizeLinearKernel : QuantizeBase {
  DequantizeLinearKernel(const Node& node, int64_t) : QuantizeBase(node, false) {}
};

}  // namespace

GEBE_CPU_KERNEL("QuantizeLinear", QuantizeLinearKernel);
GEBE_CPU_KERNEL("DequantizeLinear", DequantizeLinearKernel);

}  // namespace gebe::cpu
