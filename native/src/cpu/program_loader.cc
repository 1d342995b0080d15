// Model file → Program: support check (support.cc: one list of everything unsupported, the loader's
// error and cpuInspect's findings), float lowering (type_lowering.cc), topological order (cycles and
// dangling inputs named), kernel creation, the shape-independent optimisation passes, then the
// trial plan that finds the element types kernels refuse mid-graph.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "cpu/onnx_reader.h"
#include "cpu/program.h"
#include "cpu/support.h"
#include "cpu/type_lowering.h"

namespace gebe::cpu {

int Program::add_value(const std::string& name) {
  value_names.push_back(name);
  constants.emplace_back();
  return int(value_names.size()) - 1;
}

namespace {

TensorDesc DescFor(const ValueInfo& v) {
  TensorDesc d;
  d.name = v.name;
  d.dtype = v.dtype;
  d.dims = v.dims;
  d.dim_names = v.dim_names;
  return d;
}

// Kahn's algorithm over the nodes; anything left over sits on a cycle.
std::vector<size_t> TopologicalOrder(const Graph& g) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& out : g.nodes[i].outputs) {
      if (out.empty()) continue;
      if (producer.count(out) || g.initializers.count(out)) {
        throw EngineError(g.nodes[i].label() + ": output '" + out + "' is already produced elsewhere in the graph");
      }
      producer[out] = i;
    }
  }
  std::set<std::string> graph_inputs;
  for (const auto& v : g.inputs) graph_inputs.insert(v.name);
  std::vector<int> pending(g.nodes.size(), 0);
  std::vector<std::vector<size_t>> consumers(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::vector<std::string> reads = g.nodes[i].inputs;
    reads.insert(reads.end(), g.nodes[i].outer_inputs.begin(), g.nodes[i].outer_inputs.end());
    for (const auto& in : reads) {
      if (in.empty() || graph_inputs.count(in) || g.initializers.count(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        throw EngineError(g.nodes[i].label() + ": input '" + in +
                          "' is not a graph input, an initializer, or the output of any node");
      }
      pending[i]++;
      consumers[it->second].push_back(i);
    }
  }
  std::vector<size_t> order, ready;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (pending[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    size_t i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (size_t c : consumers[i])
      if (--pending[c] == 0) ready.push_back(c);
  }
  if (order.size() != g.nodes.size()) {
    std::string names;
    int shown = 0;
    for (size_t i = 0; i < g.nodes.size() && shown < 8; ++i) {
      if (pending[i] > 0) {
        names += (shown++ ? ", " : "") + g.nodes[i].name;
      }
    }
    throw EngineError("the graph has a cycle through nodes " + names + "; ONNX graphs must be acyclic");
  }
  // Keep the exporter's order where it is already topological (stable, readable plans).
  std::vector<size_t> position(g.nodes.size());
  for (size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  bool already_sorted = true;
  for (size_t i = 0; i < g.nodes.size() && already_sorted; ++i) {
    for (const auto& in : g.nodes[i].outer_inputs) {
      auto it = producer.find(in);
      if (it != producer.end() && it->second >= i) already_sorted = false;
    }
    for (const auto& in : g.nodes[i].inputs) {
      auto it = producer.find(in);
      if (it != producer.end() && it->second >= i) already_sorted = false;
    }
  }
  if (already_sorted) {
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  }
  return order;
}

}  // namespace

CheckedModel CheckModel(const std::string& path, const LoadOptions& options, bool inspect_only) {
  ReadOptions read_options;
  read_options.max_tensor_bytes = options.max_tensor_bytes;
  Model model = ReadOnnxFile(path, read_options);
  CheckedModel checked;
  checked.info.ir_version = model.ir_version;
  checked.info.opset = model.opset;
  checked.info.producer = model.producer;
  for (const Node& n : model.graph.nodes) checked.info.op_histogram[n.op_type]++;
  for (const auto& v : model.graph.inputs) checked.inputs.push_back(DescFor(v));
  for (const auto& v : model.graph.outputs) checked.outputs.push_back(DescFor(v));
  checked.info.unsupported = FindUnsupported(model);
  if (!checked.info.unsupported.empty()) return checked;
  try {
    LowerFloatTypes(model.graph);
    if (model.graph.outputs.empty()) throw EngineError("the model's graph declares no outputs");
    checked.program = BuildProgram(std::move(model.graph), model.opset, options, {});
    checked.info.unsupported = FindUnsupportedTypes(*checked.program, options.max_tensor_bytes);
  } catch (const TypeMismatch& e) {  // while folding constants
    checked.info.unsupported = TypeFinding(e);
  } catch (const EngineError&) {
    if (!inspect_only) throw;
    checked.program.reset();
  }
  if (!checked.info.unsupported.empty()) checked.program.reset();
  return checked;
}

std::unique_ptr<Program> LoadProgram(const std::string& path, const LoadOptions& options) {
  CheckedModel checked = CheckModel(path, options, false);
  if (!checked.info.unsupported.empty()) throw EngineError(DescribeUnsupported(checked.info.unsupported));
  checked.program->info = std::move(checked.info);
  return std::move(checked.program);
}

bool InferStep(const Program& program, const Step& step, const std::vector<const TensorRef*>& inputs,
               std::vector<TensorRef>& outputs, const RunContext& ctx) {
  try {
    return step.kernel->InferRunning(inputs, outputs, ctx);
  } catch (const TypeMismatch& e) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] != nullptr && inputs[i] == e.input) throw e.Naming(program.value_names[size_t(step.inputs[i])]);
    }
    throw;
  }
}

