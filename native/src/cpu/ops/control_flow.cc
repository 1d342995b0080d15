// If, Loop and Scan (opset 8's batched form included) over static bodies (subgraph.h). An If whose condition is a constant never
// gets here: the loader inlines the branch it takes (InlineConstantIfs). The others run their
// bodies when the engine asks for their output shapes (InferRunning: a body's output shapes are
// only known by running it) and hand those results to Run; a Run without them (a plan that
// knew the shapes in advance) runs the body itself. The node's step takes the enclosing graph's
// values its bodies read after its declared inputs (Node::outer_inputs).
#include <cstring>

#include "cpu/ops/op_util.h"
#include "cpu/subgraph.h"

namespace gebe::cpu {

namespace {

// A Loop may not spin for minutes on a trip count or condition from a request: 2^20 iterations
// (about a second of a trivial body) is far beyond the decoding and sequence loops models export.
// The bound is per run and counts every Loop's iterations together, so nested Loops whose trip
// counts both come from the request cannot multiply it.
constexpr int64_t kMaxLoopIterations = int64_t(1) << 20;

class ControlFlowKernel : public Kernel {
 public:
  ControlFlowKernel(const Node& node) : Kernel(node), outer_(OuterScopeNames(node)) {}

  bool Infer(const std::vector<const TensorRef*>&, std::vector<TensorRef>&) override { return false; }

