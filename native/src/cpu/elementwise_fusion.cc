// Fusion of the element-wise chains transformer exporters emit (shape-independent, run once at
// load after the producer fusions of fusion.cc):
//   Div(x, √2) → Erf → Add 1 → Mul x → Mul ½   (and its operand orders)  → Gelu(x)
//   Mul/Div(x, constant) → Add(mask) → Softmax(axis=-1)  (either step may be absent)
//                                                      → one scaled, masked softmax pass
// Each replaces several passes over a large activation by one. As in fusion.cc, a chain is only
// fused when every intermediate value has exactly one consumer and is not a graph output.
#include <cmath>

#include "cpu/ops/fused_kernels.h"
#include "cpu/program.h"

namespace gebe::cpu {

namespace {

struct Uses {
  std::vector<int> consumers;  // by value id; graph outputs count twice so they are never fused away
  std::vector<int> consumer;   // by value id: the last step reading it
  std::vector<int> producer;   // by value id: the step writing it, -1 for inputs and constants
};

Uses FindUses(const Program& p) {
  Uses u;
  u.consumers.assign(p.value_names.size(), 0);
  u.consumer.assign(p.value_names.size(), -1);
  u.producer.assign(p.value_names.size(), -1);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    for (int id : p.steps[k].inputs) {
      if (id < 0) continue;
      u.consumers[size_t(id)]++;
      u.consumer[size_t(id)] = int(k);
    }
    for (int id : p.steps[k].outputs)
      if (id >= 0) u.producer[size_t(id)] = int(k);
  }
  for (int id : p.output_ids) u.consumers[size_t(id)] += 2;
  return u;
}

// The step that is the only reader of `id` when it has op type `op` (nullptr otherwise).
int SoleConsumer(const Program& p, const Uses& u, int id, const char* op) {
  if (id < 0 || u.consumers[size_t(id)] != 1) return -1;
  int k = u.consumer[size_t(id)];
  return p.steps[size_t(k)].kernel->node().op_type == op ? k : -1;
}

// The value of a scalar (rank-0) float constant.
bool ScalarConstant(const Program& p, int id, float* value) {
  if (!p.is_const(id)) return false;
  const ConstTensor& t = p.constants[size_t(id)];
  if (t.dtype != DataType::kFloat32 || !t.shape.empty()) return false;
  *value = t.as<float>()[0];
  return true;
}

bool Near(float v, double want) { return std::fabs(double(v) - want) <= 1e-6 * std::fabs(want); }

const std::string& OpOf(const Program& p, int k) { return p.steps[size_t(k)].kernel->node().op_type; }

// For a binary step with a scalar constant equal to `want` on one side: the other input.
int OtherThanScalar(const Program& p, int k, double want, bool either_side) {
  const Step& s = p.steps[size_t(k)];
  if (s.inputs.size() != 2 || s.outputs.size() != 1) return -1;
  float v;
  if (ScalarConstant(p, s.inputs[1], &v) && Near(v, want)) return s.inputs[0];
  if (either_side && ScalarConstant(p, s.inputs[0], &v) && Near(v, want)) return s.inputs[1];
  return -1;
}

// x / √2 or x · (1/√2): returns x.
int GeluPrescaledInput(const Program& p, int k) {
  if (OpOf(p, k) == "Div") return OtherThanScalar(p, k, std::sqrt(2.0), false);
  if (OpOf(p, k) == "Mul") return OtherThanScalar(p, k, std::sqrt(0.5), true);
  return -1;
}

void EraseDead(Program& p, const std::vector<bool>& dead) {
  std::vector<Step> kept;
  for (size_t k = 0; k < p.steps.size(); ++k)
    if (!dead[k]) kept.push_back(std::move(p.steps[k]));
  p.steps = std::move(kept);
}

void FuseGelu(Program& p) {
  Uses u = FindUses(p);
  std::vector<bool> dead(p.steps.size(), false);
  for (size_t e = 0; e < p.steps.size(); ++e) {
    const Step& erf = p.steps[e];
    if (OpOf(p, int(e)) != "Erf" || erf.inputs.size() != 1 || erf.outputs.size() != 1) continue;
    int scaled = erf.inputs[0];
    if (scaled < 0 || u.consumers[size_t(scaled)] != 1 || u.producer[size_t(scaled)] < 0) continue;
    int pre = u.producer[size_t(scaled)];
    int x = GeluPrescaledInput(p, pre);
    if (x < 0) continue;
    int add = SoleConsumer(p, u, erf.outputs[0], "Add");
    if (add < 0 || OtherThanScalar(p, add, 1.0, true) != erf.outputs[0]) continue;
    int mul1 = SoleConsumer(p, u, p.steps[size_t(add)].outputs[0], "Mul");
    if (mul1 < 0 || p.steps[size_t(mul1)].inputs.size() != 2) continue;
    const Step& m1 = p.steps[size_t(mul1)];
    int other = m1.inputs[0] == p.steps[size_t(add)].outputs[0] ? m1.inputs[1] : m1.inputs[0];
    std::vector<int> chain = {pre, int(e), add, mul1};
    int last = -1;
    float v;
    if (other == x) {
      // (x · (1 + erf)) · ½
      int mul2 = SoleConsumer(p, u, m1.outputs[0], "Mul");
      if (mul2 >= 0 && OtherThanScalar(p, mul2, 0.5, true) == m1.outputs[0]) last = mul2;
    } else if (ScalarConstant(p, other, &v) && Near(v, 0.5)) {
      // ((1 + erf) · ½) · x
      int mul2 = SoleConsumer(p, u, m1.outputs[0], "Mul");
      if (mul2 >= 0) {
        const Step& m2 = p.steps[size_t(mul2)];
        if (m2.inputs.size() == 2 && ((m2.inputs[0] == x && m2.inputs[1] == m1.outputs[0]) ||
                                      (m2.inputs[1] == x && m2.inputs[0] == m1.outputs[0]))) {
          last = mul2;
        }
      }
    } else if (other >= 0 && u.consumers[size_t(other)] == 1 && u.producer[size_t(other)] >= 0) {
      // (x · ½) · (1 + erf)
      int half = u.producer[size_t(other)];
      if (OpOf(p, half) == "Mul" && OtherThanScalar(p, half, 0.5, true) == x) {
        chain.push_back(half);
        last = mul1;
      }
    }
    if (last < 0) continue;
    if (last != mul1) chain.push_back(last);
    bool taken = false;
    for (int k : chain) taken = taken || dead[size_t(k)];
    if (taken) continue;
    Node node;
    node.name = p.steps[size_t(last)].kernel->node().name;
    node.op_type = "Gelu";
    Step fused;
    fused.kernel = KernelRegistry::Create(node, p.info.opset);
    fused.inputs = {x};
    fused.outputs = {p.steps[size_t(last)].outputs[0]};
    for (int k : chain) dead[size_t(k)] = true;
    // The fused step takes the place of the chain's last step, after x and before every reader.
    p.steps[size_t(last)] = std::move(fused);
    dead[size_t(last)] = false;
  }
  EraseDead(p, dead);
}

// x · c, c · x or x / c with a scalar constant c: x, the factor, and c's value id.
bool ScaledInput(const Program& p, int k, int* x, float* scale, int* constant) {
  const Step& s = p.steps[size_t(k)];
  if (s.inputs.size() != 2 || s.outputs.size() != 1) return false;
  const std::string& op = OpOf(p, k);
  float c;
  if ((op == "Mul" || op == "Div") && ScalarConstant(p, s.inputs[1], &c)) {
    *x = s.inputs[0];
    *scale = op == "Mul" ? c : 1.f / c;
    *constant = s.inputs[1];
    return op == "Mul" || c != 0.f;
  }
  if (op == "Mul" && ScalarConstant(p, s.inputs[0], &c)) {
    *x = s.inputs[1];
    *scale = c;
    *constant = s.inputs[0];
    return true;
  }
  return false;
}

void FuseScaledSoftmax(Program& p) {
  if (p.info.opset < 13) return;  // before 13 Softmax flattens from its axis: not a last-axis op
  Uses u = FindUses(p);
  std::vector<bool> dead(p.steps.size(), false);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    const Step& sm = p.steps[k];
    const Node& node = sm.kernel->node();
    if (node.op_type != "Softmax" || node.get_int("axis", -1) != -1 || sm.inputs.size() != 1 || sm.outputs.size() != 1) {
      continue;
    }
    int in = sm.inputs[0];
    if (in < 0 || u.consumers[size_t(in)] != 1 || u.producer[size_t(in)] < 0) continue;
    int prod = u.producer[size_t(in)];
    std::vector<int> chain;
    int x = -1, bias = -1, constant = -1;
    float scale = 1.f;
    if (OpOf(p, prod) == "Add" && p.steps[size_t(prod)].inputs.size() == 2) {
      const Step& add = p.steps[size_t(prod)];
      chain.push_back(prod);
      x = add.inputs[0];
      bias = add.inputs[1];
      for (int side = 0; side < 2; ++side) {
        int v = add.inputs[size_t(side)];
        if (v < 0 || u.consumers[size_t(v)] != 1 || u.producer[size_t(v)] < 0) continue;
        int sx;
        if (ScaledInput(p, u.producer[size_t(v)], &sx, &scale, &constant)) {
          chain.push_back(u.producer[size_t(v)]);
          x = sx;
          bias = add.inputs[size_t(1 - side)];
          break;
        }
      }
    } else if (ScaledInput(p, prod, &x, &scale, &constant)) {
      chain.push_back(prod);
    } else {
      continue;
    }
    if (x < 0) continue;
    bool taken = false;
    for (int c : chain) taken = taken || dead[size_t(c)];
    if (taken) continue;
    Shape scale_shape = constant >= 0 ? p.constants[size_t(constant)].shape : Shape{};
    Step fused;
    fused.kernel = MakeScaledSoftmax(node, scale, scale_shape);
    fused.inputs = {x};
    if (bias >= 0) fused.inputs.push_back(bias);
    fused.outputs = sm.outputs;
    p.steps[k] = std::move(fused);
    for (int c : chain) dead[size_t(c)] = true;
  }
  EraseDead(p, dead);
}

}  // namespace

void FuseElementwiseChains(Program& program) {
  FuseGelu(program);
  FuseScaledSoftmax(program);
}

}  // namespace gebe::cpu
