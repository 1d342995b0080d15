// Recurrent operators: RNN, GRU, LSTM (both layouts: layout 1 is transposed around the seq-first
// run; forward, reverse and bidirectional; sequence_lens; initial states; LSTM peepholes; clip). Per direction the input
// projection X·Wᵀ + Wb runs as one GEMM over all time steps, then each step adds H·Rᵀ (one GEMM
// of batch rows) and applies the gates. Activations: Sigmoid, Tanh, Relu (the exporters' set).
#include <cmath>
#include <cstring>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

enum class Cell { kRnn, kGru, kLstm };
enum class Act { kSigmoid, kTanh, kRelu };

inline float ApplyAct(Act a, float x) {
  switch (a) {
    case Act::kSigmoid: return 1.f / (1.f + std::exp(-x));
    case Act::kTanh: return std::tanh(x);
    case Act::kRelu: return x > 0 ? x : 0.f;
  }
  return x;
}

class RecurrentKernel : public Kernel {
 public:
  RecurrentKernel(const Node& node, Cell cell) : Kernel(node), cell_(cell) {
    gates_ = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4;
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
    size_t per_dir = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 2 : 3;
    std::vector<std::string> names = node.has("activations") ? node.attributes.at("activations").strings : std::vector<std::string>{};
    if (names.empty()) {
      for (int d = 0; d < directions_; ++d) {
        if (cell == Cell::kRnn) names.push_back("Tanh");
        else if (cell == Cell::kGru) names.insert(names.end(), {"Sigmoid", "Tanh"});
        else names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
      }
    }
    if (names.size() != per_dir * size_t(directions_)) {
      Fail("activations needs " + std::to_string(per_dir * size_t(directions_)) + " entries but has " + std::to_string(names.size()));
    }
    for (const std::string& n : names) {
      if (n == "Sigmoid") acts_.push_back(Act::kSigmoid);
      else if (n == "Tanh") acts_.push_back(Act::kTanh);
      else if (n == "Relu") acts_.push_back(Act::kRelu);
      else Fail("activation '" + n + "' is not supported (Sigmoid, Tanh and Relu are)");
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
    if (cell_ == Cell::kLstm) {
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
      if (i < in.size() && in[i] && (i == 5 || cell_ == Cell::kLstm)) in2[i] = swap(*in[i], size_t(hidden_));
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
    const TensorRef* c0 = cell_ == Cell::kLstm ? opt(6) : nullptr;
    const TensorRef* p = cell_ == Cell::kLstm ? opt(7) : nullptr;
    int64_t seq = x.shape[0], batch = x.shape[1], input = x.shape[2], H = hidden_, G = gates_ * H;
    std::vector<int64_t> len(size_t(batch), seq);
    if (lens) {
      for (int64_t i = 0; i < batch; ++i) {
        int32_t v = lens->as<const int32_t>()[i];
        if (v < 0 || v > seq) Fail("sequence_lens[" + std::to_string(i) + "] = " + std::to_string(v) + " is outside 0.." + std::to_string(seq));
        len[size_t(i)] = v;
      }
    }
    float* y = out[0].as<float>();
    std::memset(y, 0, out[0].bytes());
    std::vector<float> xw(size_t(seq * batch * G)), hr(size_t(batch * G)), h(size_t(batch * H)), c(size_t(batch * H)),
        rh(size_t(batch * H)), hr_h(size_t(batch * H));
    for (int64_t d = 0; d < directions_; ++d) {
      bool reverse = reverse_only_ || d == 1;
      const float* wd = w.as<const float>() + d * G * input;
      const float* rd = r.as<const float>() + d * G * H;
      const float* wb = b ? b->as<const float>() + d * 2 * G : nullptr;
      const float* rb = b ? wb + G : nullptr;
      const float* pd = p ? p->as<const float>() + d * 3 * H : nullptr;
      const Act* act = acts_.data() + d * (cell_ == Cell::kRnn ? 1 : cell_ == Cell::kGru ? 2 : 3);
      // X·Wᵀ (+ Wb, and Rb where it simply adds) for every step at once.
      Sgemm(false, true, seq * batch, G, input, 1.f, x.as<const float>(), input, wd, input, 0.f, xw.data(), G, ctx.pool);
      for (int64_t row = 0; row < seq * batch; ++row) {
        float* v = xw.data() + row * G;
        for (int64_t j = 0; j < G; ++j) {
          bool gru_h = cell_ == Cell::kGru && j >= 2 * H;  // Rbh sits inside the reset gate's product
          v[j] += (wb ? wb[j] : 0.f) + (rb && !gru_h ? rb[j] : 0.f);
        }
      }
      if (h0) std::memcpy(h.data(), h0->as<const float>() + d * batch * H, size_t(batch * H) * 4);
      else std::fill(h.begin(), h.end(), 0.f);
      if (c0) std::memcpy(c.data(), c0->as<const float>() + d * batch * H, size_t(batch * H) * 4);
      else std::fill(c.begin(), c.end(), 0.f);
      for (int64_t s = 0; s < seq; ++s) {
        int64_t t = reverse ? seq - 1 - s : s;
        // H·Rᵀ; for GRU without linear_before_reset only the z and r columns are used here.
        Sgemm(false, true, batch, G, H, 1.f, h.data(), H, rd, H, 0.f, hr.data(), G, ctx.pool);
        if (cell_ == Cell::kGru && !linear_before_reset_) {
          for (int64_t bi = 0; bi < batch; ++bi) {
            for (int64_t j = 0; j < H; ++j) {
              float rg = Clip(xw[size_t((t * batch + bi) * G + H + j)] + hr[size_t(bi * G + H + j)]);
              rh[size_t(bi * H + j)] = ApplyAct(act[0], rg) * h[size_t(bi * H + j)];
            }
          }
          Sgemm(false, true, batch, H, H, 1.f, rh.data(), H, rd + 2 * H * H, H, 0.f, hr_h.data(), H, ctx.pool);
        }
        for (int64_t bi = 0; bi < batch; ++bi) {
          if (t >= len[size_t(bi)]) continue;  // past this sequence's end: output 0, state kept
          const float* xg = xw.data() + (t * batch + bi) * G;
          const float* hg = hr.data() + bi * G;
          float* hb = h.data() + bi * H;
          float* cb = c.data() + bi * H;
          for (int64_t j = 0; j < H; ++j) {
            switch (cell_) {
              case Cell::kRnn: hb[j] = ApplyAct(act[0], Clip(xg[j] + hg[j])); break;
              case Cell::kGru: {
                float z = ApplyAct(act[0], Clip(xg[j] + hg[j]));
                float rr = ApplyAct(act[0], Clip(xg[H + j] + hg[H + j]));
                float rbh = rb ? rb[2 * H + j] : 0.f;
                float pre = linear_before_reset_ ? xg[2 * H + j] + rr * (hg[2 * H + j] + rbh)
                                                 : xg[2 * H + j] + hr_h[size_t(bi * H + j)] + rbh;
                float hh = ApplyAct(act[1], Clip(pre));
                hb[j] = (1.f - z) * hh + z * hb[j];
                break;
              }
              case Cell::kLstm: {
                float cp = cb[j];
                float ig = ApplyAct(act[0], Clip(xg[j] + hg[j] + (pd ? pd[j] * cp : 0.f)));
                float fg = ApplyAct(act[0], Clip(xg[2 * H + j] + hg[2 * H + j] + (pd ? pd[2 * H + j] * cp : 0.f)));
                float cg = ApplyAct(act[1], Clip(xg[3 * H + j] + hg[3 * H + j]));
                float cn = fg * cp + ig * cg;
                float og = ApplyAct(act[0], Clip(xg[H + j] + hg[H + j] + (pd ? pd[H + j] * cn : 0.f)));
                cb[j] = cn;
                hb[j] = og * ApplyAct(act[2], cn);
                break;
              }
            }
          }
          std::memcpy(y + ((t * directions_ + d) * batch + bi) * H, hb, size_t(H) * 4);
        }
      }
      if (out.size() > 1 && out[1].data) std::memcpy(out[1].as<float>() + d * batch * H, h.data(), size_t(batch * H) * 4);
      if (out.size() > 2 && out[2].data) std::memcpy(out[2].as<float>() + d * batch * H, c.data(), size_t(batch * H) * 4);
    }
  }

  float Clip(float v) const { return clip_ > 0 ? std::fmin(clip_, std::fmax(-clip_, v)) : v; }

  Cell cell_;
  int64_t gates_ = 1, hidden_ = 0;
  int64_t directions_ = 1;
  bool reverse_only_ = false, linear_before_reset_ = false, batch_first_ = false;
  float clip_ = 0;
  std::vector<Act> acts_;
};

template <Cell cell>
struct Recurrent : RecurrentKernel {
  Recurrent(const Node& node, int64_t) : RecurrentKernel(node, cell) {}
};

}  // namespace

GEBE_CPU_KERNEL("RNN", Recurrent<Cell::kRnn>);
GEBE_CPU_KERNEL("GRU", Recurrent<Cell::kGru>);
GEBE_CPU_KERNEL("LSTM", Recurrent<Cell::kLstm>);

}  // namespace gebe::cpu
