#include "cpu/cpu_session.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cpu/isa.h"
#include "engine/engine_registry.h"

namespace gebe::cpu {

namespace {

// Plans kept per session; a serving workload sees a handful of batch sizes, a fuzzing client
// could send endless shapes, so the cache is bounded (when full, the lowest signature in map
// order is dropped: eviction only has to bound memory, and warmup re-plans what it needs).
constexpr size_t kMaxPlans = 64;

void CheckFinite(const TensorView& t) {
  if (t.dtype != DataType::kFloat32) return;
  const float* p = static_cast<const float*>(t.data);
  size_t n = t.byte_size / 4;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(p[i])) {
      throw InputError("input '" + t.name + "' holds " + (std::isnan(p[i]) ? "NaN" : "Inf") + " at element " +
                        std::to_string(i) + ", which this model refuses (its parameter allow_non_finite_inputs is false); send finite values");
    }
  }
}

}  // namespace

CpuSession::CpuSession(const std::string& path, const SessionOptions& options) : options_(options) {
  // A forced ISA the CPU lacks is refused rather than silently replaced: a test or benchmark that
  // asked for avx512 must not pass on the avx2 kernels.
  if (!IsaError().empty()) throw EngineError(IsaError());
  auto it = options.parameters.find("allow_non_finite_inputs");
  // As in Triton, NaN and Inf go through by default: a model that computes NaN is not an error.
  allow_non_finite_ = it == options.parameters.end() || (it->second != "false" && it->second != "0");
  LoadOptions load;
  load.max_tensor_bytes = options.max_tensor_bytes;
  auto opt = options.parameters.find("optimize");
  load.optimize = opt == options.parameters.end() || opt->second != "false";
  program_ = LoadProgram(path, load);
  pool_ = std::make_unique<ThreadPool>(options.intra_op_threads);
  const char* profile = std::getenv("GEBE_CPU_PROFILE");
  profile_ = profile != nullptr && profile[0] != '\0' && std::strcmp(profile, "0") != 0;
  if (profile_) profile_ns_.assign(program_->steps.size(), 0);
}

CpuSession::~CpuSession() {
  if (!profile_ || profile_runs_ == 0) return;
  int64_t total = 0;
  for (int64_t ns : profile_ns_) total += ns;
  std::fprintf(stderr, "gebe cpu profile: %lld runs after the first, %d threads, %.1f us per run\n", static_cast<long long>(profile_runs_),
               pool_->size(), double(total) / 1e3 / double(profile_runs_));
  for (size_t k = 0; k < profile_ns_.size(); ++k) {
    if (profile_ns_[k] == 0) continue;
    std::fprintf(stderr, "  %8.1f us %5.1f%%  %s\n", double(profile_ns_[k]) / 1e3 / double(profile_runs_),
                 100.0 * double(profile_ns_[k]) / double(total), program_->steps[k].kernel->node().label().c_str());
  }
}

void CpuSession::CheckShape(size_t input, const Shape& shape) const {
  const TensorDesc& d = program_->inputs[input];
  if (!d.dims.empty() || shape.empty()) {
    if (shape.size() != d.dims.size()) {
      throw EngineError("input '" + d.name + "' has rank " + std::to_string(shape.size()) + " (shape " +
                        ShapeToString(shape) + ") but the model expects rank " + std::to_string(d.dims.size()) +
                        " (shape " + ShapeToString(d.dims) + ")");
    }
  }
  for (size_t i = 0; i < shape.size() && i < d.dims.size(); ++i) {
    if (shape[i] < 0) throw EngineError("input '" + d.name + "' has a negative dimension in " + ShapeToString(shape));
    if (d.dims[i] >= 0 && d.dims[i] != shape[i]) {
      throw EngineError("input '" + d.name + "' has shape " + ShapeToString(shape) + " but the model expects " +
                        ShapeToString(d.dims) + " (dimension " + std::to_string(i) + " must be " +
                        std::to_string(d.dims[i]) + ")");
    }
  }
}

