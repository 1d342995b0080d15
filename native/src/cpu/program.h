// A loaded, validated and optimised graph: values resolved to integer ids, nodes in topological
// order each with its kernel. Shape-independent; plans (plan.h) specialise it per input shapes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu/graph.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

struct Step {
  std::unique_ptr<Kernel> kernel;
  std::vector<int> inputs;   // value ids; -1 for an omitted optional input
  std::vector<int> outputs;  // value ids; -1 for an omitted optional output
};

struct ModelInfo {
  int64_t ir_version = 0;
  int64_t opset = 0;
  std::string producer;
  std::map<std::string, int> op_histogram;                       // of the graph as exported
  std::map<std::string, std::vector<std::string>> unsupported;   // support.cc finding → node/tensor names
};

struct Program {
  ModelInfo info;
  std::vector<std::string> value_names;
  std::vector<ConstTensor> constants;  // by value id; dtype kInvalid when the value is not constant
  std::vector<int> input_ids, output_ids;
  std::vector<TensorDesc> inputs, outputs;
  std::vector<Step> steps;             // topological order

  bool is_const(int id) const { return id >= 0 && constants[size_t(id)].dtype != DataType::kInvalid; }
  int add_value(const std::string& name);
};

struct LoadOptions {
  size_t max_tensor_bytes = size_t(4) << 30;
  bool optimize = true;
};

// A model read and checked by CheckModel.
struct CheckedModel {
  ModelInfo info;                           // info.unsupported: all the cpu engine cannot run in it
  std::vector<TensorDesc> inputs, outputs;  // as the model declares them
  std::unique_ptr<Program> program;         // built when nothing is unsupported (and, inspecting, when it builds)
};

// Reads the model at `path` and lists everything the cpu engine cannot run in it: the one check
// behind both the loader's refusal (LoadProgram) and cpuInspect (validate's ENGINE_UNSUPPORTED), so
// the two list the same findings in the same words. First what support.cc finds in the model as
// read (operators, attribute values, element types of edges and weights, opset, bodies); when
// that is nothing, the program is built and the element types its kernels refuse mid-graph are
// found by a trial plan (FindUnsupportedTypes) or while folding constants. Other errors of the
// build (a cycle, an input nothing produces) are the model's faults, not the engine's limits:
// they throw, except with `inspect_only`, which leaves them to the loader and `program` null.
CheckedModel CheckModel(const std::string& path, const LoadOptions& options, bool inspect_only);

// CheckModel's program, or an error listing every finding (DescribeUnsupported).
std::unique_ptr<Program> LoadProgram(const std::string& path, const LoadOptions& options);

// step.kernel->InferRunning, where a type refusal (TypeMismatch) names the graph value it refused,
// which the kernel knows only by its slot ("X").
bool InferStep(const Program& program, const Step& step, const std::vector<const TensorRef*>& inputs,
               std::vector<TensorRef>& outputs, const RunContext& ctx);

// A graph (the model's, or a control-flow body) → Program: kernels in topological order, then
// the optimisation passes. `outer_names` (values of enclosing graphs the body reads) become
// inputs after the graph's own.
std::unique_ptr<Program> BuildProgram(Graph graph, int64_t opset, const LoadOptions& options,
                                      const std::vector<std::string>& outer_names);
// If nodes whose condition is a constant (an initializer or a Constant node's output) are
// replaced by the nodes of the branch they take, renamed apart (subgraph.cc).
void InlineConstantIfs(Graph& graph);

// DQ → Conv → [Relu] → Q and DQ → MaxPool → Q chains → integer kernels (qdq_fusion.cc); runs
// before FoldConstants, which would turn the quantised weights into FP32 ones.
void FuseQdq(Program& program);
// Shape-independent optimisation passes (optimizer.cc).
void FoldConstants(Program& program, const RunContext& ctx);
void FuseConvBatchNorm(Program& program);
void FuseActivations(Program& program);
void FuseMatMulBias(Program& program);
// Before FuseActivations: Conv → Add(·, residual) → the Conv adds the residual (and then takes the
// activation after the Add). After it: Conv (+ Relu/Clip) → MaxPool 2×2 stride 2 → the Conv pools.
void FuseConvResidualAdd(Program& program);
void FuseConvMaxPool(Program& program);
// Gelu and attention-softmax chains (elementwise_fusion.cc).
void FuseElementwiseChains(Program& program);
void RemoveDeadSteps(Program& program);

}  // namespace gebe::cpu
