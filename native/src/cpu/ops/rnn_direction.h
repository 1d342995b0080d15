// The recurrence of RNN, GRU and LSTM over one direction (rnn_direction.cc), as ONNX Runtime's CPU
// provider runs it: the input projection X·Wᵀ (+ biases) for every time step in one GEMM up front,
// then per step one small GEMM of the batch rows against the recurrent weights (pre-packed when
// they are constants) accumulated onto that step's projection, and the gates over whole rows with
// the vectorised Sigmoid/Tanh of vector_math.h. Nothing is allocated per step.
#pragma once

#include <cstdint>

#include "cpu/gemm/sgemm.h"
#include "cpu/thread_pool.h"

namespace gebe::cpu {

enum class RnnCell { kRnn, kGru, kLstm };
enum class RnnAct { kSigmoid, kTanh, kRelu };

struct RnnShape {
  RnnCell cell = RnnCell::kRnn;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  float clip = 0.f;  // > 0: pre-activations are clipped to [-clip, clip]
  bool linear_before_reset = false;
  int64_t gates() const { return cell == RnnCell::kRnn ? 1 : cell == RnnCell::kGru ? 3 : 4; }
};

// One direction's weights (ONNX gate order: LSTM i o f c, GRU z r h) and where its results go.
struct RnnDirection {
  const float* w = nullptr;   // [gates·H, input]
  const float* r = nullptr;   // [gates·H, H]
  const float* wb = nullptr;  // [gates·H] or nullptr
  const float* rb = nullptr;  // [gates·H] or nullptr
  const float* p = nullptr;   // LSTM peepholes [3·H] (i o f) or nullptr
  const RnnAct* act = nullptr;  // RNN: f; GRU: f g; LSTM: f g h
  // Packed once at load when the weights are constants (nullptr: packed per call by Sgemm).
  // W: n = gates·H. R: LSTM and RNN all gates; GRU the z and r rows (r_h: its h rows).
  const PackedB* packed_w = nullptr;
  const PackedB* packed_r = nullptr;
  const PackedB* packed_r_h = nullptr;
  bool reverse = false;
  const float* h0 = nullptr;  // [batch, H] or nullptr (zeros)
  const float* c0 = nullptr;  // LSTM [batch, H] or nullptr
  float* y = nullptr;         // Y[0, this direction] of Y [seq, dirs, batch, H] (rows past a sequence's end are left alone)
  int64_t y_step = 0;         // floats between time steps in y
  float* h_out = nullptr;     // [batch, H] or nullptr
  float* c_out = nullptr;
};

// Floats of workspace one RunRnnDirection needs.
int64_t RnnWorkspaceFloats(const RnnShape& s);

// x: [seq, batch, input]; len: each batch entry's sequence length (steps at or past it keep the
// state and write nothing). pool may be null; per-step GEMMs this small run on the caller.
void RunRnnDirection(const RnnShape& s, const RnnDirection& d, const float* x, const int64_t* len, float* work,
                     ThreadPool* pool);

}  // namespace gebe::cpu
