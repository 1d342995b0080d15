#include "cpu/ops/rnn_direction.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu/ops/op_util.h"
#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

namespace {

void Activate(RnnAct a, float* v, int64_t n) {
  switch (a) {
    case RnnAct::kSigmoid: SigmoidArray(v, v, n); return;
    case RnnAct::kTanh: TanhArray(v, v, n); return;
    case RnnAct::kRelu:
      for (int64_t i = 0; i < n; ++i) v[i] = v[i] > 0 ? v[i] : 0.f;
      return;
  }
}

void Clip(float clip, float* v, int64_t n) {
  if (clip <= 0) return;
  for (int64_t i = 0; i < n; ++i) v[i] = std::fmin(clip, std::fmax(-clip, v[i]));
}

// C[m, n] (ldc apart) = beta·C + A[m, k] · Wᵀ, W [n, k] row-major: through its packed panels when
// it was packed at load, else packed here.
void TimesWeightsT(const float* a, int64_t m, int64_t k, const PackedB* packed, const float* w, int64_t n, float beta,
                   float* c, int64_t ldc, ThreadPool* pool) {
  if (packed && packed->source == w && packed->k == k && packed->n == n) {
    SgemmPacked(false, m, *packed, 1.f, a, k, beta, c, ldc, pool);
  } else {
    Sgemm(false, true, m, n, k, 1.f, a, k, w, k, beta, c, ldc, pool);
  }
}

// The buffers of one direction inside its workspace.
struct Work {
  float *xw, *h, *c, *hn, *cn, *rh, *hr_h;
  Work(const RnnShape& s, float* base) {
    int64_t bh = s.batch * s.hidden;
    xw = base;
    h = xw + s.seq * s.batch * s.gates() * s.hidden;
    c = h + bh;
    hn = c + bh;
    cn = hn + bh;
    rh = cn + bh;
    hr_h = rh + bh;
  }
};

// Pre-activations g (gates·H, already X·Wᵀ + H·Rᵀ + biases) of one batch row → new h (and c).
void LstmRow(const RnnShape& s, const RnnDirection& d, float* g, const float* c, float* hn, float* cn) {
  int64_t H = s.hidden;
  float *gi = g, *go = g + H, *gf = g + 2 * H, *gc = g + 3 * H;
  if (d.p) {
    for (int64_t j = 0; j < H; ++j) {
      gi[j] += d.p[j] * c[j];
      gf[j] += d.p[2 * H + j] * c[j];
    }
    Clip(s.clip, gi, H);
    Clip(s.clip, gf, 2 * H);
    Activate(d.act[0], gi, H);
    Activate(d.act[0], gf, H);
  } else {
    Clip(s.clip, g, 4 * H);
    Activate(d.act[0], g, 3 * H);  // i, o, f share f
  }
  Activate(d.act[1], gc, H);
  for (int64_t j = 0; j < H; ++j) cn[j] = gf[j] * c[j] + gi[j] * gc[j];
  if (d.p) {
    for (int64_t j = 0; j < H; ++j) go[j] += d.p[H + j] * cn[j];
    Clip(s.clip, go, H);
    Activate(d.act[0], go, H);
  }
  std::memcpy(hn, cn, sizeof(float) * size_t(H));
  Activate(d.act[2], hn, H);
  for (int64_t j = 0; j < H; ++j) hn[j] *= go[j];
}

// One time step t: xt (batch rows of gates·H pre-activations from the input) becomes the new state
// in w.hn / w.cn.
void Step(const RnnShape& s, const RnnDirection& d, float* xt, const Work& w, ThreadPool* pool) {
  int64_t B = s.batch, H = s.hidden, G = s.gates() * H;
  if (s.cell != RnnCell::kGru) {
    TimesWeightsT(w.h, B, H, d.packed_r, d.r, G, 1.f, xt, G, pool);
    for (int64_t b = 0; b < B; ++b) {
      float* g = xt + b * G;
      if (s.cell == RnnCell::kLstm) {
        LstmRow(s, d, g, w.c + b * H, w.hn + b * H, w.cn + b * H);
      } else {
        Clip(s.clip, g, H);
        Activate(d.act[0], g, H);
        std::memcpy(w.hn + b * H, g, sizeof(float) * size_t(H));
      }
    }
    return;
  }
  // GRU: z and r from X·W + H·R_zrᵀ; h̃ from X·W_h and either (r ⊙ H)·R_hᵀ or r ⊙ (H·R_hᵀ + Rb_h).
  TimesWeightsT(w.h, B, H, d.packed_r, d.r, 2 * H, 1.f, xt, G, pool);
  for (int64_t b = 0; b < B; ++b) {
    float* g = xt + b * G;
    Clip(s.clip, g, 2 * H);
    Activate(d.act[0], g, 2 * H);
  }
  const float* r_h = d.r + 2 * H * H;
  if (s.linear_before_reset) {
    TimesWeightsT(w.h, B, H, d.packed_r_h, r_h, H, 0.f, w.hr_h, H, pool);
    for (int64_t b = 0; b < B; ++b) {
      float *g = xt + b * G, *hr = w.hr_h + b * H;
      const float* rb_h = d.rb ? d.rb + 2 * H : nullptr;
      for (int64_t j = 0; j < H; ++j) g[2 * H + j] += g[H + j] * (hr[j] + (rb_h ? rb_h[j] : 0.f));
    }
  } else {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < H; ++j) w.rh[b * H + j] = xt[b * G + H + j] * w.h[b * H + j];
    TimesWeightsT(w.rh, B, H, d.packed_r_h, r_h, H, 1.f, xt + 2 * H, G, pool);
  }
  for (int64_t b = 0; b < B; ++b) {
    float *g = xt + b * G, *hh = g + 2 * H, *hn = w.hn + b * H;
    const float* h = w.h + b * H;
    Clip(s.clip, hh, H);
    Activate(d.act[1], hh, H);
    for (int64_t j = 0; j < H; ++j) hn[j] = (1.f - g[j]) * hh[j] + g[j] * h[j];
  }
}

}  // namespace

