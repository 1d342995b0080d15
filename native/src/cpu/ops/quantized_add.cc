// The Add of two quantised tensors for the QDQ fusion (DQ(a) + DQ(b) → Q, ../qdq_fusion.cc; the
// residual Adds quantize_static writes): QLinearAdd's inputs (a, a_scale, a_zero_point, b,
// b_scale, b_zero_point, y_scale, y_zero_point), each element computed as the unfused graph does
// (quantize_rows.h), so the results are those of the DQ, Add and Q steps it replaces, bit for bit,
// in one pass over the 8-bit data instead of three over FP32. Numpy broadcasting as Add's.
#include <algorithm>

#include "cpu/ops/op_util.h"
#include "cpu/ops/quantize_rows.h"
#include "cpu/ops/quantized.h"
#include "cpu/ops/quantized_conv.h"

namespace gebe::cpu {

namespace {

class QuantizedAddKernel : public Kernel {
 public:
  explicit QuantizedAddKernel(const Node& node) : Kernel(node) {}

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& a = Input(in, 0, "A");
    const TensorRef& b = Input(in, 3, "B");
    ExpectType(a, "A", {DataType::kUInt8, DataType::kInt8});
    ExpectType(b, "B", {DataType::kUInt8, DataType::kInt8});
    ExpectZeroPointType(*this, in[2], "A_zero_point", a, "A");
    ExpectZeroPointType(*this, in[5], "B_zero_point", b, "B");
    for (size_t i : {1, 4, 6}) ExpectType(Input(in, i, "scale"), "scale", {DataType::kFloat32});
    const TensorRef& yzp = Input(in, 7, "C_zero_point");
    ExpectType(yzp, "C_zero_point", {DataType::kUInt8, DataType::kInt8});
    out[0] = {yzp.dtype, BroadcastShapes(*this, a.shape, b.shape), nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &a = *in[0], &b = *in[3];
    TensorRef& y = out[0];
    auto dq = [&](const TensorRef& v, size_t scale, size_t zp) {
      return DequantizeParams{PerIndex{in[scale]}.Float(0), PerIndex{in[zp]}.Float(0), v.dtype == DataType::kInt8};
    };
    DequantizeParams da = dq(a, 1, 2), db = dq(b, 4, 5);
    bool is_signed = y.dtype == DataType::kInt8;
    QuantizeParams q{PerIndex{in[6]}.Float(0), PerIndex{in[7]}.Float(0), is_signed ? -128.f : 0.f, is_signed ? 127.f : 255.f};
    const QuantizedAddRowFn add = ActiveQuantizeRows().add;
    const auto* pa = static_cast<const uint8_t*>(a.data);
    const auto* pb = static_cast<const uint8_t*>(b.data);
    auto* py = static_cast<uint8_t*>(y.data);
    if (a.shape == b.shape) {
      ctx.pool->ParallelFor(y.count(), 16384, [&](int64_t i0, int64_t i1) { add(pa + i0, da, pb + i0, db, i1 - i0, q, py + i0); });
      return;
    }
    // Broadcasting: row by row of the output's last dimension, an operand broadcast along it
    // expanded into a row of its own first.
    int64_t inner = y.shape.empty() ? 1 : y.shape.back(), rows = inner ? y.count() / inner : 0;
    std::vector<int64_t> sa = BroadcastStrides(a.shape, y.shape), sb = BroadcastStrides(b.shape, y.shape);
    bool a_row = !sa.empty() && sa.back() == 0 && inner > 1, b_row = !sb.empty() && sb.back() == 0 && inner > 1;
    ctx.pool->ParallelFor(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, inner)), [&](int64_t r0, int64_t r1) {
      std::vector<uint8_t> ea(a_row ? size_t(inner) : 0), eb(b_row ? size_t(inner) : 0);
      for (int64_t r = r0; r < r1; ++r) {
        int64_t oa, ob;
        BroadcastRowOffsets(r, y.shape, sa, sb, &oa, &ob);
        const uint8_t* ra = pa + oa;
        const uint8_t* rb = pb + ob;
        if (a_row) std::fill(ea.begin(), ea.end(), *ra), ra = ea.data();
        if (b_row) std::fill(eb.begin(), eb.end(), *rb), rb = eb.data();
        add(ra, da, rb, db, inner, q, py + r * inner);
      }
    });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeQuantizedAdd(const Node& add) { return std::make_unique<QuantizedAddKernel>(add); }

}  // namespace gebe::cpu
