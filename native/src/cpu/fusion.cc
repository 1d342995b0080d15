// Fusion passes over the program (shape-independent, run once at load):
//   Conv + BatchNormalization  → Conv with folded weights and bias
//   MatMul + Add(constant 1-D) → MatMul with a fused bias (one GEMM pass instead of two)
//   Conv/Gemm/MatMul/BatchNormalization/Add/Sub/Mul/Div + Relu/Clip/LeakyRelu/Sigmoid/HardSwish,
//   or + Sigmoid and Mul (SiLU; not after BatchNormalization) → the producer applies the activation
//   Conv (+ Relu/Clip) + MaxPool 2×2 stride 2 → the Conv pools its own output (conv_small_plane.h)
//   Conv + Add(residual) [+ activation] → the Conv adds the residual in its epilogue
// A fusion only happens when the intermediate value has exactly one consumer and is not a graph
// output, so nothing observable changes.
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/program.h"

namespace gebe::cpu {

namespace {

std::vector<int> ConsumerCounts(const Program& p) {
  std::vector<int> count(p.value_names.size(), 0);
  for (const Step& s : p.steps)
    for (int id : s.inputs)
      if (id >= 0) count[size_t(id)]++;
  for (int id : p.output_ids) count[size_t(id)] += 2;  // graph outputs are never fused away
  return count;
}

// Index of the step producing each value (-1 for inputs and constants).
std::vector<int> Producers(const Program& p) {
  std::vector<int> producer(p.value_names.size(), -1);
  for (size_t k = 0; k < p.steps.size(); ++k)
    for (int id : p.steps[k].outputs)
      if (id >= 0) producer[size_t(id)] = int(k);
  return producer;
}

const std::string& OpOf(const Step& s) { return s.kernel->node().op_type; }

bool IsConstFloat(const Program& p, int id) { return p.is_const(id) && p.constants[size_t(id)].dtype == DataType::kFloat32; }

void EraseSteps(Program& p, const std::vector<bool>& dead) {
  std::vector<Step> kept;
  for (size_t k = 0; k < p.steps.size(); ++k)
    if (!dead[k]) kept.push_back(std::move(p.steps[k]));
  p.steps = std::move(kept);
}

}  // namespace

void FuseConvBatchNorm(Program& p) {
  auto consumers = ConsumerCounts(p);
  auto producer = Producers(p);
  std::vector<bool> dead(p.steps.size(), false);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    Step& bn = p.steps[k];
    if (OpOf(bn) != "BatchNormalization" || bn.inputs.size() < 5 || bn.outputs.size() != 1) continue;
    int x = bn.inputs[0];
    if (x < 0 || producer[size_t(x)] < 0 || consumers[size_t(x)] != 1) continue;
    Step& conv = p.steps[size_t(producer[size_t(x)])];
    if (OpOf(conv) != "Conv" || conv.outputs.size() != 1 || !IsConstFloat(p, conv.inputs[1])) continue;
    bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] >= 0;
    if (has_bias && !IsConstFloat(p, conv.inputs[2])) continue;
    bool params_const = true;
    for (int i = 1; i < 5; ++i) params_const = params_const && IsConstFloat(p, bn.inputs[size_t(i)]);
    if (!params_const) continue;
    const ConstTensor& w = p.constants[size_t(conv.inputs[1])];
    int64_t m = w.shape.empty() ? 0 : w.shape[0];
    const ConstTensor *scale = &p.constants[size_t(bn.inputs[1])], *shift = &p.constants[size_t(bn.inputs[2])],
                      *mean = &p.constants[size_t(bn.inputs[3])], *var = &p.constants[size_t(bn.inputs[4])];
    if (scale->count() != m || shift->count() != m || mean->count() != m || var->count() != m) continue;
    float eps = bn.kernel->node().get_float("epsilon", 1e-5f);
    int64_t per = w.count() / std::max<int64_t>(1, m);
    ConstTensor nw = ConstTensor::Allocate(DataType::kFloat32, w.shape);
    ConstTensor nb = ConstTensor::Allocate(DataType::kFloat32, {m});
    float* pw = static_cast<float*>(nw.storage->data());
    float* pb = static_cast<float*>(nb.storage->data());
    const float* old_b = has_bias ? p.constants[size_t(conv.inputs[2])].as<float>() : nullptr;
    for (int64_t c = 0; c < m; ++c) {
      float s = scale->as<float>()[c] / std::sqrt(var->as<float>()[c] + eps);
      for (int64_t i = 0; i < per; ++i) pw[c * per + i] = w.as<float>()[c * per + i] * s;
      pb[c] = ((old_b ? old_b[c] : 0.f) - mean->as<float>()[c]) * s + shift->as<float>()[c];
    }
    // Fresh value ids: the original weights may be shared with another node.
    int wid = p.add_value(p.value_names[size_t(conv.inputs[1])] + "/bn_folded");
    int bid = p.add_value(p.value_names[size_t(conv.inputs[1])] + "/bn_folded_bias");
    p.constants[size_t(wid)] = nw;
    p.constants[size_t(bid)] = nb;
    conv.inputs.resize(3);
    conv.inputs[1] = wid;
    conv.inputs[2] = bid;
    conv.outputs[0] = bn.outputs[0];
    dead[k] = true;
  }
  EraseSteps(p, dead);
}