const Plan& CpuSession::PlanFor(const std::vector<Shape>& shapes, CompileReport* report) {
  auto it = plans_.find(shapes);
  if (it != plans_.end()) {
    if (report) *report = {0, it->second->arena_bytes, true};
    return *it->second;
  }
  for (size_t i = 0; i < shapes.size(); ++i) CheckShape(i, shapes[i]);
  RunContext ctx{pool_.get(), &scratch_, options_.max_tensor_bytes};
  auto plan = BuildPlan(*program_, shapes, options_.max_tensor_bytes, ctx);
  if (report) *report = {plan->compile_ms, plan->arena_bytes, false};
  if (plans_.size() >= kMaxPlans) plans_.erase(plans_.begin());
  return *(plans_[shapes] = std::move(plan));
}

std::map<std::string, int> CpuSession::optimized_operators() const {
  std::map<std::string, int> histogram;
  for (const Step& step : program_->steps) histogram[step.kernel->node().op_type]++;
  return histogram;
}

CpuSession::PlanSummary CpuSession::plan_summary(const std::vector<NamedShape>& shapes) {
  const Plan& plan = PlanFor(OrderShapes(shapes), nullptr);
  PlanSummary summary;
  for (StepMode mode : plan.modes) {
    switch (mode) {
      case StepMode::kStatic: summary.run++; break;
      case StepMode::kDynamic: summary.dynamic++; break;
      case StepMode::kFolded: summary.folded++; break;
      case StepMode::kAlias: summary.aliased++; break;
    }
  }
  return summary;
}

CompileReport CpuSession::compile(const std::vector<NamedShape>& shapes) {
  CompileReport report;
  PlanFor(OrderShapes(shapes), &report);
  return report;
}

std::vector<Shape> CpuSession::OrderShapes(const std::vector<NamedShape>& shapes) const {
  std::vector<Shape> ordered(program_->inputs.size());
  std::vector<bool> seen(program_->inputs.size(), false);
  for (const auto& s : shapes) {
    size_t i = 0;
    while (i < program_->inputs.size() && program_->inputs[i].name != s.name) ++i;
    if (i == program_->inputs.size()) throw EngineError("compile: the model has no input named '" + s.name + "'");
    ordered[i] = s.shape;
    seen[i] = true;
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    if (!seen[i]) throw EngineError("compile: no shape given for input '" + program_->inputs[i].name + "'");
  }
  return ordered;
}

std::vector<const TensorView*> CpuSession::MatchInputs(const std::vector<TensorView>& inputs) const {
  const Program& program = *program_;
  std::vector<const TensorView*> by_input(program.inputs.size(), nullptr);
  for (const auto& view : inputs) {
    size_t i = 0;
    while (i < program.inputs.size() && program.inputs[i].name != view.name) ++i;
    if (i == program.inputs.size()) {
      std::string names;
      for (const auto& d : program.inputs) names += (names.empty() ? "" : ", ") + d.name;
      throw EngineError("the model has no input named '" + view.name + "' (inputs: " + names + ")");
    }
    if (by_input[i]) throw EngineError("input '" + view.name + "' was given twice");
    by_input[i] = &view;
  }
  return by_input;
}

void CpuSession::CheckInput(size_t i, const TensorView* v) const {
  const TensorDesc& d = program_->inputs[i];
  if (!v) throw EngineError("input '" + d.name + "' is missing");
  if (v->dtype != d.dtype) {
    throw EngineError("input '" + d.name + "' has type " + DataTypeName(v->dtype) + " but the model expects " +
                      DataTypeName(d.dtype));
  }
  CheckShape(i, v->shape);
  int64_t count = CheckedElementCount(v->shape, "input '" + d.name + "'");
  if (size_t(count) * ElementSize(d.dtype) != v->byte_size) {
    throw EngineError("input '" + d.name + "' of shape " + ShapeToString(v->shape) + " needs " +
                      std::to_string(size_t(count) * ElementSize(d.dtype)) + " bytes but " +
                      std::to_string(v->byte_size) + " were given");
  }
  if (v->byte_size && v->data == nullptr) throw EngineError("input '" + d.name + "' has no data");
  if (!allow_non_finite_) CheckFinite(*v);
}

