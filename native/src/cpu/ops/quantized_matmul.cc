// MatMulInteger and QLinearMatMul (and what the QDQ fusion makes of DQ → MatMul → Q): with a
// constant 2-D B (the weights of a quantised linear layer) on the integer GEMM (../gemm/qgemm.h),
// Bᵀ packed once at load and A's rows packed as the GEMM's columns (C is computed transposed and
// written back row-major while requantised); anything else (batched or broadcast B, per-row A zero
// points, K beyond the GEMM's exact range) by the exact direct loops. Requantisation is ONNX
// Runtime's: (a_scale · b_scale / y_scale) in FP32, half to even, saturated.
#include <algorithm>
#include <cstring>

#include "cpu/gemm/qgemm.h"
#include "cpu/gemm/sgemm.h"
#include "cpu/ops/quantized.h"

namespace gebe::cpu {

namespace {

constexpr int64_t kRowBlock = 96;  // rows of A per work item

// Shared by MatMulInteger and QLinearMatMul: numpy matmul shapes with broadcast batch dims.
struct MatMulShape {
  Shape out;
  int64_t m = 0, k = 0, n = 0, batches = 0;
  std::vector<int64_t> a_batch, b_batch;  // per output batch: offset (in matrices) into A and B
};

MatMulShape ResolveMatMul(const Kernel& kernel, const Shape& a_in, const Shape& b_in) {
  Shape a = a_in, b = b_in;
  if (a.empty() || b.empty()) throw EngineError(kernel.node().label() + ": inputs must have rank 1 or more");
  bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulShape r;
  r.m = a[a.size() - 2];
  r.k = a.back();
  r.n = b.back();
  if (b[b.size() - 2] != r.k) {
    throw EngineError(kernel.node().label() + ": shapes " + ShapeToString(a_in) + " and " + ShapeToString(b_in) + " cannot be multiplied");
  }
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Shape batch = BroadcastShapes(kernel, ab, bb);
  r.batches = ElementCount(batch);
  auto sa = BroadcastStrides(ab, batch), sb = BroadcastStrides(bb, batch);
  for (int64_t i = 0; i < r.batches; ++i) {
    int64_t rem = i, oa = 0, ob = 0;
    for (size_t d = batch.size(); d-- > 0;) {
      oa += (rem % batch[d]) * sa[d];
      ob += (rem % batch[d]) * sb[d];
      rem /= batch[d];
    }
    r.a_batch.push_back(oa);
    r.b_batch.push_back(ob);
  }
  r.out = batch;
  if (!a_vec) r.out.push_back(r.m);
  if (!b_vec) r.out.push_back(r.n);
  return r;
}

// acc[b, i, j] = Σ_k (A[b, i, k] - azp[i]) (B[b, k, j] - bzp[j]), then `emit(b, i, j, acc)`.
template <typename Emit>
void IntegerMatMul(const MatMulShape& s, const TensorRef& a, const TensorRef& b, PerIndex azp, PerIndex bzp, Emit emit) {
  for (int64_t bt = 0; bt < s.batches; ++bt) {
    int64_t a0 = s.a_batch[size_t(bt)] * s.m * s.k, b0 = s.b_batch[size_t(bt)] * s.k * s.n;
    for (int64_t i = 0; i < s.m; ++i) {
      int32_t za = int32_t(azp.At(i));
      for (int64_t j = 0; j < s.n; ++j) {
        int32_t zb = int32_t(bzp.At(j));
        int64_t acc = 0;
        for (int64_t kk = 0; kk < s.k; ++kk) acc += int64_t(Int8At(a, a0 + i * s.k + kk) - za) * (Int8At(b, b0 + kk * s.n + j) - zb);
        emit(bt, i, j, acc);
      }
    }
  }
}

enum class MatMulMode { kInteger, kQLinear };

// Where each operand sits: MatMulInteger (A, B, a_zero_point, b_zero_point) or QLinearMatMul.
struct MatMulSlots {
  int a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp;
};
constexpr MatMulSlots kIntegerSlots{0, -1, 2, 1, -1, 3, -1, -1};
constexpr MatMulSlots kQLinearMatMulSlots{0, 1, 2, 3, 4, 5, 6, 7};

const TensorRef* Slot(const std::vector<const TensorRef*>& in, int slot) {
  return slot >= 0 && size_t(slot) < in.size() ? in[size_t(slot)] : nullptr;
}

class QuantizedMatMulKernel : public Kernel {
 public:
  QuantizedMatMulKernel(const Node& node, MatMulMode mode)
      : Kernel(node), mode_(mode), slots_(mode == MatMulMode::kInteger ? kIntegerSlots : kQLinearMatMulSlots) {}

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& a = Input(in, size_t(slots_.a), "A");
    const TensorRef& b = Input(in, size_t(slots_.b), "B");
    ExpectType(a, "A", {DataType::kUInt8, DataType::kInt8});
    ExpectType(b, "B", {DataType::kUInt8, DataType::kInt8});
    ExpectZeroPointType(*this, Slot(in, slots_.a_zp), "a_zero_point", a, "A");
    ExpectZeroPointType(*this, Slot(in, slots_.b_zp), "b_zero_point", b, "B");
    DataType type = DataType::kInt32;
    if (mode_ == MatMulMode::kQLinear) {
      const TensorRef& yzp = Input(in, size_t(slots_.y_zp), "y_zero_point");
      ExpectType(yzp, "y_zero_point", {DataType::kUInt8, DataType::kInt8});
      for (int i : {slots_.a_scale, slots_.b_scale, slots_.y_scale}) ExpectType(Input(in, size_t(i), "scale"), "scale", {DataType::kFloat32});
      type = yzp.dtype;
    }
    out[0] = {type, ResolveMatMul(*this, a.shape, b.shape).out, nullptr};
    return true;
  }