void FuseMatMulBias(Program& p) {
  auto consumers = ConsumerCounts(p);
  auto producer = Producers(p);
  std::vector<bool> dead(p.steps.size(), false);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    Step& add = p.steps[k];
    if (OpOf(add) != "Add" || add.inputs.size() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      int x = add.inputs[size_t(side)], b = add.inputs[size_t(1 - side)];
      if (x < 0 || b < 0 || producer[size_t(x)] < 0 || consumers[size_t(x)] != 1 || !IsConstFloat(p, b)) continue;
      Step& mm = p.steps[size_t(producer[size_t(x)])];
      if (OpOf(mm) != "MatMul" || mm.inputs.size() != 2 || !IsConstFloat(p, mm.inputs[1])) continue;
      const ConstTensor& w = p.constants[size_t(mm.inputs[1])];
      const ConstTensor& bias = p.constants[size_t(b)];
      if (w.shape.size() != 2 || bias.shape.size() != 1 || bias.shape[0] != w.shape[1]) continue;
      mm.inputs.push_back(b);
      mm.outputs[0] = add.outputs[0];
      dead[k] = true;
      break;
    }
  }
  EraseSteps(p, dead);
}

void FuseActivations(Program& p) {
  auto consumers = ConsumerCounts(p);
  auto producer = Producers(p);
  std::vector<bool> dead(p.steps.size(), false);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    Step& a = p.steps[k];
    const Node& node = a.kernel->node();
    Activation act;
    const std::string& op = node.op_type;
    if (op == "Relu") {
      act.kind = Activation::Kind::kRelu;
    } else if (op == "LeakyRelu") {
      act.kind = Activation::Kind::kLeakyRelu;
      act.alpha = node.get_float("alpha", 0.01f);
    } else if (op == "Sigmoid") {
      act.kind = Activation::Kind::kSigmoid;
    } else if (op == "HardSwish") {
      act.kind = Activation::Kind::kHardSwish;
    } else if (op == "Mul") {
      // SiLU: Mul(y, Sigmoid(y)) in either order, y read by those two steps only, the Sigmoid's
      // output by the Mul only. The producer of y applies it, and both steps go.
      if (a.inputs.size() != 2 || a.outputs.size() != 1) continue;
      int sig_step = -1, y = -1;
      for (int side = 0; side < 2 && sig_step < 0; ++side) {
        const int value = a.inputs[size_t(side)], sig = a.inputs[size_t(1 - side)];
        if (value < 0 || sig < 0 || producer[size_t(sig)] < 0 || consumers[size_t(sig)] != 1 || consumers[size_t(value)] != 2) continue;
        const Step& s = p.steps[size_t(producer[size_t(sig)])];
        if (OpOf(s) == "Sigmoid" && s.inputs.size() == 1 && s.inputs[0] == value && !dead[size_t(producer[size_t(sig)])]) {
          sig_step = producer[size_t(sig)];
          y = value;
        }
      }
      if (sig_step < 0 || producer[size_t(y)] < 0) continue;
      act.kind = Activation::Kind::kSilu;
      Step& prod = p.steps[size_t(producer[size_t(y)])];
      const std::string& pop = OpOf(prod);
      if (prod.outputs.size() != 1 ||
          (pop != "Conv" && pop != "Gemm" && pop != "MatMul" && pop != "Add" && pop != "Sub" && pop != "Mul" && pop != "Div"))
        continue;
      if (!prod.kernel->FuseActivation(act)) continue;
      prod.outputs[0] = a.outputs[0];
      dead[k] = true;
      dead[size_t(sig_step)] = true;
      continue;
    } else if (op == "Clip") {
      act.kind = Activation::Kind::kClip;
      act.alpha = node.get_float("min", -std::numeric_limits<float>::infinity());
      act.beta = node.get_float("max", std::numeric_limits<float>::infinity());
      bool ok = true;
      for (size_t i = 1; i < a.inputs.size() && i < 3; ++i) {
        int id = a.inputs[i];
        if (id < 0) continue;
        if (!IsConstFloat(p, id) || p.constants[size_t(id)].count() != 1) {
          ok = false;
          continue;
        }
        (i == 1 ? act.alpha : act.beta) = p.constants[size_t(id)].as<float>()[0];
      }
      if (!ok) continue;
    } else {
      continue;
    }
    int x = a.inputs.empty() ? -1 : a.inputs[0];
    if (x < 0 || producer[size_t(x)] < 0 || consumers[size_t(x)] != 1 || a.outputs.size() != 1) continue;
    Step& prod = p.steps[size_t(producer[size_t(x)])];
    const std::string& pop = OpOf(prod);
    if (pop != "Conv" && pop != "Gemm" && pop != "MatMul" && pop != "Add" && pop != "Sub" && pop != "Mul" && pop != "Div" &&
        pop != "BatchNormalization")
      continue;
    if (prod.outputs.size() != 1 || !prod.kernel->FuseActivation(act)) continue;
    prod.outputs[0] = a.outputs[0];
    dead[k] = true;
  }
  EraseSteps(p, dead);
}

