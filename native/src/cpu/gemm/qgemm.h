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

// The kernel ISA in use ("avx512vnni", "avx2", "portable"), for tests and benchmarks.
const char* QgemmIsa();

}  // namespace gebe::cpu