  bool InferRunning(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    for (const TensorRef* t : in) {
      if (t && !Known(*t)) return false;
    }
    results_ = Execute(in, ctx);
    results_key_ = KeyOf(in);
    for (size_t o = 0; o < out.size() && o < results_.size(); ++o) out[o] = {results_[o].dtype, results_[o].shape, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    std::vector<ConstTensor> results;
    if (!results_.empty() && results_key_ == KeyOf(in)) results.swap(results_);
    else results = Execute(in, ctx);
    results_.clear();
    for (size_t o = 0; o < out.size() && o < results.size(); ++o) {
      if (out[o].data == nullptr) continue;
      if (out[o].shape != results[o].shape || out[o].dtype != results[o].dtype) {
        Fail("output " + std::to_string(o) + " has shape " + ShapeToString(results[o].shape) + " but " +
             ShapeToString(out[o].shape) + " was planned");
      }
      if (out[o].bytes()) std::memcpy(out[o].data, results[o].storage->data(), out[o].bytes());
    }
  }

 protected:
  virtual std::vector<ConstTensor> Execute(const std::vector<const TensorRef*>& in, const RunContext& ctx) = 0;

  std::unique_ptr<Subgraph> Body(const char* attribute, int64_t opset) const {
    const Graph* g = node_.get_graph(attribute);
    if (!g) Fail(std::string("attribute '") + attribute + "' (a graph) is missing");
    return std::make_unique<Subgraph>(*g, opset, outer_, node_.label() + " " + attribute);
  }
  // The body's inputs: `own`, then the outer values (the step's inputs after the declared ones).
  std::vector<const TensorRef*> BodyInputs(const std::vector<const TensorRef*>& own,
                                           const std::vector<const TensorRef*>& in) const {
    std::vector<const TensorRef*> all = own;
    for (size_t i = node_.inputs.size(); i < in.size(); ++i) all.push_back(in[i]);
    return all;
  }
  size_t declared() const { return node_.inputs.size(); }
  const TensorRef* Declared(const std::vector<const TensorRef*>& in, size_t i) const {
    return i < declared() && i < in.size() ? in[i] : nullptr;
  }

  std::vector<std::string> outer_;

 private:
  struct Key {
    std::vector<const void*> data;
    std::vector<Shape> shapes;
    bool operator==(const Key& o) const { return data == o.data && shapes == o.shapes; }
  };
  static Key KeyOf(const std::vector<const TensorRef*>& in) {
    Key k;
    for (const TensorRef* t : in) {
      k.data.push_back(t ? t->data : nullptr);
      k.shapes.push_back(t ? t->shape : Shape{-1});
    }
    return k;
  }
  std::vector<ConstTensor> results_;
  Key results_key_;
};

bool ScalarTrue(const Kernel& k, const TensorRef& t, const char* what) {
  if (t.dtype != DataType::kBool || t.count() != 1) {
    throw EngineError(k.node().label() + ": " + what + " must be a BOOL tensor of one element but is " +
                      DataTypeName(t.dtype) + " of shape " + ShapeToString(t.shape));
  }
  return t.as<const uint8_t>()[0] != 0;
}

// Stacks equally shaped slices along a new axis `axis` (reverse: the last slice first).
class Stacker {
 public:
  Stacker(const Kernel& k, int64_t axis, bool reverse, size_t max_bytes) : k_(k), axis_(axis), reverse_(reverse), max_bytes_(max_bytes) {}
  void Add(const ConstTensor& slice) {
    if (slices_.empty()) {
      dtype_ = slice.dtype;
      shape_ = slice.shape;
    } else if (slice.dtype != dtype_ || slice.shape != shape_) {
      throw EngineError(k_.node().label() + ": a scan output changes from " + DataTypeName(dtype_) + " " +
                        ShapeToString(shape_) + " to " + DataTypeName(slice.dtype) + " " + ShapeToString(slice.shape) +
                        " between iterations");
    }
    bytes_ += size_t(slice.count()) * ElementSize(slice.dtype);
    if (bytes_ > max_bytes_) {
      throw EngineError(k_.node().label() + ": a scan output grows above the memory cap of " + std::to_string(max_bytes_) +
                        " bytes (SessionOptions.max_tensor_bytes)");
    }
    slices_.push_back(slice);
  }
  // `empty`: the slice's type and shape by inference, for a scan that ran zero times.
  ConstTensor Finish(const TensorRef& empty) const {
    if (slices_.empty()) {
      Shape shape = empty.dtype == DataType::kInvalid ? Shape{} : empty.shape;
      const int64_t axis = NormalizeAxis(k_, axis_, int64_t(shape.size()) + 1, "scan output axis");
      shape.insert(shape.begin() + axis, 0);
      return ConstTensor::Allocate(empty.dtype == DataType::kInvalid ? DataType::kFloat32 : empty.dtype, shape);
    }
    int64_t rank = int64_t(shape_.size());
    int64_t axis = NormalizeAxis(k_, axis_, rank + 1, "scan output axis");
    int64_t n = int64_t(slices_.size());
    Shape shape = shape_;
    shape.insert(shape.begin() + axis, n);
    ConstTensor out = ConstTensor::Allocate(dtype_, shape);
    size_t es = ElementSize(dtype_);
    int64_t outer = SizeTo(shape_, size_t(axis)), inner = SizeFrom(shape_, size_t(axis));
    auto* dst = static_cast<uint8_t*>(out.storage->data());
    for (int64_t t = 0; t < n; ++t) {
      const auto* src = static_cast<const uint8_t*>(slices_[size_t(t)].storage->data());
      int64_t pos = reverse_ ? n - 1 - t : t;
      for (int64_t o = 0; o < outer; ++o) {
        std::memcpy(dst + size_t((o * n + pos) * inner) * es, src + size_t(o * inner) * es, size_t(inner) * es);
      }
    }
    return out;
  }

 private:
  const Kernel& k_;
  int64_t axis_;
  bool reverse_;
  size_t max_bytes_, bytes_ = 0;
  DataType dtype_ = DataType::kInvalid;
  Shape shape_;
  std::vector<ConstTensor> slices_;
};

class IfKernel : public ControlFlowKernel {
 public:
  IfKernel(const Node& node, int64_t opset) : ControlFlowKernel(node) {
    then_ = Body("then_branch", opset);
    else_ = Body("else_branch", opset);
    for (const Subgraph* b : {then_.get(), else_.get()}) {
      if (b->num_inputs() != 0) Fail("a branch declares inputs; If branches take none");
      if (b->num_outputs() != node.outputs.size()) {
        Fail("a branch has " + std::to_string(b->num_outputs()) + " outputs but the node has " +
             std::to_string(node.outputs.size()));
      }
    }
  }