namespace {

// A MaxPool that takes 2×2 windows at stride 2 with no padding, dilation or ceil_mode, and has
// no Indices output: the pool SmallPlaneConv can do on the product.
bool IsPlainMaxPool2x2(const Step& s) {
  if (OpOf(s) != "MaxPool" || s.inputs.size() != 1 || s.outputs.empty() || (s.outputs.size() > 1 && s.outputs[1] >= 0)) return false;
  const Node& node = s.kernel->node();
  auto all = [](const std::vector<int64_t>& v, int64_t value) {
    for (int64_t x : v)
      if (x != value) return false;
    return true;
  };
  const std::string auto_pad = node.get_string("auto_pad", "NOTSET");
  const std::vector<int64_t> kernel = node.get_ints("kernel_shape"), strides = node.get_ints("strides");
  return kernel.size() == 2 && all(kernel, 2) && strides.size() == 2 && all(strides, 2) && all(node.get_ints("pads"), 0) &&
         all(node.get_ints("dilations"), 1) && node.get_int("ceil_mode", 0) == 0 && (auto_pad == "NOTSET" || auto_pad == "VALID");
}

// A 2-D convolution with constant weights and one output: the kind whose fused paths exist.
bool IsPlainConv2d(const Program& p, const Step& s) {
  return OpOf(s) == "Conv" && s.outputs.size() == 1 && s.inputs.size() >= 2 && s.inputs.size() <= 3 && IsConstFloat(p, s.inputs[1]) &&
         p.constants[size_t(s.inputs[1])].shape.size() == 4;
}

}  // namespace

void FuseConvResidualAdd(Program& p) {
  auto consumers = ConsumerCounts(p);
  auto producer = Producers(p);
  std::vector<bool> dead(p.steps.size(), false);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    Step& add = p.steps[k];
    if (OpOf(add) != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
    for (int side = 0; side < 2; ++side) {
      int x = add.inputs[size_t(side)], r = add.inputs[size_t(1 - side)];
      if (x < 0 || r < 0 || x == r || producer[size_t(x)] < 0 || consumers[size_t(x)] != 1) continue;
      const size_t at = size_t(producer[size_t(x)]);
      if (dead[at] || !IsPlainConv2d(p, p.steps[at])) continue;
      if (!p.steps[at].kernel->FuseResidualAdd(&add.kernel, side == 1)) continue;
      // The Conv moves into the Add's place: the residual may be computed after the Conv's own
      // (the downsampling branch of a ResNet block often is), and everything the Conv reads
      // comes before its old place.
      Step conv = std::move(p.steps[at]);
      conv.inputs.resize(3, -1);
      conv.inputs.push_back(r);
      conv.outputs[0] = add.outputs[0];
      p.steps[k] = std::move(conv);
      dead[at] = true;
      break;
    }
  }
  EraseSteps(p, dead);
}

void FuseConvMaxPool(Program& p) {
  auto consumers = ConsumerCounts(p);
  auto producer = Producers(p);
  std::vector<bool> dead(p.steps.size(), false);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    Step& pool = p.steps[k];
    if (!IsPlainMaxPool2x2(pool)) continue;
    int x = pool.inputs[0];
    if (x < 0 || producer[size_t(x)] < 0 || consumers[size_t(x)] != 1) continue;
    Step& conv = p.steps[size_t(producer[size_t(x)])];
    if (!IsPlainConv2d(p, conv)) continue;
    if (!conv.kernel->FuseMaxPool(&pool.kernel)) continue;
    conv.outputs[0] = pool.outputs[0];
    dead[k] = true;
  }
  EraseSteps(p, dead);
}

}  // namespace gebe::cpu