  void PrepareConstants(const std::vector<const TensorRef*>& constants) override {
    const TensorRef* b = Slot(constants, slots_.b);
    if (!b || !b->data || b->rank() != 2 || b->shape[0] > kQgemmMaxK) return;
    const TensorRef* bzp = Slot(constants, slots_.b_zp);
    bool zp_input = size_t(slots_.b_zp) < node_.inputs.size() && !node_.inputs[size_t(slots_.b_zp)].empty();
    if (zp_input && (!bzp || !bzp->data)) return;
    int64_t k = b->shape[0], n = b->shape[1];
    if (bzp && bzp->count() != 1 && bzp->count() != n) return;  // the direct path names the mismatch
    if (bzp && bzp->dtype != b->dtype) return;
    // Bᵀ: one GEMM row per output column.
    std::vector<uint8_t> bt(size_t(n * k));
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j) bt[size_t(j * k + kk)] = b->as<const uint8_t>()[kk * n + j];
    packed_ = std::make_shared<QgemmWeights>(PackQgemmWeights(bt.data(), b->dtype == DataType::kInt8, n, k,
                                                              bzp && bzp->count() ? bzp->data : nullptr, bzp ? bzp->count() : 0));
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& a = *in[size_t(slots_.a)];
    const TensorRef& b = *in[size_t(slots_.b)];
    MatMulShape s = ResolveMatMul(*this, a.shape, b.shape);
    const TensorRef* azp = Slot(in, slots_.a_zp);
    if (out[0].count() == 0) return;
    if (packed_ && s.k > 0 && (!azp || azp->count() <= 1)) return RunGemm(in, out[0], s, ctx);
    RunDirect(in, out[0], s);
  }

 private:
  // FP32 scale per output column, as ONNX Runtime computes it (a_scale · b_scale / y_scale).
  std::vector<float> Scales(const std::vector<const TensorRef*>& in, int64_t n) const {
    PerIndex as{Slot(in, slots_.a_scale)}, bs{Slot(in, slots_.b_scale)}, ys{Slot(in, slots_.y_scale)};
    std::vector<float> scales(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) scales[size_t(j)] = as.Float(0) * bs.Float(j) / ys.Float(0);
    return scales;
  }