int64_t RnnWorkspaceFloats(const RnnShape& s) {
  return s.seq * s.batch * s.gates() * s.hidden + 6 * s.batch * s.hidden;
}

void RunRnnDirection(const RnnShape& s, const RnnDirection& d, const float* x, const int64_t* len, float* work,
                     ThreadPool* pool) {
  int64_t B = s.batch, H = s.hidden, G = s.gates() * H, rows = s.seq * B;
  Work w(s, work);
  size_t state_bytes = sizeof(float) * size_t(B * H);
  // X·Wᵀ for every step at once, then the biases that simply add: Wb, and Rb except GRU's h rows
  // with linear_before_reset (those sit inside the reset gate's product).
  TimesWeightsT(x, rows, s.input, d.packed_w, d.w, G, 0.f, w.xw, G, PoolForProduct(rows * s.input * G, pool));
  if (d.wb || d.rb) {
    bool rb_h_inside = s.cell == RnnCell::kGru && s.linear_before_reset;
    for (int64_t i = 0; i < rows; ++i) {
      float* v = w.xw + i * G;
      if (d.wb)
        for (int64_t j = 0; j < G; ++j) v[j] += d.wb[j];
      if (d.rb)
        for (int64_t j = 0; j < (rb_h_inside ? 2 * H : G); ++j) v[j] += d.rb[j];
    }
  }
  if (d.h0) std::memcpy(w.h, d.h0, state_bytes);
  else std::memset(w.h, 0, state_bytes);
  if (d.c0) std::memcpy(w.c, d.c0, state_bytes);
  else std::memset(w.c, 0, state_bytes);
  // A step's GEMM is batch × gates·H × H.
  ThreadPool* step_pool = PoolForProduct(B * G * H, pool);
  for (int64_t step = 0; step < s.seq; ++step) {
    int64_t t = d.reverse ? s.seq - 1 - step : step;
    Step(s, d, w.xw + t * B * G, w, step_pool);
    for (int64_t b = 0; b < B; ++b) {
      if (t >= len[b]) continue;  // past this sequence's end: output 0, state kept
      std::memcpy(w.h + b * H, w.hn + b * H, sizeof(float) * size_t(H));
      if (s.cell == RnnCell::kLstm) std::memcpy(w.c + b * H, w.cn + b * H, sizeof(float) * size_t(H));
      if (d.y) std::memcpy(d.y + t * d.y_step + b * H, w.hn + b * H, sizeof(float) * size_t(H));
    }
  }
  if (d.h_out) std::memcpy(d.h_out, w.h, state_bytes);
  if (d.c_out) std::memcpy(d.c_out, w.c, state_bytes);
}

}  // namespace gebe::cpu
