// gebe::Session for ONNX models on the CPU: load → optimise (program) → plan per input-shape
// signature (cached) → run with the planned arena on the session's intra-op pool.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu/plan.h"
#include "engine/engine.h"

namespace gebe::cpu {

class CpuSession : public Session {
 public:
  CpuSession(const std::string& path, const SessionOptions& options);
  ~CpuSession() override;

  const std::vector<TensorDesc>& inputs() const override { return program_->inputs; }
  const std::vector<TensorDesc>& outputs() const override { return program_->outputs; }
  CompileReport compile(const std::vector<NamedShape>& shapes) override;
  void run(const std::vector<TensorView>& inputs, std::vector<Tensor>& outputs, const RunStop* stop = nullptr) override;
  const char* engine_name() const override { return "cpu"; }

  const ModelInfo& info() const { return program_->info; }
  // Operator histogram of the optimised program (what actually runs, before per-shape folding).
  std::map<std::string, int> optimized_operators() const;
  // How the plan for these shapes treats the program's steps (compiles it when needed).
  struct PlanSummary {
    int run = 0, dynamic = 0, folded = 0, aliased = 0;
  };
  PlanSummary plan_summary(const std::vector<NamedShape>& shapes);
  size_t step_count() const { return program_->steps.size(); }
  int threads() const { return pool_->size(); }

 private:
  // Validates shapes against the declared inputs and returns the cached or new plan.
  const Plan& PlanFor(const std::vector<Shape>& shapes, CompileReport* report);
  std::vector<Shape> OrderShapes(const std::vector<NamedShape>& shapes) const;
  void CheckShape(size_t input, const Shape& shape) const;
  // The steps of run(): inputs by name, each input's type/shape/bytes/values, the value table
  // (arena offsets and input data), each step's outputs, the step itself (timed when profiling).
  class OutputBinder;
  std::vector<const TensorView*> MatchInputs(const std::vector<TensorView>& inputs) const;
  void CheckInput(size_t i, const TensorView* view) const;
  void BindValues(const Plan& plan, const std::vector<const TensorView*>& by_input);
  void BindDynamicOutputs(const Step& step, const RunContext& ctx, std::vector<const TensorRef*>& in, std::vector<TensorRef>& out,
                          OutputBinder& binder);
  void BindStaticOutputs(const Step& step, std::vector<const TensorRef*>& in, std::vector<TensorRef>& out,
                         OutputBinder& binder);
  void RunStep(size_t k, const RunContext& ctx);

  SessionOptions options_;
  bool allow_non_finite_ = true;
  std::unique_ptr<Program> program_;
  std::unique_ptr<ThreadPool> pool_;
  std::map<std::vector<Shape>, std::unique_ptr<Plan>> plans_;
  AlignedBuffer arena_;
  Scratch scratch_;
  // Working state of run(), kept between runs (a session is driven by one thread at a time) so
  // steady-state runs reuse its storage instead of allocating it per run and per step.
  std::vector<Shape> run_shapes_;
  std::vector<TensorRef> run_values_;
  std::vector<const TensorRef*> step_inputs_;
  std::vector<TensorRef> step_outputs_;
  // GEBE_CPU_PROFILE=1: wall time per step, summed over runs and printed to stderr when the
  // session closes (what ORT's profiling answers: which operators the time goes to).
  bool profile_ = false;
  // The session's first run packs weights and builds its plan: left out of the profile.
  bool profile_this_run_ = false;
  int64_t profile_calls_ = 0;
  std::vector<int64_t> profile_ns_;
  int64_t profile_runs_ = 0;
};

}  // namespace gebe::cpu
