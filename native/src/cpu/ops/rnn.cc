// Recurrent operators RNN, GRU, LSTM: attributes, shapes, the weights packed at load, both layouts
// (layout 1 is transposed around the seq-first run) and the split into directions (both at once on
// two threads). The recurrence itself (forward/reverse, sequence_lens, initial states, peepholes,
// clip; Sigmoid, Tanh, Relu, the exporters' set) is rnn_direction.cc.
#include <cstring>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/op_util.h"
#include "cpu/ops/rnn_direction.h"

namespace gebe::cpu {

namespace {

class RecurrentKernel : public Kernel {
 public:
  RecurrentKernel(const Node& node, RnnCell cell) : Kernel(node), cell_(cell) {
    gates_ = cell == RnnCell::kRnn ? 1 : cell == RnnCell::kGru ? 3 : 4;
    hidden_ = node.get_int("hidden_size", 0);
    if (hidden_ <= 0) Fail("hidden_size must be a positive integer");
    std::string dir = node.get_string("direction", "forward");
    if (dir == "forward") directions_ = 1;
    else if (dir == "reverse") { directions_ = 1; reverse_only_ = true; }
    else if (dir == "bidirectional") directions_ = 2;
    else Fail("direction must be forward, reverse or bidirectional but is '" + dir + "'");
    batch_first_ = node.get_int("layout", 0) != 0;
    if (node.get_int("input_forget", 0) != 0) Fail("input_forget=1 is not supported");
    if (node.has("activation_alpha") || node.has("activation_beta")) Fail("activation_alpha/activation_beta are not supported");
    clip_ = node.get_float("clip", 0.f);
    linear_before_reset_ = node.get_int("linear_before_reset", 0) != 0;
    size_t per_dir = cell == RnnCell::kRnn ? 1 : cell == RnnCell::kGru ? 2 : 3;
    std::vector<std::string> names = node.has("activations") ? node.attributes.at("activations").strings : std::vector<std::string>{};
    if (names.empty()) {
      for (int d = 0; d < directions_; ++d) {
        if (cell == RnnCell::kRnn) names.push_back("Tanh");
        else if (cell == RnnCell::kGru) names.insert(names.end(), {"Sigmoid", "Tanh"});
        else names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
      }
    }
    if (names.size() != per_dir * size_t(directions_)) {
      Fail("activations needs " + std::to_string(per_dir * size_t(directions_)) + " entries but has " + std::to_string(names.size()));
    }
    for (const std::string& n : names) {
      if (n == "Sigmoid") acts_.push_back(RnnAct::kSigmoid);
      else if (n == "Tanh") acts_.push_back(RnnAct::kTanh);
      else if (n == "Relu") acts_.push_back(RnnAct::kRelu);
      else Fail("activation '" + n + "' is not supported (Sigmoid, Tanh and Relu are)");
    }
  }

