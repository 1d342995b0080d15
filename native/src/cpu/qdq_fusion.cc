// The QDQ fusion (run once at load, before constant folding would turn the quantised weights into
// FP32 ones): the chains onnxruntime.quantization.quantize_static writes become integer kernels,
// as ONNX Runtime's QDQ transformers do.
//   DQ(x) → Conv(DQ(w), bias) → [Relu] → Q   ⇒ one integer convolution (ops/quantized_conv.cc):
//     - no Relu (or one the output zero point makes redundant: zero point = the type's minimum)
//       and an INT32 bias behind a DQ, or none: a QLinearConv, bit-exact with ONNX Runtime's;
//     - otherwise (FP32 bias, a Relu that clips): the same integer GEMM with the unfused graph's
//       FP32 epilogue (acc · x_scale · w_scale + bias, Relu, ÷ y_scale), which ONNX Runtime runs
//       as FP32 Conv + Q; results agree up to FP32 rounding (at most 1 in the last place).
//   DQ(a) → MatMul(·, DQ(B)) → Q, B a constant matrix ⇒ QLinearMatMul (ops/quantized_matmul.cc:
//     the integer GEMM with Bᵀ packed at load), bit-exact with ONNX Runtime's, which fuses it alike;
//   DQ(a) + DQ(b) → Q, per-tensor parameters ⇒ an 8-bit Add (ops/quantized_add.cc) that computes
//     the three steps' FP32 arithmetic element by element, bit for bit;
//   DQ(x) → MaxPool → Q with the same scale and zero point ⇒ MaxPool on the 8-bit values (exact:
//     DequantizeLinear is monotonic and Q(DQ(v)) = v).
// Every intermediate must have exactly one consumer and not be a graph output; the DQs of
// activations stay until dead-step removal drops those nothing else reads.
#include <cstring>

#include "cpu/ops/quantized_conv.h"
#include "cpu/program.h"

