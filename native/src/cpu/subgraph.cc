#include "cpu/subgraph.h"

#include <cstring>
#include <set>

namespace gebe::cpu {

ConstTensor CopyTensor(const TensorRef& t) {
  ConstTensor c = ConstTensor::Allocate(t.dtype, t.shape);
  if (t.bytes()) std::memcpy(c.storage->data(), t.data, t.bytes());
  return c;
}

Subgraph::Subgraph(const Graph& graph, int64_t opset, const std::vector<std::string>& outer_names,
                   const std::string& owner)
    : num_inputs_(graph.inputs.size()), owner_(owner) {
  if (graph.outputs.empty()) throw EngineError(owner + " declares no outputs");
  LoadOptions options;
  try {
    program_ = BuildProgram(graph, opset, options, outer_names);
  } catch (const EngineError& e) {
    throw EngineError(owner + ": " + e.what());
  }
}

std::vector<ConstTensor> Subgraph::Run(const std::vector<const TensorRef*>& inputs, const RunContext& ctx) const {
  const Program& p = *program_;
  std::vector<TensorRef> values(p.value_names.size());
  std::vector<ConstTensor> owned(p.value_names.size());
  for (size_t id = 0; id < values.size(); ++id) {
    if (p.is_const(int(id))) values[id] = p.constants[id].ref();
  }
  for (size_t i = 0; i < p.input_ids.size(); ++i) {
    if (i >= inputs.size() || inputs[i] == nullptr) {
      throw EngineError(owner_ + ": input '" + p.inputs[i].name + "' has no value");
    }
    values[size_t(p.input_ids[i])] = *inputs[i];
  }
  std::vector<const TensorRef*> in;
  std::vector<TensorRef> out;
  for (const Step& step : p.steps) {
    in.clear();
    for (int id : step.inputs) in.push_back(id < 0 ? nullptr : &values[size_t(id)]);
    out.assign(step.outputs.size(), TensorRef());
    auto label = [&] { return owner_ + ": " + step.kernel->node().label(); };  // built only for errors
    if (!step.kernel->InferRunning(in, out, ctx)) throw EngineError(label() + ": could not infer output shapes from the inputs");
    std::vector<ConstTensor> results;
    for (TensorRef& o : out) {
      for (int64_t d : o.shape) {
        if (d < 0) throw EngineError(label() + ": output shape " + ShapeToString(o.shape) + " has a negative dimension");
      }
      CheckedElementCount(o.shape, "subgraph output");
      if (o.bytes() > ctx.max_tensor_bytes) {
        throw EngineError(label() + ": output of shape " + ShapeToString(o.shape) + " is above the memory cap of " +
                          std::to_string(ctx.max_tensor_bytes) + " bytes (SessionOptions.max_tensor_bytes)");
      }
      results.push_back(ConstTensor::Allocate(o.dtype, o.shape));
      o.data = results.back().storage->data();
    }
    if (HasElements(out)) {
      StopIfAsked(ctx);
      step.kernel->Run(in, out, ctx);
    }
    for (size_t o = 0; o < out.size(); ++o) {
      int id = step.outputs[o];
      if (id < 0) continue;
      owned[size_t(id)] = results[o];
      values[size_t(id)] = out[o];
    }
  }
  std::vector<ConstTensor> outputs;
  for (int id : p.output_ids) {
    if (owned[size_t(id)].storage) outputs.push_back(owned[size_t(id)]);
    else if (p.is_const(id)) outputs.push_back(p.constants[size_t(id)]);
    else outputs.push_back(CopyTensor(values[size_t(id)]));
  }
  return outputs;
}

std::vector<TensorRef> Subgraph::InferOutputs(const std::vector<const TensorRef*>& inputs) const {
  const Program& p = *program_;
  std::vector<TensorRef> values(p.value_names.size());
  for (size_t id = 0; id < values.size(); ++id) {
    if (p.is_const(int(id))) values[id] = p.constants[id].ref();
  }
  for (size_t i = 0; i < p.input_ids.size() && i < inputs.size(); ++i) {
    if (inputs[i]) values[size_t(p.input_ids[i])] = *inputs[i];
  }
  std::vector<const TensorRef*> in;
  for (const Step& step : p.steps) {
    in.clear();
    bool known = true;
    for (int id : step.inputs) {
      in.push_back(id < 0 ? nullptr : &values[size_t(id)]);
      if (id >= 0 && values[size_t(id)].dtype == DataType::kInvalid) known = false;
    }
    std::vector<TensorRef> out(step.outputs.size());
    try {
      if (!known || !step.kernel->Infer(in, out)) continue;
    } catch (const EngineError&) {
      continue;
    }
    for (size_t o = 0; o < out.size(); ++o) {
      if (step.outputs[o] >= 0) values[size_t(step.outputs[o])] = {out[o].dtype, out[o].shape, nullptr};
    }
  }
  std::vector<TensorRef> outputs;
  for (int id : p.output_ids) outputs.push_back({values[size_t(id)].dtype, values[size_t(id)].shape, nullptr});
  return outputs;
}

namespace {

// The value of `name` when it is a constant of `g` (initializer or Constant node), else nullptr.
const ConstTensor* ConstantValue(const Graph& g, const std::string& name) {
  auto it = g.initializers.find(name);
  if (it != g.initializers.end()) return &it->second;
  for (const Node& n : g.nodes) {
    if (n.op_type != "Constant" || n.outputs.size() != 1 || n.outputs[0] != name) continue;
    auto a = n.attributes.find("value");
    return a == n.attributes.end() || a->second.kind != Attribute::Kind::kTensor ? nullptr : &a->second.t;
  }
  return nullptr;
}

bool HasSubgraphs(const Graph& g) {
  for (const Node& n : g.nodes) {
    for (const auto& [key, a] : n.attributes)
      if (a.kind == Attribute::Kind::kGraph) return true;
  }
  return false;
}

// Replaces g.nodes[index] (an If) by `branch`'s nodes, every name the branch defines prefixed
// with the If's name, and Identity nodes from the branch outputs to the If's outputs.
void InlineBranch(Graph& g, size_t index, const Graph& branch) {
  Node if_node = g.nodes[index];
  const std::string prefix = if_node.name + "/";
  std::set<std::string> defined;
  for (const auto& [name, t] : branch.initializers) defined.insert(name);
  for (const Node& n : branch.nodes) defined.insert(n.outputs.begin(), n.outputs.end());
  auto rename = [&](const std::string& name) { return name.empty() || !defined.count(name) ? name : prefix + name; };
  std::vector<Node> nodes;
  for (const auto& [name, t] : branch.initializers) g.initializers[prefix + name] = t;
  for (Node n : branch.nodes) {
    n.name = prefix + n.name;
    for (std::string& in : n.inputs) in = rename(in);
    for (std::string& out : n.outputs) out = rename(out);
    nodes.push_back(std::move(n));
  }
  for (size_t o = 0; o < if_node.outputs.size() && o < branch.outputs.size(); ++o) {
    if (if_node.outputs[o].empty()) continue;
    Node id;
    id.name = prefix + "output_" + std::to_string(o);
    id.op_type = "Identity";
    id.inputs = {rename(branch.outputs[o].name)};
    id.outputs = {if_node.outputs[o]};
    nodes.push_back(std::move(id));
  }
  g.nodes.erase(g.nodes.begin() + std::ptrdiff_t(index));
  g.nodes.insert(g.nodes.begin() + std::ptrdiff_t(index), nodes.begin(), nodes.end());
}

}  // namespace

void InlineConstantIfs(Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op_type != "If" || n.inputs.empty()) continue;
    const ConstTensor* cond = ConstantValue(g, n.inputs[0]);
    const Graph* then_branch = n.get_graph("then_branch");
    const Graph* else_branch = n.get_graph("else_branch");
    if (!cond || cond->count() != 1 || !cond->storage || !then_branch || !else_branch) continue;
    if (cond->dtype != DataType::kBool) continue;
    const Graph* taken = cond->as<uint8_t>()[0] ? then_branch : else_branch;
    // Branches whose own nodes hold subgraphs keep running as If kernels: their nested bodies
    // read the branch's values by the names this rename would change.
    if (HasSubgraphs(*taken) || taken->outputs.size() != n.outputs.size()) continue;
    Graph branch = *taken;  // n is invalidated by the rewrite
    InlineBranch(g, i, branch);
    --i;  // the inlined nodes may themselves be Ifs on constants
  }
}

}  // namespace gebe::cpu