 protected:
  std::vector<ConstTensor> Execute(const std::vector<const TensorRef*>& in, const RunContext& ctx) override {
    const Subgraph& branch = ScalarTrue(*this, Input(in, 0, "cond"), "cond") ? *then_ : *else_;
    return branch.Run(BodyInputs({}, in), ctx);
  }

 private:
  std::unique_ptr<Subgraph> then_, else_;
};

// Loop (opsets 1-21): M (trip count), cond, N carried values; body (iteration, cond, N carried) →
// (cond, N carried, K scan outputs); the node's outputs are the N final values and the K scan
// outputs stacked along a new first axis.
class LoopKernel : public ControlFlowKernel {
 public:
  LoopKernel(const Node& node, int64_t opset) : ControlFlowKernel(node) {
    body_ = Body("body", opset);
    if (node.inputs.size() < 2) Fail("needs the inputs M and cond (either may be empty)");
    carried_ = node.inputs.size() - 2;
    if (body_->num_inputs() != carried_ + 2) {
      Fail("the body takes " + std::to_string(body_->num_inputs()) + " inputs but needs " + std::to_string(carried_ + 2) +
           " (iteration number, condition, and one per loop-carried value)");
    }
    if (body_->num_outputs() < carried_ + 1) Fail("the body must return the condition and every loop-carried value");
    scans_ = body_->num_outputs() - 1 - carried_;
    if (node.outputs.size() > carried_ + scans_) Fail("has more outputs than loop-carried values and scan outputs");
  }

 protected:
  std::vector<ConstTensor> Execute(const std::vector<const TensorRef*>& in, const RunContext& ctx) override {
    int64_t trip = -1;
    if (const TensorRef* m = Declared(in, 0)) {
      ExpectType(*m, "M", {DataType::kInt64});
      if (m->count() != 1) Fail("M must hold one value but has shape " + ShapeToString(m->shape));
      trip = std::max<int64_t>(0, m->as<const int64_t>()[0]);
    }
    bool cond = true;
    if (const TensorRef* c = Declared(in, 1)) cond = ScalarTrue(*this, *c, "cond");
    std::vector<ConstTensor> carried;
    for (size_t i = 0; i < carried_; ++i) carried.push_back(CopyTensor(Input(in, 2 + i, "v_initial")));
    std::vector<Stacker> stacks;
    for (size_t s = 0; s < scans_; ++s) stacks.emplace_back(*this, 0, false, ctx.max_tensor_bytes);
    ConstTensor iteration = ConstTensor::Allocate(DataType::kInt64, {});
    ConstTensor cond_in = ConstTensor::Allocate(DataType::kBool, {});
    std::vector<TensorRef> refs;
    std::vector<const TensorRef*> own;
    auto body_inputs = [&](int64_t i) {
      static_cast<int64_t*>(iteration.storage->data())[0] = i;
      static_cast<uint8_t*>(cond_in.storage->data())[0] = 1;
      refs = {iteration.ref(), cond_in.ref()};
      for (const ConstTensor& c : carried) refs.push_back(c.ref());
      own.clear();
      for (const TensorRef& r : refs) own.push_back(&r);
      return BodyInputs(own, in);
    };
    int64_t own_count = 0;
    int64_t& spent = ctx.loop_iterations != nullptr ? *ctx.loop_iterations : own_count;
    int64_t i = 0;
    for (; (trip < 0 || i < trip) && cond; ++i) {
      StopIfAsked(ctx);  // an iteration whose body has nothing to run asks here
      if (++spent > kMaxLoopIterations) {
        Fail("ran " + std::to_string(kMaxLoopIterations) + " loop iterations in one run without stopping (nested loops count " +
             "together); the engine bounds loops there");
      }
      std::vector<ConstTensor> outs = body_->Run(body_inputs(i), ctx);
      cond = ScalarTrue(*this, outs[0].ref(), "the body's condition output");
      for (size_t c = 0; c < carried_; ++c) carried[c] = outs[1 + c];
      for (size_t s = 0; s < scans_; ++s) stacks[s].Add(outs[1 + carried_ + s]);
    }
    std::vector<ConstTensor> results = carried;
    std::vector<TensorRef> shapes;
    if (i == 0 && scans_ > 0) shapes = body_->InferOutputs(body_inputs(0));
    for (size_t s = 0; s < scans_; ++s) results.push_back(stacks[s].Finish(i == 0 ? shapes[1 + carried_ + s] : TensorRef()));
    return results;
  }

