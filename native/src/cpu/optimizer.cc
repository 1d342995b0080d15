// Shape-independent passes: constant folding of nodes whose inputs are all constants and
// removal of nodes that no graph output depends on. Fusions live in fusion.cc.
#include <set>

#include "cpu/program.h"

namespace gebe::cpu {

namespace {

// Folding must not blow up the model: a node whose constant output would be much larger than its
// inputs (ConstantOfShape/Expand/Tile of big shapes) stays a runtime node.
constexpr size_t kMaxFoldBytes = size_t(16) << 20;

}  // namespace

void FoldConstants(Program& program, const RunContext& ctx) {
  std::vector<Step> kept;
  for (Step& step : program.steps) {
    bool foldable = step.kernel->Deterministic();
    std::vector<const TensorRef*> inputs;
    std::vector<TensorRef> refs(step.inputs.size());
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      int id = step.inputs[i];
      if (id < 0) {
        inputs.push_back(nullptr);
        continue;
      }
      if (!program.is_const(id)) {
        foldable = false;
        break;
      }
      refs[i] = program.constants[size_t(id)].ref();
      inputs.push_back(&refs[i]);
    }
    if (foldable) {
      std::vector<TensorRef> outputs(step.outputs.size());
      foldable = InferStep(program, step, inputs, outputs, ctx);
      for (auto& o : outputs) {
        if (foldable && (o.dtype == DataType::kInvalid || o.bytes() > kMaxFoldBytes)) foldable = false;
      }
      if (foldable) {
        std::vector<ConstTensor> values;
        for (auto& o : outputs) {
          values.push_back(ConstTensor::Allocate(o.dtype, o.shape));
          o.data = values.back().storage->data();
        }
        step.kernel->Run(inputs, outputs, ctx);
        for (size_t i = 0; i < step.outputs.size(); ++i) {
          if (step.outputs[i] >= 0) program.constants[size_t(step.outputs[i])] = values[i];
        }
        continue;
      }
    }
    kept.push_back(std::move(step));
  }
  program.steps = std::move(kept);
}

void RemoveDeadSteps(Program& program) {
  std::set<int> live(program.output_ids.begin(), program.output_ids.end());
  std::vector<bool> keep(program.steps.size(), false);
  for (size_t k = program.steps.size(); k-- > 0;) {
    const Step& step = program.steps[k];
    for (int out : step.outputs) {
      if (out >= 0 && live.count(out)) keep[k] = true;
    }
    if (keep[k]) {
      for (int in : step.inputs)
        if (in >= 0) live.insert(in);
    }
  }
  std::vector<Step> kept;
  for (size_t k = 0; k < program.steps.size(); ++k)
    if (keep[k]) kept.push_back(std::move(program.steps[k]));
  program.steps = std::move(kept);
  // Constants nothing reads any more (folded intermediates, BN parameters) are released.
  for (size_t id = 0; id < program.constants.size(); ++id) {
    if (program.constants[id].dtype != DataType::kInvalid && !live.count(int(id))) program.constants[id] = ConstTensor();
  }
}

}  // namespace gebe::cpu
