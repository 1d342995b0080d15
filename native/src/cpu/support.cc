#include "cpu/support.h"

#include "cpu/ops/kernel.h"

namespace gebe::cpu {

namespace {

constexpr int64_t kMaxOpset = 17;

bool RunnableType(DataType t) { return t != DataType::kInvalid && ElementSize(t) != 0; }

void CheckTensorType(const std::string& what, const std::string& name, DataType dtype, int onnx_type, UnsupportedMap& out) {
  if (RunnableType(dtype)) return;
  out[std::string("element type ") + OnnxTypeName(onnx_type)].push_back(what + " '" + name + "'");
}

}  // namespace

UnsupportedMap FindUnsupported(const Model& model) {
  UnsupportedMap out;
  if (model.opset > kMaxOpset) {
    out["opset " + std::to_string(model.opset) + " (the cpu engine implements opsets 7 to 17; export with opset_version<=17)"]
        .push_back("the model");
  }
  const Graph& g = model.graph;
  for (const ValueInfo& v : g.inputs) CheckTensorType("graph input", v.name, v.dtype, v.onnx_elem_type, out);
  for (const ValueInfo& v : g.outputs) {
    if (v.dtype != DataType::kInvalid || v.onnx_elem_type != 0) CheckTensorType("graph output", v.name, v.dtype, v.onnx_elem_type, out);
  }
  for (const auto& [name, t] : g.initializers) {
    if (!RunnableType(t.dtype)) out["initializers of an element type the cpu engine has no kernels for"].push_back(name);
  }
  for (const Node& n : g.nodes) {
    bool default_domain = n.domain.empty() || n.domain == "ai.onnx";
    if (!default_domain || !KernelRegistry::Has(n.op_type)) {
      out[default_domain ? n.op_type : n.domain + "." + n.op_type].push_back(n.name);
      continue;
    }
    // A kernel's constructor validates the node's attributes: what it refuses is refused here.
    try {
      KernelRegistry::Create(n, model.opset);
    } catch (const EngineError& e) {
      std::string why = e.what();
      std::string prefix = n.label() + ": ";
      if (why.compare(0, prefix.size(), prefix) == 0) why = why.substr(prefix.size());
      out[n.op_type + ": " + why].push_back(n.name);
    }
  }
  return out;
}

std::string DescribeUnsupported(const UnsupportedMap& unsupported) {
  if (unsupported.empty()) return "";
  std::string msg = "the cpu engine cannot run " + std::to_string(unsupported.size()) +
                    (unsupported.size() == 1 ? " thing" : " things") + " this model uses: ";
  bool first = true;
  for (const auto& [what, where] : unsupported) {
    msg += std::string(first ? "" : "; ") + what + " (";
    for (size_t i = 0; i < where.size() && i < 5; ++i) msg += (i ? ", " : "") + where[i];
    if (where.size() > 5) msg += ", and " + std::to_string(where.size() - 5) + " more";
    msg += ")";
    first = false;
  }
  return msg + ". Re-export the model with supported operators and types, or run it on the ascend engine";
}

}  // namespace gebe::cpu