 private:
  std::unique_ptr<Subgraph> body_;
  size_t carried_ = 0, scans_ = 0;
};

// Scan: N state values and M scan inputs; the body maps (N states, M slices) to (N states, K scan
// output slices) once per position along each scan input's axis. Opset 8's form is batched: a
// first input sequence_lens, every state and scan input led by a batch dim, time on axis 1 (and
// scan outputs zero-padded past a batch's length); it runs as one opset-9 scan per batch entry.
class ScanKernel : public ControlFlowKernel {
 public:
  ScanKernel(const Node& node, int64_t opset) : ControlFlowKernel(node), batched_(opset < 9) {
    body_ = Body("body", opset);
    int64_t m = node.get_int("num_scan_inputs", -1);
    size_t lead = batched_ ? 1 : 0;  // sequence_lens
    if (m < 1 || size_t(m) + lead > node.inputs.size()) Fail("num_scan_inputs must be between 1 and the number of inputs");
    scan_inputs_ = size_t(m);
    states_ = node.inputs.size() - lead - scan_inputs_;
    if (body_->num_inputs() != states_ + scan_inputs_) Fail("the body must take one input per state and scan input");
    if (body_->num_outputs() < states_) Fail("the body must return every state value");
    scan_outputs_ = body_->num_outputs() - states_;
    in_axes_ = node.get_ints("scan_input_axes", std::vector<int64_t>(scan_inputs_, 0));
    in_dirs_ = node.get_ints(batched_ ? "directions" : "scan_input_directions", std::vector<int64_t>(scan_inputs_, 0));
    out_axes_ = node.get_ints("scan_output_axes", std::vector<int64_t>(scan_outputs_, 0));
    out_dirs_ = node.get_ints("scan_output_directions", std::vector<int64_t>(scan_outputs_, 0));
    if (in_axes_.size() != scan_inputs_ || in_dirs_.size() != scan_inputs_) Fail("scan_input_axes/directions need one value per scan input");
    if (out_axes_.size() != scan_outputs_ || out_dirs_.size() != scan_outputs_) Fail("scan_output_axes/directions need one value per scan output");
  }

 protected:
  std::vector<ConstTensor> Execute(const std::vector<const TensorRef*>& in, const RunContext& ctx) override {
    if (batched_) return ExecuteBatched(in, ctx);
    std::vector<const TensorRef*> states(in.begin(), in.begin() + std::ptrdiff_t(states_));
    std::vector<const TensorRef*> scans(in.begin() + std::ptrdiff_t(states_), in.begin() + std::ptrdiff_t(states_ + scan_inputs_));
    return Sequence(states, scans, -1, in, ctx);
  }

