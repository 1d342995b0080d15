#include "cpu/ops/kernel.h"

#include <algorithm>
#include <cmath>

#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

std::map<std::string, KernelFactory>& KernelRegistry::Entries() {
  static std::map<std::string, KernelFactory> entries;
  return entries;
}

std::unique_ptr<Kernel> KernelRegistry::Create(const Node& node, int64_t opset) {
  auto it = Entries().find(node.op_type);
  if (it == Entries().end()) throw EngineError(node.label() + ": operator is not supported by the cpu engine");
  return it->second(node, opset);
}

const TensorRef& Kernel::Input(const std::vector<const TensorRef*>& inputs, size_t i, const char* what) const {
  if (i >= inputs.size() || inputs[i] == nullptr) Fail(std::string("missing required input ") + what);
  return *inputs[i];
}

void Kernel::ExpectType(const TensorRef& t, const char* what, std::initializer_list<DataType> allowed) const {
  for (DataType d : allowed) {
    if (t.dtype == d) return;
  }
  std::string names;
  for (DataType d : allowed) names += std::string(names.empty() ? "" : " or ") + DataTypeName(d);
  throw TypeMismatch(node_, what, "must be " + names + " but is " + DataTypeName(t.dtype), &t);
}

namespace {

std::string DescribeProblem(const std::string& slot, const std::string& value, const std::string& requirement) {
  return "input " + slot + (value.empty() ? "" : " ('" + value + "')") + " " + requirement;
}

}  // namespace

TypeMismatch::TypeMismatch(const Node& node, std::string slot, std::string requirement, const TensorRef* input)
    : TypeMismatch(node.label(), node.op_type, node.name, std::move(slot), std::move(requirement), "", input) {}

TypeMismatch::TypeMismatch(std::string label, std::string op, std::string node, std::string slot_name, std::string req,
                           std::string value_name, const TensorRef* refused)
    : EngineError(label + ": " + DescribeProblem(slot_name, value_name, req)), op_type(std::move(op)),
      node_name(std::move(node)), slot(std::move(slot_name)), requirement(std::move(req)), value(std::move(value_name)),
      input(refused), label_(std::move(label)) {}

TypeMismatch TypeMismatch::Naming(const std::string& value_name) const {
  return TypeMismatch(label_, op_type, node_name, slot, requirement, value_name, nullptr);
}

std::string TypeMismatch::Problem() const { return DescribeProblem(slot, value, requirement); }

void Activation::Apply(float* data, int64_t n) const {
  switch (kind) {
    case Kind::kNone: return;
    case Kind::kRelu:
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] > 0 ? data[i] : 0;
      return;
    case Kind::kClip:
      for (int64_t i = 0; i < n; ++i) data[i] = std::min(std::max(data[i], alpha), beta);
      return;
    case Kind::kLeakyRelu:
      LeakyArray(data, &alpha, 0, data, n);
      return;
    case Kind::kSigmoid:
      SigmoidArray(data, data, n);
      return;
    case Kind::kHardSwish:
      HardSigmoidArray(data, data, n, 1.f / 6.f, 0.5f, true);
      return;
    case Kind::kSilu:
      SiluArray(data, data, n);  // the Sigmoid and the Mul it replaces: the same values, bit for bit
      return;
  }
}

}  // namespace gebe::cpu
