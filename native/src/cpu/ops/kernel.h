// The operator interface of the CPU engine. One kernel object is created per graph node at load
// time (its constructor reads and validates the node's attributes); the engine then calls:
//
//   Infer(inputs, outputs)  shape inference: fill each output's dtype and shape from the inputs'
//                           dtypes and shapes. Inputs whose value is known (constants, folded
//                           values, or real tensors at run time) have `data` set; others have
//                           data == nullptr. Return false when the output shape depends on an input
//                           value that is not known yet (the node then runs "dynamically": its
//                           shapes are inferred again at run time with real data).
//   Run(inputs, outputs, ctx)
//                           compute: outputs are allocated with the inferred dtype/shape. Kernels
//                           never write to inputs and may parallelise with ctx.pool.
//
// Absent optional inputs are nullptr in `inputs`. Errors are thrown as EngineError with the node
// label (node.label()) so the user sees which node failed.
//
// Adding an operator: write a class deriving from Kernel in the ops/<family>.cc file it belongs
// to and register it there with GEBE_CPU_KERNEL("OpType", ClassName). Nothing else changes: the
// registry is the list of supported operators (introspection and the unsupported-op error read it).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu/graph.h"
#include "cpu/tensor.h"
#include "cpu/thread_pool.h"

namespace gebe::cpu {

// Scratch memory owned by the session and reused by every kernel of a run (im2col buffers and
// the like). Not shared between threads of one kernel: slice it by thread index if needed.
class Scratch {
 public:
  float* Floats(size_t n) {
    if (buffer_.size() < n * sizeof(float)) buffer_ = AlignedBuffer(n * sizeof(float));
    return static_cast<float*>(buffer_.data());
  }

 private:
  AlignedBuffer buffer_;
};

struct RunContext {
  ThreadPool* pool = nullptr;
  Scratch* scratch = nullptr;
  // The session's cap on one tensor (SessionOptions::max_tensor_bytes), for kernels that allocate
  // while they run (control-flow bodies, Loop and Scan outputs).
  size_t max_tensor_bytes = size_t(4) << 30;
  // Loop iterations this run has made so far, shared by every Loop in it, nested ones included
  // (null outside a session's run: a Loop then counts its own).
  int64_t* loop_iterations = nullptr;
  // Asked between steps and loop iterations (null: never stops early); see RunStop.
  const RunStop* stop = nullptr;
};

// Between steps and iterations: ends the run when nobody waits for its results any more.
inline void StopIfAsked(const RunContext& ctx) {
  if (ctx.stop != nullptr && ctx.stop->Requested()) throw RunCancelled("the run was stopped: every request of its batch was cancelled");
}

// Whether a step has anything to compute: some output with an element. The session, subgraph
// bodies and load-time folding run a step only then, so no kernel meets a shape like [2^62, 0]
// (a client's values can ask for one) and sizes scratch by its one huge dimension.
inline bool HasElements(const std::vector<TensorRef>& outputs) {
  for (const TensorRef& o : outputs) {
    if (o.count() != 0) return true;
  }
  return false;
}

// An input whose element type the kernel does not take (Kernel::ExpectType). Types flow through a
// graph the same whatever its shapes, so the load-time support check looks for these with a trial
// plan (FindUnsupportedTypes in ../support.h) rather than leaving them to the first request. It
// lists them as it lists its other findings (operator: problem → node), so the parts are kept.
class TypeMismatch : public EngineError {
 public:
  // slot: the kernel's name for the input ("X"); requirement: "must be FP32 or INT8 but is INT32";
  // input: the refused tensor, so that the caller of Infer can name its graph value (Naming).
  TypeMismatch(const Node& node, std::string slot, std::string requirement, const TensorRef* input);
  // The same refusal naming the graph value in the slot.
  TypeMismatch Naming(const std::string& value_name) const;
  // "input X ('r') must be FP32 or INT8 but is INT32" (the value only once named).
  std::string Problem() const;

  const std::string op_type, node_name, slot, requirement, value;
  // Valid only while the Infer call that threw unwinds.
  const TensorRef* input;

