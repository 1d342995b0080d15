#include <algorithm>
#include <chrono>

#include "cpu/plan.h"

namespace gebe::cpu {

namespace {

constexpr size_t kArenaAlign = 64;
constexpr size_t kMaxFoldBytes = size_t(16) << 20;

// The plan tells a value it knows from one it will only have at run time by a non-null data
// pointer, and an empty buffer has none; empty values (a Slice of a shape to its end, a common
// piece of exported attention reshapes) point here instead, or every step after one would be
// planned as dynamic. Nothing reads or writes through it: the tensors have no elements.
alignas(64) unsigned char empty_value_bytes[64];

void* ValueData(void* data) { return data != nullptr ? data : empty_value_bytes; }

struct Interval {
  int value;
  int first, last;  // step indices where the value is alive
  size_t bytes;
};

// Greedy best-fit by size: big tensors are placed first at the lowest offset that does not
// overlap any already placed tensor whose lifetime intersects.
size_t AssignOffsets(std::vector<Interval>& intervals, std::vector<int64_t>& offsets) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.first < b.first;
  });
  struct Placed {
    size_t offset, bytes;
    int first, last;
  };
  std::vector<Placed> placed;
  size_t total = 0;
  for (const Interval& iv : intervals) {
    size_t size = (iv.bytes + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
    std::vector<std::pair<size_t, size_t>> busy;
    for (const Placed& p : placed) {
      if (p.first <= iv.last && iv.first <= p.last) busy.emplace_back(p.offset, p.offset + p.bytes);
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [b, e] : busy) {
      if (offset + size <= b) break;
      offset = std::max(offset, e);
    }
    placed.push_back({offset, size, iv.first, iv.last});
    offsets[size_t(iv.value)] = int64_t(offset);
    total = std::max(total, offset + size);
  }
  return total;
}

// Constants and the inputs' shapes are known before any step runs.
void SeedValues(const Program& program, const std::vector<Shape>& input_shapes, Plan& plan) {
  size_t n_values = program.value_names.size();
  plan.values.resize(n_values);
  plan.known.assign(n_values, false);
  plan.arena_offset.assign(n_values, -1);
  for (size_t id = 0; id < n_values; ++id) {
    if (program.is_const(int(id))) {
      plan.values[id] = program.constants[id].ref();
      plan.values[id].data = ValueData(plan.values[id].data);
      plan.known[id] = true;
    }
  }
  for (size_t i = 0; i < program.input_ids.size(); ++i) {
    int id = program.input_ids[i];
    plan.values[size_t(id)] = TensorRef{program.inputs[i].dtype, input_shapes[i], nullptr};
    plan.known[size_t(id)] = true;
  }
}

void CheckOutputSizes(const Program& program, const Step& step, const std::vector<TensorRef>& outputs,
                      size_t max_tensor_bytes) {
  for (size_t o = 0; o < outputs.size(); ++o) {
    CheckedElementCount(outputs[o].shape, step.kernel->node().label() + " output " + std::to_string(o));
    if (outputs[o].bytes() > max_tensor_bytes) {
      throw EngineError(step.kernel->node().label() + ": output '" +
                        (step.outputs[o] >= 0 ? program.value_names[size_t(step.outputs[o])] : std::string("?")) +
                        "' of shape " + ShapeToString(outputs[o].shape) + " needs " +
                        std::to_string(outputs[o].bytes()) + " bytes, above the memory cap of " +
                        std::to_string(max_tensor_bytes) + " (SessionOptions.max_tensor_bytes)");
    }
  }
}

// Shape inference step by step; steps whose inputs all have values (or that only read shapes) are
// run now and their small outputs folded into the plan; steps whose shapes need run-time values
// are dynamic.
void InferAndFold(const Program& program, size_t max_tensor_bytes, const std::vector<bool>& is_output,
                  const RunContext& ctx, Plan& plan) {
  plan.modes.assign(program.steps.size(), StepMode::kStatic);
  for (size_t k = 0; k < program.steps.size(); ++k) {
    const Step& step = program.steps[k];
    bool inputs_known = true, inputs_have_values = true;
    std::vector<const TensorRef*> inputs;
    for (int id : step.inputs) {
      if (id < 0) {
        inputs.push_back(nullptr);
        continue;
      }
      if (!plan.known[size_t(id)]) inputs_known = false;
      if (plan.values[size_t(id)].data == nullptr) inputs_have_values = false;
      inputs.push_back(&plan.values[size_t(id)]);
    }
    std::vector<TensorRef> outputs(step.outputs.size());
    if (!inputs_known || !InferStep(program, step, inputs, outputs, ctx)) {
      plan.modes[k] = StepMode::kDynamic;
      continue;
    }
    CheckOutputSizes(program, step, outputs, max_tensor_bytes);
    bool fold = step.kernel->Deterministic() && (step.kernel->ShapeOnly() || inputs_have_values);
    for (size_t o = 0; o < outputs.size() && fold; ++o) {
      if (outputs[o].bytes() > kMaxFoldBytes || (step.outputs[o] >= 0 && is_output[size_t(step.outputs[o])])) fold = false;
    }
    if (fold) {
      for (auto& o : outputs) {
        plan.folded.push_back(ConstTensor::Allocate(o.dtype, o.shape));
        o.data = ValueData(plan.folded.back().storage->data());
      }
      if (HasElements(outputs)) step.kernel->Run(inputs, outputs, ctx);
      plan.modes[k] = StepMode::kFolded;
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      int id = step.outputs[o];
      if (id < 0) continue;
      plan.values[size_t(id)] = outputs[o];
      plan.known[size_t(id)] = true;
    }
  }
}