namespace gebe::cpu {

namespace {

struct Graphs {
  std::vector<int> consumers, producer;
};

Graphs Index(const Program& p) {
  Graphs g;
  g.consumers.assign(p.value_names.size(), 0);
  g.producer.assign(p.value_names.size(), -1);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    for (int id : p.steps[k].inputs)
      if (id >= 0) g.consumers[size_t(id)]++;
    for (int id : p.steps[k].outputs)
      if (id >= 0) g.producer[size_t(id)] = int(k);
  }
  for (int id : p.output_ids) g.consumers[size_t(id)] += 2;  // graph outputs are never fused away
  return g;
}

const std::string& OpOf(const Step& s) { return s.kernel->node().op_type; }

bool Is8Bit(DataType t) { return t == DataType::kUInt8 || t == DataType::kInt8; }

// A constant of `count` entries (0: any) of the given type.
bool ConstOf(const Program& p, int id, DataType t, int64_t count = 1) {
  return p.is_const(id) && p.constants[size_t(id)].dtype == t && (count == 0 || p.constants[size_t(id)].count() == count);
}

int InputOr(const Step& s, size_t i) { return i < s.inputs.size() ? s.inputs[i] : -1; }

DataType TypeOf(const Program& p, int id) { return p.is_const(id) ? p.constants[size_t(id)].dtype : DataType::kInvalid; }

// A QuantizeLinear/DequantizeLinear with per-tensor constant scale (> 0) and a constant zero
// point of `t` (absent allowed only when `zero_point_optional`).
bool PerTensorQdq(const Program& p, const Step& s, DataType t, bool zero_point_optional) {
  if (s.kernel->node().get_int("block_size", 0) != 0 || s.outputs.size() != 1) return false;
  int scale = InputOr(s, 1), zp = InputOr(s, 2);
  if (!ConstOf(p, scale, DataType::kFloat32) || !(p.constants[size_t(scale)].as<float>()[0] > 0.f)) return false;
  if (zp < 0) return zero_point_optional;
  return ConstOf(p, zp, t);
}

// The zero point of `s`, a per-tensor QuantizeLinear/DequantizeLinear whose zero point is present
// and 8-bit (the only way to learn the activation's type), or -1 where it is not such a step.
int PerTensor8BitZeroPoint(const Program& p, const Step& s) {
  int zp = InputOr(s, 2);
  return zp >= 0 && Is8Bit(TypeOf(p, zp)) && PerTensorQdq(p, s, TypeOf(p, zp), false) ? zp : -1;
}

// The step producing value `id` when it is a `op` whose output only the fused node reads.
Step* SoleProducer(Program& p, const Graphs& g, int id, const char* op) {
  if (id < 0 || g.producer[size_t(id)] < 0 || g.consumers[size_t(id)] != 1) return nullptr;
  Step& s = p.steps[size_t(g.producer[size_t(id)])];
  return OpOf(s) == op ? &s : nullptr;
}

// The DequantizeLinear producing `id` (any number of readers: DQs of activations stay).
Step* DequantizeOf(Program& p, const Graphs& g, int id) {
  if (id < 0 || g.producer[size_t(id)] < 0) return nullptr;
  Step& s = p.steps[size_t(g.producer[size_t(id)])];
  return OpOf(s) == "DequantizeLinear" && s.inputs[0] >= 0 ? &s : nullptr;
}

bool SameConst(const Program& p, int a, int b) {
  if (a == b) return true;
  if (a < 0 || b < 0 || !p.is_const(a) || !p.is_const(b)) return false;
  const ConstTensor &x = p.constants[size_t(a)], &y = p.constants[size_t(b)];
  return x.dtype == y.dtype && x.count() == y.count() && std::memcmp(x.as<uint8_t>(), y.as<uint8_t>(), size_t(x.count()) * ElementSize(x.dtype)) == 0;
}

// Conv → [Relu] → Q at step q: replaced by one integer convolution in q's place.
bool FuseConv(Program& p, const Graphs& g, size_t q, std::vector<bool>& dead) {
  Step& qs = p.steps[q];
  int y_zp = PerTensor8BitZeroPoint(p, qs);
  if (y_zp < 0) return false;
  Step* relu = SoleProducer(p, g, qs.inputs[0], "Relu");
  Step* conv = SoleProducer(p, g, relu ? relu->inputs[0] : qs.inputs[0], "Conv");
  if (!conv || conv->outputs.size() != 1 || conv->inputs.size() < 2) return false;
  Step* dx = DequantizeOf(p, g, conv->inputs[0]);
  Step* dw = DequantizeOf(p, g, conv->inputs[1]);
  if (!dx || !dw) return false;
  int xq = dx->inputs[0], wq = dw->inputs[0];
  // The activation's type is only known from its zero point (a Q upstream, or a graph input).
  int x_zp = PerTensor8BitZeroPoint(p, *dx);
  if (x_zp < 0) return false;
  if (!p.is_const(wq) || !Is8Bit(TypeOf(p, wq))) return false;
  const ConstTensor& w = p.constants[size_t(wq)];
  if (w.shape.size() < 3 || w.shape.size() > 4) return false;
  int64_t m = w.shape[0];
  int w_scale = InputOr(*dw, 1), w_zp = InputOr(*dw, 2);
  bool per_channel = ConstOf(p, w_scale, DataType::kFloat32, m) && m != 1;
  if (per_channel && dw->kernel->node().get_int("axis", 1) != 0) return false;
  if (!per_channel && !ConstOf(p, w_scale, DataType::kFloat32)) return false;
  if (w_zp >= 0 && !ConstOf(p, w_zp, w.dtype, per_channel ? m : 1)) return false;
  if (dw->kernel->node().get_int("block_size", 0) != 0) return false;
  // Bias: none, FP32, or INT32 behind a DequantizeLinear.
  int bias = InputOr(*conv, 2), int_bias = -1;
  if (bias >= 0) {
    Step* db = DequantizeOf(p, g, bias);
    if (db && ConstOf(p, db->inputs[0], DataType::kInt32, m)) int_bias = db->inputs[0];
    else if (!ConstOf(p, bias, DataType::kFloat32, m)) return false;
  }
  const ConstTensor& yz = p.constants[size_t(y_zp)];
  int32_t zy = yz.dtype == DataType::kInt8 ? yz.as<int8_t>()[0] : yz.as<uint8_t>()[0];
  bool relu_redundant = relu && zy == (yz.dtype == DataType::kInt8 ? -128 : 0);
  bool qlinear = (!relu || relu_redundant) && (bias < 0 || int_bias >= 0);
  Node node = conv->kernel->node();
  node.op_type = "QLinearConv";
  Step fused;
  fused.inputs = {xq, dx->inputs[1], x_zp, wq, w_scale, w_zp, qs.inputs[1], y_zp, qlinear ? int_bias : bias};
  node.inputs.clear();
  for (int id : fused.inputs) node.inputs.push_back(id >= 0 ? p.value_names[size_t(id)] : "");
  node.outputs = {p.value_names[size_t(qs.outputs[0])]};
  fused.kernel = qlinear ? KernelRegistry::Create(node, p.info.opset) : MakeQdqConv(node, relu != nullptr);
  fused.outputs = {qs.outputs[0]};
  dead[size_t(g.producer[size_t(conv->outputs[0])])] = true;
  if (relu) dead[size_t(g.producer[size_t(relu->outputs[0])])] = true;
  qs = std::move(fused);
  return true;
}

// DQ(a) → MatMul(·, DQ(B constant 2-D)) → Q ⇒ QLinearMatMul, as ONNX Runtime fuses it (bit-exact).
bool FuseMatMul(Program& p, const Graphs& g, size_t q, std::vector<bool>& dead) {
  Step& qs = p.steps[q];
  int y_zp = PerTensor8BitZeroPoint(p, qs);
  if (y_zp < 0) return false;
  Step* mm = SoleProducer(p, g, qs.inputs[0], "MatMul");
  if (!mm || mm->inputs.size() != 2 || mm->outputs.size() != 1) return false;
  Step* da = DequantizeOf(p, g, mm->inputs[0]);
  Step* db = DequantizeOf(p, g, mm->inputs[1]);
  if (!da || !db) return false;
  int a_zp = PerTensor8BitZeroPoint(p, *da), bq = db->inputs[0];
  if (a_zp < 0) return false;
  if (!p.is_const(bq) || !Is8Bit(TypeOf(p, bq)) || p.constants[size_t(bq)].shape.size() != 2) return false;
  const ConstTensor& b = p.constants[size_t(bq)];
  int64_t n = b.shape[1];
  int b_scale = InputOr(*db, 1), b_zp = InputOr(*db, 2);
  bool per_column = ConstOf(p, b_scale, DataType::kFloat32, n) && n != 1;
  int64_t axis = db->kernel->node().get_int("axis", 1);
  if (per_column && axis != 1 && axis != -1) return false;
  if (!per_column && !ConstOf(p, b_scale, DataType::kFloat32)) return false;
  if (b_zp >= 0 && !ConstOf(p, b_zp, b.dtype, per_column ? n : 1)) return false;
  if (db->kernel->node().get_int("block_size", 0) != 0) return false;
  Node node = mm->kernel->node();
  node.op_type = "QLinearMatMul";
  Step fused;
  fused.inputs = {da->inputs[0], da->inputs[1], a_zp, bq, b_scale, b_zp, qs.inputs[1], y_zp};
  node.inputs.clear();
  for (int id : fused.inputs) node.inputs.push_back(id >= 0 ? p.value_names[size_t(id)] : "");
  node.outputs = {p.value_names[size_t(qs.outputs[0])]};
  fused.kernel = KernelRegistry::Create(node, p.info.opset);
  fused.outputs = {qs.outputs[0]};
  dead[size_t(g.producer[size_t(mm->outputs[0])])] = true;
  qs = std::move(fused);
  return true;
}

// DQ(a) + DQ(b) → Q, every parameter per tensor ⇒ one 8-bit Add (ops/quantized_add.cc) computing
// what the three steps did, bit for bit: the residual Adds of quantize_static's ResNets.
bool FuseAdd(Program& p, const Graphs& g, size_t q, std::vector<bool>& dead) {
  Step& qs = p.steps[q];
  int y_zp = PerTensor8BitZeroPoint(p, qs);
  if (y_zp < 0) return false;
  Step* add = SoleProducer(p, g, qs.inputs[0], "Add");
  if (!add || add->inputs.size() != 2 || add->outputs.size() != 1) return false;
  Step* da = DequantizeOf(p, g, add->inputs[0]);
  Step* db = DequantizeOf(p, g, add->inputs[1]);
  if (!da || !db) return false;
  if (PerTensor8BitZeroPoint(p, *da) < 0 || PerTensor8BitZeroPoint(p, *db) < 0) return false;
  Node node = add->kernel->node();
  node.op_type = "QLinearAdd";
  Step fused;
  fused.inputs = {da->inputs[0], da->inputs[1], da->inputs[2], db->inputs[0], db->inputs[1], db->inputs[2], qs.inputs[1], y_zp};
  node.inputs.clear();
  for (int id : fused.inputs) node.inputs.push_back(p.value_names[size_t(id)]);
  node.outputs = {p.value_names[size_t(qs.outputs[0])]};
  fused.kernel = MakeQuantizedAdd(node);
  fused.outputs = {qs.outputs[0]};
  dead[size_t(g.producer[size_t(add->outputs[0])])] = true;
  qs = std::move(fused);
  return true;
}

// DQ → MaxPool → Q with one scale and zero point: the MaxPool runs on the 8-bit values.
bool FuseMaxPool(Program& p, const Graphs& g, size_t q, std::vector<bool>& dead) {
  Step& qs = p.steps[q];
  Step* pool = SoleProducer(p, g, qs.inputs[0], "MaxPool");
  if (!pool || pool->outputs.size() != 1) return false;
  Step* dx = DequantizeOf(p, g, pool->inputs[0]);
  int y_zp = PerTensor8BitZeroPoint(p, qs);
  if (!dx || y_zp < 0) return false;
  if (!PerTensorQdq(p, *dx, TypeOf(p, y_zp), false)) return false;
  if (!SameConst(p, dx->inputs[1], qs.inputs[1]) || !SameConst(p, InputOr(*dx, 2), y_zp)) return false;
  pool->inputs[0] = dx->inputs[0];
  pool->outputs[0] = qs.outputs[0];
  const Node& node = pool->kernel->node();
  bool plain = node.get_ints("kernel_shape").size() <= 2 && node.get_int("storage_order", 0) == 0;
  if (plain) pool->kernel = MakeQuantizedMaxPool(node);  // else the MaxPool kernel's own 8-bit path
  dead[q] = true;
  return true;
}

}  // namespace

void FuseQdq(Program& p) {
  Graphs g = Index(p);
  std::vector<bool> dead(p.steps.size(), false);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    if (dead[k] || OpOf(p.steps[k]) != "QuantizeLinear" || p.steps[k].inputs.size() < 2) continue;
    if (!FuseConv(p, g, k, dead) && !FuseMatMul(p, g, k, dead) && !FuseAdd(p, g, k, dead)) FuseMaxPool(p, g, k, dead);
  }
  std::vector<Step> kept;
  for (size_t k = 0; k < p.steps.size(); ++k)
    if (!dead[k]) kept.push_back(std::move(p.steps[k]));
  p.steps = std::move(kept);
}

}  // namespace gebe::cpu