 private:
  TypeMismatch(std::string label, std::string op_type, std::string node_name, std::string slot, std::string requirement,
               std::string value, const TensorRef* input);
  std::string label_;
};

// Fused activation applied by kernels that support it (Conv, Gemm, MatMul + bias).
struct Activation {
  // kSilu: x · sigmoid(x), which exporters write as Sigmoid then Mul (EfficientNet's, YOLO's SiLU).
  enum class Kind { kNone, kRelu, kClip, kLeakyRelu, kSigmoid, kHardSwish, kSilu } kind = Kind::kNone;
  float alpha = 0, beta = 0;  // Clip min/max; LeakyRelu alpha
  void Apply(float* data, int64_t n) const;
};

class Kernel {
 public:
  explicit Kernel(const Node& node) : node_(node) {}
  virtual ~Kernel() = default;

  virtual bool Infer(const std::vector<const TensorRef*>& inputs, std::vector<TensorRef>& outputs) = 0;
  virtual void Run(const std::vector<const TensorRef*>& inputs, std::vector<TensorRef>& outputs,
                   const RunContext& ctx) = 0;
  // Shape inference where the engine can also run the kernel (every caller that has a context):
  // control-flow kernels, whose output shapes are only known by running their bodies, run them
  // here when every input has its values and return false otherwise. Others just Infer.
  virtual bool InferRunning(const std::vector<const TensorRef*>& inputs, std::vector<TensorRef>& outputs,
                            const RunContext& ctx) {
    return Infer(inputs, outputs);
  }
  // True when the outputs depend on the inputs' shapes only (Shape, Size): foldable once shapes are known.
  virtual bool ShapeOnly() const { return false; }
  // False for kernels whose outputs differ from run to run (RandomNormal and the other random
  // operators): never folded into constants, at load or in a shape's plan.
  virtual bool Deterministic() const { return true; }
  // True when output 0 is input 0's bytes under another shape (Reshape, Flatten, Squeeze,
  // Unsqueeze, Identity): the planner then aliases the buffers and skips the copy.
  virtual bool IsView() const { return false; }
  // Kernels that can absorb a following activation return true and apply it in Run.
  virtual bool FuseActivation(const Activation& act) { return false; }
  // A kernel that can pool its own output takes the kernel of the MaxPool that consumes it (one
  // whose window is 2×2, stride 2, no padding: FuseConvMaxPool checks that) and returns true.
  virtual bool FuseMaxPool(std::unique_ptr<Kernel>* pool) { return false; }
  // Likewise for the Add of its output and another tensor (residual_first: that tensor is the
  // Add's first input), which the kernel then takes as an extra input.
  virtual bool FuseResidualAdd(std::unique_ptr<Kernel>* add, bool residual_first) { return false; }
  // Called once after optimisation with the inputs that are constants (nullptr for the others),
  // so kernels can pre-pack weights. Constants outlive the kernel's program.
  virtual void PrepareConstants(const std::vector<const TensorRef*>& constants) {}

  const Node& node() const { return node_; }

 protected:
  [[noreturn]] void Fail(const std::string& why) const { throw EngineError(node_.label() + ": " + why); }
  // Checks a required input is present and of one of the given types.
  const TensorRef& Input(const std::vector<const TensorRef*>& inputs, size_t i, const char* what) const;
  // True when the tensor's values are available (an empty tensor's always are).
  static bool Known(const TensorRef& t) { return t.data != nullptr || t.count() == 0; }
  void ExpectType(const TensorRef& t, const char* what, std::initializer_list<DataType> allowed) const;

  Node node_;
};

using KernelFactory = std::function<std::unique_ptr<Kernel>(const Node& node, int64_t opset)>;

struct KernelRegistry {
  static std::map<std::string, KernelFactory>& Entries();
  static bool Has(const std::string& op_type) { return Entries().count(op_type) != 0; }
  static std::unique_ptr<Kernel> Create(const Node& node, int64_t opset);
};

struct KernelRegistrar {
  KernelRegistrar(const char* op_type, KernelFactory factory) { KernelRegistry::Entries()[op_type] = std::move(factory); }
};

}  // namespace gebe::cpu

#define GEBE_CPU_KERNEL_CAT2(a, b) a##b
#define GEBE_CPU_KERNEL_CAT(a, b) GEBE_CPU_KERNEL_CAT2(a, b)
// Registers `Class` (constructible from (const Node&, int64_t opset)) for `op_type`.
#define GEBE_CPU_KERNEL(op_type, Class)                                                                     \
  static ::gebe::cpu::KernelRegistrar GEBE_CPU_KERNEL_CAT(gebe_cpu_kernel_, __COUNTER__)(                  \
      op_type, [](const ::gebe::cpu::Node& node, int64_t opset) -> std::unique_ptr<::gebe::cpu::Kernel> { \
        return std::make_unique<Class>(node, opset);                                                        \
      })