// Views whose input is an arena value share its bytes: the view's output becomes an alias of the
// root buffer (root[id]), whose lifetime then covers the alias's consumers too. Returns which
// values live in the arena.
std::vector<bool> AliasViews(const Program& program, const std::vector<bool>& is_output, Plan& plan,
                             std::vector<int>& root) {
  size_t n_values = program.value_names.size();
  root.resize(n_values);
  for (size_t id = 0; id < n_values; ++id) root[id] = int(id);
  std::vector<bool> arena_value(n_values, false);
  for (size_t k = 0; k < program.steps.size(); ++k) {
    const Step& step = program.steps[k];
    if (plan.modes[k] != StepMode::kStatic) continue;
    if (step.kernel->IsView() && step.inputs[0] >= 0 && step.outputs[0] >= 0 &&
        arena_value[size_t(step.inputs[0])] && !is_output[size_t(step.outputs[0])]) {
      root[size_t(step.outputs[0])] = root[size_t(step.inputs[0])];
      arena_value[size_t(step.outputs[0])] = true;
      plan.modes[k] = StepMode::kAlias;
      continue;
    }
    for (int id : step.outputs)
      if (id >= 0 && !is_output[size_t(id)]) arena_value[size_t(id)] = true;
  }
  return arena_value;
}

// Lifetimes of arena buffers (by root value), from the producing step to the last reader, then
// offsets; aliases take their root's offset.
void AssignArena(const Program& program, const std::vector<bool>& arena_value, const std::vector<int>& root,
                 Plan& plan) {
  size_t n_values = program.value_names.size();
  std::vector<int> first(n_values, -1), last(n_values, -1);
  for (size_t k = 0; k < program.steps.size(); ++k) {
    if (plan.modes[k] == StepMode::kFolded) continue;
    const Step& step = program.steps[k];
    for (int id : step.inputs)
      if (id >= 0) last[size_t(root[size_t(id)])] = std::max(last[size_t(root[size_t(id)])], int(k));
    if (plan.modes[k] != StepMode::kStatic) continue;
    for (int id : step.outputs) {
      if (id >= 0 && arena_value[size_t(id)] && root[size_t(id)] == id) {
        first[size_t(id)] = int(k);
        last[size_t(id)] = std::max(last[size_t(id)], int(k));
      }
    }
  }
  std::vector<Interval> intervals;
  for (size_t id = 0; id < n_values; ++id) {
    if (first[id] >= 0) intervals.push_back({int(id), first[id], last[id], plan.values[id].bytes()});
  }
  plan.arena_bytes = AssignOffsets(intervals, plan.arena_offset);
  for (size_t id = 0; id < n_values; ++id) {
    if (root[id] != int(id)) plan.arena_offset[id] = plan.arena_offset[size_t(root[id])];
  }
}

}  // namespace

std::unique_ptr<Plan> BuildPlan(const Program& program, const std::vector<Shape>& input_shapes,
                                size_t max_tensor_bytes, const RunContext& ctx) {
  auto start = std::chrono::steady_clock::now();
  auto plan = std::make_unique<Plan>();
  SeedValues(program, input_shapes, *plan);
  std::vector<bool> is_output(program.value_names.size(), false);
  for (int id : program.output_ids) is_output[size_t(id)] = true;
  InferAndFold(program, max_tensor_bytes, is_output, ctx, *plan);
  std::vector<int> root;
  std::vector<bool> arena_value = AliasViews(program, is_output, *plan, root);
  AssignArena(program, arena_value, root, *plan);
  plan->compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace gebe::cpu