// Where one run's graph outputs go: those produced by steps are written straight into the result
// tensors; other tensors a dynamic step produces get buffers that live for the run.
class CpuSession::OutputBinder {
 public:
  OutputBinder(const Program& program, size_t values, std::vector<Tensor>& outputs)
      : outputs_(outputs), slot_(values, -1), written_(program.output_ids.size(), false) {
    outputs.clear();
    outputs.resize(program.output_ids.size());
    for (size_t o = 0; o < program.output_ids.size(); ++o) {
      int id = program.output_ids[o];
      outputs[o].name = program.outputs[o].name;
      if (slot_[size_t(id)] < 0) slot_[size_t(id)] = int(o);
    }
  }
  // Memory for value `id` (negative: an omitted optional output) described by ref.
  void* Bind(int id, const TensorRef& ref) {
    int slot = id >= 0 ? slot_[size_t(id)] : -1;
    if (slot >= 0) {
      Tensor& t = outputs_[size_t(slot)];
      written_[size_t(slot)] = true;
      t.dtype = ref.dtype;
      t.shape = ref.shape;
      t.buffer = AlignedBuffer(ref.bytes());
      return t.buffer.data();
    }
    dynamic_.emplace_back(ref.bytes());
    return dynamic_.back().data();
  }
  // Outputs no step wrote in place (constants, graph inputs, duplicates) are copied from values.
  void CopyUnwritten(const Program& program, const std::vector<TensorRef>& values) {
    for (size_t o = 0; o < program.output_ids.size(); ++o) {
      if (written_[o]) continue;
      Tensor& t = outputs_[o];
      const TensorRef& v = values[size_t(program.output_ids[o])];
      t.dtype = v.dtype;
      t.shape = v.shape;
      t.buffer = AlignedBuffer(v.bytes());
      if (v.bytes()) std::memcpy(t.buffer.data(), v.data, v.bytes());
    }
  }

 private:
  std::vector<Tensor>& outputs_;
  std::vector<int> slot_;
  std::vector<bool> written_;
  std::vector<AlignedBuffer> dynamic_;
};

void CpuSession::BindValues(const Plan& plan, const std::vector<const TensorView*>& by_input) {
  if (arena_.data() == nullptr || arena_.size() < plan.arena_bytes) arena_ = AlignedBuffer(plan.arena_bytes);
  uint8_t* arena = static_cast<uint8_t*>(arena_.data());
  // The per-run value table is a member: assigning the plan's table into it reuses every shape
  // vector's storage, so a steady stream of same-shaped runs does not allocate for it.
  std::vector<TensorRef>& values = run_values_;
  values = plan.values;
  // An empty input may come without an address; it gets one, as every empty buffer does (AlignedBuffer).
  static const AlignedBuffer no_bytes(0);
  for (size_t i = 0; i < program_->input_ids.size(); ++i) {
    const void* data = by_input[i]->data != nullptr ? by_input[i]->data : no_bytes.data();
    values[size_t(program_->input_ids[i])].data = const_cast<void*>(data);
  }
  for (size_t id = 0; id < values.size(); ++id) {
    if (plan.arena_offset[id] >= 0) values[id].data = arena + plan.arena_offset[id];
  }
}

// A step whose output shapes depend on run-time values: shapes now, memory from the binder.
void CpuSession::BindDynamicOutputs(const Step& step, const RunContext& ctx, std::vector<const TensorRef*>& in,
                                    std::vector<TensorRef>& out, OutputBinder& binder) {
  for (TensorRef& o : out) o = TensorRef();
  if (!InferStep(*program_, step, in, out, ctx)) {
    throw EngineError(step.kernel->node().label() + ": could not infer output shapes from the runtime inputs");
  }
  for (size_t o = 0; o < out.size(); ++o) {
    CheckedElementCount(out[o].shape, step.kernel->node().label() + " output");
    if (out[o].bytes() > options_.max_tensor_bytes) {
      throw EngineError(step.kernel->node().label() + ": output of shape " + ShapeToString(out[o].shape) +
                        " is above the memory cap of " + std::to_string(options_.max_tensor_bytes) +
                        " bytes (SessionOptions.max_tensor_bytes)");
    }
    out[o].data = binder.Bind(step.outputs[o], out[o]);
  }
}