  void RunGemm(const std::vector<const TensorRef*>& in, TensorRef& y, const MatMulShape& s, const RunContext& ctx) const {
    const TensorRef& a = *in[size_t(slots_.a)];
    const QgemmWeights& w = *packed_;
    int64_t k = s.k, n = s.n, rows = a.count() / std::max<int64_t>(1, k), blocks = (rows + kRowBlock - 1) / kRowBlock;
    uint8_t flip = a.dtype == DataType::kInt8 ? 0x80 : 0;
    const TensorRef* azp = Slot(in, slots_.a_zp);
    int32_t za = (azp && azp->data && azp->count() == 1 ? Int8At(*azp, 0) : 0) + (flip ? 128 : 0);
    std::vector<float> scales;
    Requantizer rq(mode_ == MatMulMode::kQLinear ? y.dtype : DataType::kUInt8, 0);
    if (mode_ == MatMulMode::kQLinear) {
      scales = Scales(in, n);
      rq = Requantizer(y.dtype, int32_t(PerIndex{Slot(in, slots_.y_zp)}.At(0)));
    }
    int64_t quads = QuadsOf(k), panel_stride = quads * kQNR * 4;
    ForEachClaimed(ctx.pool, blocks, [&](int64_t blk) {
      int64_t r0 = blk * kRowBlock, nr = std::min(kRowBlock, rows - r0);
      thread_local std::vector<uint8_t> packed_a;
      thread_local std::vector<int32_t> acc, sums;
      packed_a.assign(QgemmPackedBytes(k, kRowBlock), 0);
      acc.resize(size_t(n * kRowBlock));
      // Row r of A is GEMM column r: its quads of K, 4 bytes each, sign bit flipped for INT8.
      const uint8_t* pa = a.as<const uint8_t>() + r0 * k;
      for (int64_t r = 0; r < nr; ++r) {
        uint8_t* col = packed_a.data() + (r / kQNR) * panel_stride + (r % kQNR) * 4;
        for (int64_t kk = 0; kk < k; ++kk) col[(kk / 4) * kQNR * 4 + kk % 4] = uint8_t(pa[r * k + kk] ^ flip);
      }
      if (w.any_zero_point) {
        sums.resize(size_t(kRowBlock));
        QgemmColumnSums(packed_a.data(), k, nr, sums.data());
      }
      QgemmPacked(w, 0, n, packed_a.data(), nr, acc.data(), kRowBlock);
      for (int64_t j = 0; j < n; ++j) {
        int32_t zw = w.zero_points[size_t(j)];
        uint32_t corr = uint32_t(int64_t(k) * za * zw) - uint32_t(za) * uint32_t(w.row_sums[size_t(j)]);
        const int32_t* row = acc.data() + j * kRowBlock;
        for (int64_t r = 0; r < nr; ++r) {
          uint32_t v = uint32_t(row[r]) + corr;
          if (w.any_zero_point) v -= uint32_t(zw) * uint32_t(sums[size_t(r)]);
          int64_t at = (r0 + r) * n + j;
          if (mode_ == MatMulMode::kInteger) y.as<int32_t>()[at] = int32_t(v);
          else Store8(y, at, rq(float(int32_t(v)) * scales[size_t(j)]));
        }
      }
    });
  }

  void RunDirect(const std::vector<const TensorRef*>& in, TensorRef& y, const MatMulShape& s) const {
    PerIndex azp{Slot(in, slots_.a_zp)}, bzp{Slot(in, slots_.b_zp)};
    const TensorRef &a = *in[size_t(slots_.a)], &b = *in[size_t(slots_.b)];
    if (mode_ == MatMulMode::kInteger) {
      int32_t* po = y.as<int32_t>();
      IntegerMatMul(s, a, b, azp, bzp, [&](int64_t bt, int64_t i, int64_t j, int64_t acc) { po[(bt * s.m + i) * s.n + j] = int32_t(acc); });
      return;
    }
    std::vector<float> scales = Scales(in, s.n);
    Requantizer rq(y.dtype, int32_t(PerIndex{Slot(in, slots_.y_zp)}.At(0)));
    IntegerMatMul(s, a, b, azp, bzp, [&](int64_t bt, int64_t i, int64_t j, int64_t acc) {
      Store8(y, (bt * s.m + i) * s.n + j, rq(float(int32_t(acc)) * scales[size_t(j)]));
    });
  }

  MatMulMode mode_;
  MatMulSlots slots_;
  std::shared_ptr<QgemmWeights> packed_;  // Bᵀ, when B is a constant matrix
};

struct MatMulIntegerKernel : QuantizedMatMulKernel {
  MatMulIntegerKernel(const Node& node, int64_t) : QuantizedMatMulKernel(node, MatMulMode::kInteger) {}
};
struct QLinearMatMulKernel : QuantizedMatMulKernel {
  QLinearMatMulKernel(const Node& node, int64_t) : QuantizedMatMulKernel(node, MatMulMode::kQLinear) {}
};

}  // namespace

GEBE_CPU_KERNEL("MatMulInteger", MatMulIntegerKernel);
GEBE_CPU_KERNEL("QLinearMatMul", QLinearMatMulKernel);

}  // namespace gebe::cpu
