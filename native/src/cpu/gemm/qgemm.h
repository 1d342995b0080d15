// Integer GEMM of quantised models (QLinearConv, ConvInteger, the DQ → Conv → Q chains the QDQ
// fusion turns into them): C[M × N] (int32) = W'[M × K] · B[K × N], W' the constant weights as
// INT8 and B the activations as UINT8, exactly, as ONNX Runtime's MLAS QGEMM (u8s8). Callers
// normalise first (Normalise*): INT8 activations become UINT8 by flipping the sign bit (zero point
// + 128), UINT8 weights INT8 by subtracting 128 (zero point − 128), so one kernel family covers
// every type pair; the zero points are applied afterwards from row and column sums
// (QgemmCorrection). With K ≤ kQgemmMaxK no int32 term can overflow.
//
// Layout (shared by every ISA, see qgemm_kernels.h): K is taken in quads of 4. B is packed as
// panels of kQNR columns: quad q of column j at panel[(q · kQNR + j) · 4]. The weights are packed
// once, at load, for the kernels of ActiveIsa().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cpu/thread_pool.h"
#include "engine/engine.h"

namespace gebe::cpu {

constexpr int64_t kQgemmMaxK = 16384;
constexpr int64_t kQNR = 16;   // columns per packed B panel
constexpr int64_t kQMR = 8;    // rows per packed weight panel
// The transposed form (ops/quantized_conv_transposed.cc): tiles of up to
// kQTRows output positions × kQTCols output channels.
constexpr int64_t kQTRows = 6;
constexpr int64_t kQTCols = 64;

inline int64_t QuadsOf(int64_t k) { return (k + 3) / 4; }

// Constant weights packed for the active kernels, with what the zero-point correction needs.
struct QgemmWeights {
  int64_t m = 0, k = 0;
  std::vector<int32_t> row_sums;      // Σ_k W'[r, k]
  std::vector<int32_t> zero_points;   // per row, normalised to W' (INT8)
  bool any_zero_point = false;        // a nonzero zero point: column sums of B are needed
  std::shared_ptr<AlignedBuffer> packed;
};

// w: M × K row-major, INT8 (w_signed) or UINT8; zw: 1 or M zero points in w's type (nullptr: 0).
QgemmWeights PackQgemmWeights(const void* w, bool w_signed, int64_t m, int64_t k, const void* zw, int64_t zw_count);

// Bytes of packed B for n columns of K: whole panels of kQNR columns.
inline size_t QgemmPackedBytes(int64_t k, int64_t n) { return size_t(QuadsOf(k) * 4 * ((n + kQNR - 1) / kQNR * kQNR)); }

// C[rows × n] (ldc apart) = W'[row0 .. row0 + rows) · B, B given as packed panels of n columns.
void QgemmPacked(const QgemmWeights& w, int64_t row0, int64_t rows, const uint8_t* b, int64_t n, int32_t* c, int64_t ldc);

// Column sums of packed B (n columns), for weights with a nonzero zero point.
void QgemmColumnSums(const uint8_t* b, int64_t k, int64_t n, int32_t* sums);

// Requantisation of accumulator rows to 8 bits, as ONNX Runtime does it, in FP32 and in this
// order: a = acc[r, j] + add[r] − zw[r] · col_sums[j] (wrapping in int32 as the exact result does),
// v = float(a) · mul[r] + bias[r] (no fused multiply-add), v = max(v, floor), v = v / divisor
// (only where `divide`), then clamped to [lo, hi] (the type's range less the zero point), rounded
// half to even and offset by the zero point. QLinearConv's form is bias 0, no floor, no divide;
// the unfused DQ → Conv (→ Relu) → Q chain's is the FP32 bias, floor 0 after a Relu, ÷ y_scale.
struct QgemmRequant {
  const int32_t* add = nullptr;       // per row (wrapping); nullptr: 0
  const int32_t* zw = nullptr;        // per row weight zero points; nullptr: no column-sum term
  const int32_t* col_sums = nullptr;  // per column, with zw
  const float* mul = nullptr;         // per row
  const float* bias = nullptr;        // per row; nullptr: 0
  float floor = -3.4e38f;
  bool divide = false;
  float divisor = 1.f;
  float lo = 0.f, hi = 255.f;
  int32_t zero_point = 0;
};

// out[r · ldo + j] (8-bit, two's complement for INT8) for rows [0, rows) × columns [0, n) of acc
// (lda apart); rq's per-row arrays are indexed from row 0.
void QgemmRequantize(const int32_t* acc, int64_t lda, int64_t rows, int64_t n, const QgemmRequant& rq, uint8_t* out, int64_t ldo);

// The kernel ISA in use ("avx512vnni", "avx2", "portable"), for tests and benchmarks.
const char* QgemmIsa();

}  // namespace gebe::cpu