 private:
  // One scan over `scans` (the first `limit` positions; -1: all): final states, then scan outputs.
  std::vector<ConstTensor> Sequence(const std::vector<const TensorRef*>& initial, const std::vector<const TensorRef*>& scans,
                                    int64_t limit, const std::vector<const TensorRef*>& in, const RunContext& ctx) {
    std::vector<ConstTensor> states;
    for (const TensorRef* s : initial) states.push_back(CopyTensor(*Require(s, "initial state")));
    int64_t length = -1;
    std::vector<int64_t> axes(scan_inputs_);
    for (size_t j = 0; j < scan_inputs_; ++j) {
      const TensorRef& x = *Require(scans[j], "scan input");
      axes[j] = NormalizeAxis(*this, in_axes_[j], x.rank(), "scan_input_axes value");
      if (length >= 0 && x.shape[size_t(axes[j])] != length) Fail("the scan inputs have different sequence lengths");
      length = x.shape[size_t(axes[j])];
    }
    if (limit >= 0) {
      if (limit > length) Fail("a sequence_lens value (" + std::to_string(limit) + ") is above the sequence length " + std::to_string(length));
      length = limit;
    }
    std::vector<Stacker> stacks;
    for (size_t k = 0; k < scan_outputs_; ++k) stacks.emplace_back(*this, out_axes_[k], out_dirs_[k] != 0, ctx.max_tensor_bytes);
    // The body's inputs: the states, then one slice (or, to infer shapes, a slice's type and
    // shape) per scan input. `refs` holds what they point at until the next call.
    std::vector<TensorRef> refs;
    std::vector<const TensorRef*> own;
    auto body_inputs = [&](const std::vector<TensorRef>& per_input) {
      refs.clear();
      for (const ConstTensor& s : states) refs.push_back(s.ref());
      refs.insert(refs.end(), per_input.begin(), per_input.end());
      own.clear();
      for (const TensorRef& r : refs) own.push_back(&r);
      return BodyInputs(own, in);
    };
    std::vector<ConstTensor> slices(scan_inputs_);
    std::vector<TensorRef> slice_refs(scan_inputs_);
    for (int64_t t = 0; t < length; ++t) {
      StopIfAsked(ctx);
      for (size_t j = 0; j < scan_inputs_; ++j) {
        slices[j] = Slice(*scans[j], size_t(axes[j]), in_dirs_[j] ? length - 1 - t : t);
        slice_refs[j] = slices[j].ref();
      }
      std::vector<ConstTensor> outs = body_->Run(body_inputs(slice_refs), ctx);
      for (size_t s = 0; s < states_; ++s) states[s] = outs[s];
      for (size_t k = 0; k < scan_outputs_; ++k) stacks[k].Add(outs[states_ + k]);
    }
    std::vector<ConstTensor> results = states;
    // A scan of length 0 gives empty outputs of the body's slice shape, inferred from the states
    // and the scan inputs' slice shapes.
    std::vector<TensorRef> inferred;
    if (length == 0 && scan_outputs_ > 0) {
      for (size_t j = 0; j < scan_inputs_; ++j) {
        Shape slice = scans[j]->shape;
        slice.erase(slice.begin() + std::ptrdiff_t(axes[j]));
        slice_refs[j] = {scans[j]->dtype, slice, nullptr};
      }
      inferred = body_->InferOutputs(body_inputs(slice_refs));
    }
    for (size_t k = 0; k < scan_outputs_; ++k) results.push_back(stacks[k].Finish(length == 0 ? inferred[states_ + k] : TensorRef()));
    return results;
  }

