// Control-flow bodies (If branches, Loop and Scan bodies) as programs of their own. A Subgraph is
// built once, when its node's kernel is created at load, and run by the kernel as often as the
// node needs: every step's shapes are inferred from the real inputs and its outputs allocated
// per run (bodies are small and their shapes can change from one iteration to the next).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu/program.h"

namespace gebe::cpu {

class Subgraph {
 public:
  // `outer_names`: the enclosing graphs' values the body reads, passed after its own inputs.
  Subgraph(const Graph& graph, int64_t opset, const std::vector<std::string>& outer_names, const std::string& owner);

  size_t num_inputs() const { return num_inputs_; }  // the body's own inputs, without outer values
  size_t num_outputs() const { return program_->output_ids.size(); }
  // inputs: the body's own inputs, then the outer values (in outer_names order).
  std::vector<ConstTensor> Run(const std::vector<const TensorRef*>& inputs, const RunContext& ctx) const;
  // The outputs' types and shapes by shape inference alone (a Loop that runs zero times still
  // gives its scan outputs their element shape); kInvalid where inference needs values.
  std::vector<TensorRef> InferOutputs(const std::vector<const TensorRef*>& inputs) const;

 private:
  std::unique_ptr<Program> program_;
  size_t num_inputs_ = 0;
  std::string owner_;  // "node 'loop' (Loop) body", for errors
};

// A copy of `t` that owns its bytes.
ConstTensor CopyTensor(const TensorRef& t);

}  // namespace gebe::cpu