std::unique_ptr<Program> BuildProgram(Graph graph, int64_t opset, const LoadOptions& options,
                                      const std::vector<std::string>& outer_names) {
  auto program = std::make_unique<Program>();
  program->info.opset = opset;  // the fusion passes read it
  InlineConstantIfs(graph);
  for (Node& n : graph.nodes) n.outer_inputs = OuterScopeNames(n);
  for (const auto& v : graph.inputs) program->inputs.push_back(DescFor(v));
  for (const auto& v : graph.outputs) program->outputs.push_back(DescFor(v));
  // Values of enclosing graphs come in as inputs after the graph's own (of any type and shape).
  for (const std::string& name : outer_names) {
    ValueInfo v;
    v.name = name;
    graph.inputs.push_back(v);
    program->inputs.push_back(DescFor(v));
  }
  std::vector<size_t> order = TopologicalOrder(graph);

  std::unordered_map<std::string, int> ids;
  auto id_of = [&](const std::string& name) {
    auto it = ids.find(name);
    if (it != ids.end()) return it->second;
    int id = program->add_value(name);
    ids[name] = id;
    return id;
  };
  for (auto& [name, t] : graph.initializers) program->constants[size_t(id_of(name))] = t;
  for (const auto& v : graph.inputs) {
    if (ids.count(v.name)) throw EngineError("graph input '" + v.name + "' is declared twice");
    program->input_ids.push_back(id_of(v.name));
  }
  for (size_t index : order) {
    Node& node = graph.nodes[index];
    // Every kernel writes its first output; ONNX has no operator without one.
    if (node.outputs.empty()) throw EngineError(node.label() + ": the node has no outputs; every operator produces at least one");
    Step step;
    for (const auto& in : node.inputs) step.inputs.push_back(in.empty() ? -1 : id_of(in));
    for (const auto& in : node.outer_inputs) step.inputs.push_back(id_of(in));
    for (const auto& out : node.outputs) step.outputs.push_back(out.empty() ? -1 : id_of(out));
    step.kernel = KernelRegistry::Create(node, opset);
    program->steps.push_back(std::move(step));
  }
  for (const auto& v : graph.outputs) {
    auto it = ids.find(v.name);
    if (it == ids.end()) {
      throw EngineError("graph output '" + v.name + "' is not produced by any node, input or initializer");
    }
    program->output_ids.push_back(it->second);
  }
  if (options.optimize) {
    ThreadPool pool(1);
    Scratch scratch;
    RunContext ctx{&pool, &scratch, options.max_tensor_bytes};
    FuseQdq(*program);
    FoldConstants(*program, ctx);
    FuseConvBatchNorm(*program);
    FuseMatMulBias(*program);
    FuseConvResidualAdd(*program);
    FuseActivations(*program);
    FuseConvMaxPool(*program);
    FuseElementwiseChains(*program);
    RemoveDeadSteps(*program);
  }
  for (Step& step : program->steps) {
    std::vector<TensorRef> refs(step.inputs.size());
    std::vector<const TensorRef*> constants(step.inputs.size(), nullptr);
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      if (program->is_const(step.inputs[i])) {
        refs[i] = program->constants[size_t(step.inputs[i])].ref();
        constants[i] = &refs[i];
      }
    }
    step.kernel->PrepareConstants(constants);
  }
  return program;
}

}  // namespace gebe::cpu