// A statically planned step: outputs from the plan's table (arena or graph output).
void CpuSession::BindStaticOutputs(const Step& step, std::vector<const TensorRef*>& in, std::vector<TensorRef>& out,
                                   OutputBinder& binder) {
  const std::vector<TensorRef>& values = run_values_;
  for (size_t o = 0; o < out.size(); ++o) {
    int id = step.outputs[o];
    if (id < 0) {
      // An omitted optional output still needs somewhere to go; Infer gives its size.
      std::vector<TensorRef> shapes(step.outputs.size());
      step.kernel->Infer(in, shapes);
      out[o] = shapes[o];
      out[o].data = binder.Bind(-1, out[o]);
      continue;
    }
    out[o] = values[size_t(id)];
    if (out[o].data == nullptr) out[o].data = binder.Bind(id, out[o]);
  }
}

void CpuSession::RunStep(size_t k, const RunContext& ctx) {
  const Step& step = program_->steps[k];
  if (!profile_this_run_) {
    step.kernel->Run(step_inputs_, step_outputs_, ctx);
    return;
  }
  auto t0 = std::chrono::steady_clock::now();
  step.kernel->Run(step_inputs_, step_outputs_, ctx);
  profile_ns_[k] += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

void CpuSession::run(const std::vector<TensorView>& inputs, std::vector<Tensor>& outputs, const RunStop* stop) {
  pool_->Prewarm();  // parked workers wake while the inputs are checked
  const Program& program = *program_;
  std::vector<const TensorView*> by_input = MatchInputs(inputs);
  run_shapes_.resize(program.inputs.size());
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    CheckInput(i, by_input[i]);
    run_shapes_[i] = by_input[i]->shape;
  }
  const Plan& plan = PlanFor(run_shapes_, nullptr);
  BindValues(plan, by_input);
  std::vector<TensorRef>& values = run_values_;
  OutputBinder binder(program, values.size(), outputs);
  int64_t loop_iterations = 0;
  RunContext ctx{pool_.get(), &scratch_, options_.max_tensor_bytes, &loop_iterations, stop};
  profile_this_run_ = profile_ && ++profile_calls_ > 1;
  if (profile_this_run_) ++profile_runs_;
  std::vector<const TensorRef*>& in = step_inputs_;
  std::vector<TensorRef>& out = step_outputs_;
  for (size_t k = 0; k < program.steps.size(); ++k) {
    if (plan.modes[k] == StepMode::kFolded || plan.modes[k] == StepMode::kAlias) continue;
    const Step& step = program.steps[k];
    in.clear();
    for (int id : step.inputs) in.push_back(id < 0 ? nullptr : &values[size_t(id)]);
    out.resize(step.outputs.size());
    if (plan.modes[k] == StepMode::kDynamic) BindDynamicOutputs(step, ctx, in, out, binder);
    else BindStaticOutputs(step, in, out, binder);
    if (HasElements(out)) {
      StopIfAsked(ctx);
      RunStep(k, ctx);
    }
    for (size_t o = 0; o < out.size(); ++o) {
      if (step.outputs[o] >= 0) values[size_t(step.outputs[o])] = out[o];
    }
  }
  binder.CopyUnwritten(program, values);
}

}  // namespace gebe::cpu

GEBE_REGISTER_ENGINE(cpu, "cpu", {".onnx"},
                     [](const std::string& path, const gebe::SessionOptions& options) -> std::unique_ptr<gebe::Session> {
                       return std::make_unique<gebe::cpu::CpuSession>(path, options);
                     });