  // Opset 8: per batch entry b, a scan over entry b of every state and scan input (time then on
  // axis 0) for sequence_lens[b] steps; results stacked on a new batch axis, scan outputs padded
  // with zeros to the full sequence length.
  std::vector<ConstTensor> ExecuteBatched(const std::vector<const TensorRef*>& in, const RunContext& ctx) {
    const TensorRef* lens = Declared(in, 0);
    const TensorRef& first = *Require(Declared(in, 1 + states_), "scan input");
    if (first.rank() < 2) Fail("scan inputs must be [batch, sequence, ...]");
    int64_t batch = first.shape[0], full = first.shape[1];
    std::vector<int64_t> lengths(size_t(batch), full);
    if (lens && lens->count() > 0) {
      lengths = ReadInts(*lens);
      if (int64_t(lengths.size()) != batch) Fail("sequence_lens needs one value per batch entry (" + std::to_string(batch) + ")");
    }
    std::vector<std::vector<ConstTensor>> per_batch;
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<ConstTensor> parts;
      for (size_t i = 0; i < states_ + scan_inputs_; ++i) {
        const TensorRef& x = *Require(Declared(in, 1 + i), i < states_ ? "initial state" : "scan input");
        if (x.rank() < 1 || x.shape[0] != batch) Fail("every state and scan input must lead with the batch dim (" + std::to_string(batch) + ")");
        parts.push_back(Slice(x, 0, b));
      }
      std::vector<TensorRef> refs;
      for (const ConstTensor& p : parts) refs.push_back(p.ref());
      std::vector<const TensorRef*> states, scans;
      for (size_t i = 0; i < refs.size(); ++i) (i < states_ ? states : scans).push_back(&refs[i]);
      per_batch.push_back(Sequence(states, scans, lengths[size_t(b)], in, ctx));
    }
    std::vector<ConstTensor> results;
    for (size_t o = 0; o < states_ + scan_outputs_; ++o) {
      Shape inner = per_batch.empty() ? Shape{} : per_batch[0][o].shape;
      if (o >= states_ && !inner.empty()) inner[0] = full;  // scan outputs: padded to the full length
      Shape shape = inner;
      shape.insert(shape.begin(), batch);
      DataType dtype = per_batch.empty() ? DataType::kFloat32 : per_batch[0][o].dtype;
      ConstTensor out = ConstTensor::Allocate(dtype, shape);
      size_t es = ElementSize(dtype), row = size_t(ElementCount(inner)) * es;
      auto* dst = static_cast<uint8_t*>(out.storage->data());
      std::memset(dst, 0, row * size_t(batch));
      for (int64_t b = 0; b < batch; ++b) {
        const ConstTensor& part = per_batch[size_t(b)][o];
        size_t bytes = size_t(part.count()) * es;
        if (bytes > row) Fail("a state changes shape between batch entries");
        if (bytes) std::memcpy(dst + size_t(b) * row, part.storage->data(), bytes);
      }
      results.push_back(out);
    }
    return results;
  }

  const TensorRef* Require(const TensorRef* t, const char* what) const {
    if (!t) Fail(std::string("missing required input ") + what);
    return t;
  }

  // x with index t taken along `axis` (the axis removed).
  static ConstTensor Slice(const TensorRef& x, size_t axis, int64_t t) {
    Shape shape = x.shape;
    int64_t n = shape[axis];
    shape.erase(shape.begin() + std::ptrdiff_t(axis));
    ConstTensor out = ConstTensor::Allocate(x.dtype, shape);
    size_t es = ElementSize(x.dtype);
    int64_t outer = SizeTo(x.shape, axis), inner = SizeFrom(x.shape, axis + 1);
    auto* dst = static_cast<uint8_t*>(out.storage->data());
    const auto* src = static_cast<const uint8_t*>(x.data);
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(dst + size_t(o * inner) * es, src + size_t((o * n + t) * inner) * es, size_t(inner) * es);
    }
    return out;
  }

  bool batched_;
  std::unique_ptr<Subgraph> body_;
  size_t scan_inputs_ = 0, states_ = 0, scan_outputs_ = 0;
  std::vector<int64_t> in_axes_, in_dirs_, out_axes_, out_dirs_;
};

}  // namespace

GEBE_CPU_KERNEL("If", IfKernel);
GEBE_CPU_KERNEL("Loop", LoopKernel);
GEBE_CPU_KERNEL("Scan", ScanKernel);

}  // namespace gebe::cpu