  // Constant W and R are packed once per direction: W for the input projection, R for the
  // per-step product (GRU: its z/r rows and its h rows apart, as h's product is gated by r).
  void PrepareConstants(const std::vector<const TensorRef*>& constants) override {
    const TensorRef* w = constants.size() > 1 ? constants[1] : nullptr;
    const TensorRef* r = constants.size() > 2 ? constants[2] : nullptr;
    int64_t H = hidden_, G = gates_ * H;
    if (!w || !r || w->dtype != DataType::kFloat32 || r->dtype != DataType::kFloat32) return;
    if (w->rank() != 3 || w->shape[0] != directions_ || w->shape[1] != G || r->shape != Shape{directions_, G, H}) return;
    int64_t input = w->shape[2];
    for (int64_t d = 0; d < directions_; ++d) {
      const float* wd = w->as<const float>() + d * G * input;
      const float* rd = r->as<const float>() + d * G * H;
      PackedDirection pd;
      pd.w = PackB(true, input, G, wd, input);
      if (cell_ == RnnCell::kGru) {
        pd.r = PackB(true, H, 2 * H, rd, H);
        pd.r_h = PackB(true, H, H, rd + 2 * H * H, H);
      } else {
        pd.r = PackB(true, H, G, rd, H);
      }
      packed_.push_back(std::move(pd));
    }
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& w = Input(in, 1, "W");
    const TensorRef& r = Input(in, 2, "R");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(w, "W", {DataType::kFloat32});
    ExpectType(r, "R", {DataType::kFloat32});
    if (x.rank() != 3) Fail("X must have rank 3 [seq, batch, input] but has shape " + ShapeToString(x.shape));
    int64_t g = gates_ * hidden_;
    Shape w_want{directions_, g, x.shape[2]}, r_want{directions_, g, hidden_};
    if (w.shape != w_want) Fail("W must have shape " + ShapeToString(w_want) + " but has " + ShapeToString(w.shape));
    if (r.shape != r_want) Fail("R must have shape " + ShapeToString(r_want) + " but has " + ShapeToString(r.shape));
    int64_t seq = x.shape[batch_first_ ? 1 : 0], batch = x.shape[batch_first_ ? 0 : 1];
    auto check = [&](size_t i, const char* what, Shape want) {
      if (in.size() <= i || !in[i]) return;
      if (i == 4) ExpectType(*in[i], what, {DataType::kInt32});
      else ExpectType(*in[i], what, {DataType::kFloat32});
      if (in[i]->shape != want) Fail(std::string(what) + " must have shape " + ShapeToString(want) + " but has " + ShapeToString(in[i]->shape));
    };
    check(3, "B", {directions_, 2 * g});
    check(4, "sequence_lens", {batch});
    Shape state = batch_first_ ? Shape{batch, directions_, hidden_} : Shape{directions_, batch, hidden_};
    check(5, "initial_h", state);
    if (cell_ == RnnCell::kLstm) {
      check(6, "initial_c", state);
      check(7, "P", {directions_, 3 * hidden_});
    }
    out[0] = {DataType::kFloat32, batch_first_ ? Shape{batch, seq, directions_, hidden_} : Shape{seq, directions_, batch, hidden_}, nullptr};
    if (out.size() > 1) out[1] = {DataType::kFloat32, state, nullptr};
    if (out.size() > 2) out[2] = {DataType::kFloat32, state, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    if (!batch_first_) return RunSeqFirst(in, out, ctx);
    // layout=1: swap the first two axes of X, initial_h/c and the outputs around the seq-first run.
    std::vector<std::vector<float>> held;
    std::vector<TensorRef> swapped_in;
    swapped_in.reserve(in.size());
    std::vector<const TensorRef*> in2(in);
    auto swap = [&](const TensorRef& t, size_t inner) {
      held.emplace_back(size_t(t.count()));
      Shape s2 = t.shape;
      std::swap(s2[0], s2[1]);
      SwapLeadingAxes(t.as<const float>(), held.back().data(), t.shape[0], t.shape[1], int64_t(inner));
      swapped_in.push_back({DataType::kFloat32, s2, held.back().data()});
      return &swapped_in.back();
    };
    in2[0] = swap(*in[0], size_t(in[0]->shape[2]));
    for (size_t i : {size_t(5), size_t(6)}) {
      if (i < in.size() && in[i] && (i == 5 || cell_ == RnnCell::kLstm)) in2[i] = swap(*in[i], size_t(hidden_));
    }
    std::vector<TensorRef> out2(out.size());
    std::vector<std::vector<float>> out_held(out.size());
    for (size_t o = 0; o < out.size(); ++o) {
      if (!out[o].data) continue;
      out_held[o].resize(size_t(out[o].count()));
      out2[o] = {DataType::kFloat32, out[o].shape, out_held[o].data()};
      if (o == 0) out2[o].shape = {out[o].shape[1], out[o].shape[2], out[o].shape[0], out[o].shape[3]};
      else std::swap(out2[o].shape[0], out2[o].shape[1]);
    }
    RunSeqFirst(in2, out2, ctx);
    for (size_t o = 0; o < out.size(); ++o) {
      if (!out[o].data) continue;
      if (o == 0) {  // [seq, dirs, batch, H] → [batch, seq, dirs, H]
        int64_t seq = out2[0].shape[0], dirs = out2[0].shape[1], batch = out2[0].shape[2];
        SwapLeadingAxes(out_held[0].data(), out[0].as<float>(), seq * dirs, batch, hidden_);
      } else {
        SwapLeadingAxes(out_held[o].data(), out[o].as<float>(), out2[o].shape[0], out2[o].shape[1], hidden_);
      }
    }
  }

 private:
  // [a, b, inner] → [b, a, inner].
  static void SwapLeadingAxes(const float* from, float* to, int64_t a, int64_t b, int64_t inner) {
    for (int64_t i = 0; i < a; ++i)
      for (int64_t j = 0; j < b; ++j) std::memcpy(to + (j * a + i) * inner, from + (i * b + j) * inner, size_t(inner) * 4);
  }

  void RunSeqFirst(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) {
    const TensorRef &x = *in[0], &w = *in[1], &r = *in[2];
    auto opt = [&](size_t i) -> const TensorRef* { return in.size() > i ? in[i] : nullptr; };
    const TensorRef *b = opt(3), *lens = opt(4), *h0 = opt(5);
    const TensorRef* c0 = cell_ == RnnCell::kLstm ? opt(6) : nullptr;
    const TensorRef* p = cell_ == RnnCell::kLstm ? opt(7) : nullptr;
    RnnShape shape;
    shape.cell = cell_;
    shape.seq = x.shape[0];
    shape.batch = x.shape[1];
    shape.input = x.shape[2];
    shape.hidden = hidden_;
    shape.clip = clip_;
    shape.linear_before_reset = linear_before_reset_;
    int64_t seq = shape.seq, batch = shape.batch, H = hidden_, G = gates_ * H;
    std::vector<int64_t> len(size_t(batch), seq);
    if (lens) {
      for (int64_t i = 0; i < batch; ++i) {
        int32_t v = lens->as<const int32_t>()[i];
        if (v < 0 || v > seq) Fail("sequence_lens[" + std::to_string(i) + "] = " + std::to_string(v) + " is outside 0.." + std::to_string(seq));
        len[size_t(i)] = v;
      }
    }
    if (out[0].bytes() != 0) std::memset(out[0].data, 0, out[0].bytes());  // layout=1 hands an empty Y over without storage
    int64_t work = RnnWorkspaceFloats(shape);
    float* workspace = ctx.scratch->Floats(size_t(work * directions_));
    std::vector<RnnDirection> dirs(static_cast<size_t>(directions_));
    for (int64_t d = 0; d < directions_; ++d) {
      RnnDirection& dd = dirs[size_t(d)];
      dd.w = w.as<const float>() + d * G * shape.input;
      dd.r = r.as<const float>() + d * G * H;
      dd.wb = b ? b->as<const float>() + d * 2 * G : nullptr;
      dd.rb = b ? dd.wb + G : nullptr;
      dd.p = p ? p->as<const float>() + d * 3 * H : nullptr;
      dd.act = acts_.data() + d * (cell_ == RnnCell::kRnn ? 1 : cell_ == RnnCell::kGru ? 2 : 3);
      if (size_t(d) < packed_.size()) {
        dd.packed_w = &packed_[size_t(d)].w;
        dd.packed_r = &packed_[size_t(d)].r;
        dd.packed_r_h = &packed_[size_t(d)].r_h;
      }
      dd.reverse = reverse_only_ || d == 1;
      dd.h0 = h0 ? h0->as<const float>() + d * batch * H : nullptr;
      dd.c0 = c0 ? c0->as<const float>() + d * batch * H : nullptr;
      dd.y = out[0].as<float>() + d * batch * H;
      dd.y_step = directions_ * batch * H;
      dd.h_out = out.size() > 1 && out[1].data ? out[1].as<float>() + d * batch * H : nullptr;
      dd.c_out = out.size() > 2 && out[2].data ? out[2].as<float>() + d * batch * H : nullptr;
    }
    auto run = [&](int64_t d, ThreadPool* pool) {
      RunRnnDirection(shape, dirs[size_t(d)], x.as<const float>(), len.data(), workspace + d * work, pool);
    };
    // Both directions at once on two threads (each one's steps are too small to split).
    if (directions_ == 2 && ctx.pool->size() > 1) {
      ctx.pool->ParallelFor(2, 1, [&](int64_t d0, int64_t d1) {
        for (int64_t d = d0; d < d1; ++d) run(d, nullptr);
      });
    } else {
      for (int64_t d = 0; d < directions_; ++d) run(d, ctx.pool);
    }
  }

  RnnCell cell_;
  int64_t gates_ = 1, hidden_ = 0;
  int64_t directions_ = 1;
  bool reverse_only_ = false, linear_before_reset_ = false, batch_first_ = false;
  float clip_ = 0;
  std::vector<RnnAct> acts_;
  struct PackedDirection {
    PackedB w, r, r_h;
  };
  std::vector<PackedDirection> packed_;  // per direction; empty when W or R arrive at run time
};

template <RnnCell cell>
struct Recurrent : RecurrentKernel {
  Recurrent(const Node& node, int64_t) : RecurrentKernel(node, cell) {}
};

}  // namespace

GEBE_CPU_KERNEL("RNN", Recurrent<RnnCell::kRnn>);
GEBE_CPU_KERNEL("GRU", Recurrent<RnnCell::kGru>);
GEBE_CPU_KERNEL("LSTM", Recurrent<RnnCell::kLstm>);

}  // namespace gebe::cpu
