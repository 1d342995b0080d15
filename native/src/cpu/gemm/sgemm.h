// Single-precision GEMM: C = alpha * op(A) * op(B) + beta * C, row-major.
// Blocked (KC × MC × NC) with packed panels (6-row A, 16-column B) and register-tiled kernels
// chosen once at run time (cpu/isa.h: AVX-512 or AVX2+FMA on x86-64, NEON on aarch64, portable
// otherwise), so the build never needs -march flags. Drivers here; kernels in sgemm_kernels.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "cpu/aligned_vector.h"
#include "cpu/thread_pool.h"

namespace gebe::cpu {

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc, ThreadPool* pool);

// op(B) packed once ahead of time (constant weights of Gemm/MatMul), so runs skip re-packing.
struct PackedB {
  int64_t k = 0, n = 0;
  int64_t kc = 0;                 // k block size the panels were packed with
  const float* source = nullptr;  // the weights it was packed from (to detect a change)
  AlignedVector<float> data;      // per KC block of k: n rounded up to NR, kc × NR per panel
};
PackedB PackB(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb);
// C = alpha * op(A) * B + beta * C with B pre-packed.
void SgemmPacked(bool trans_a, int64_t m, const PackedB& b, float alpha, const float* a, int64_t lda, float beta,
                 float* c, int64_t ldc, ThreadPool* pool);

// op(A) = alpha·A packed once ahead of time (constant convolution weights): runs skip packing the
// weights, which for late, spatially small layers costs as much as a tenth of the GEMM.
struct PackedA {
  int64_t m = 0, k = 0;
  int64_t kc = 0;                 // k block size the panels were packed with
  const float* source = nullptr;  // the weights it was packed from (to detect a change)
  AlignedVector<float> data;      // per KC block of k: m rounded up to MR, kc × MR per panel
};
PackedA PackA(int64_t m, int64_t k, const float* a, int64_t lda);
// C = A · B + beta · C with A pre-packed (m >= 6; callers use Sgemm for thinner A).
void SgemmPackedA(const PackedA& a, int64_t n, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                  ThreadPool* pool);

// Applied to each finished output tile while it is still in cache (instead of another pass over C):
// row i of C gets bias[i] added, then the activation callback runs over the row segment.
struct RowEpilogue {
  enum Clamp { kNone, kRelu, kClip };
  const float* bias = nullptr;
  // Relu (x > lo ? x : lo) and Clip (min(max(x, lo), hi)) are applied to each micro tile in
  // registers; any other activation goes through the callback over finished rows.
  Clamp clamp = kNone;
  float lo = 0.f, hi = 0.f;
  void (*activation)(const void* ctx, float* row, int64_t n) = nullptr;
  const void* ctx = nullptr;
  // A residual added after the bias, before the clamp or activation (a Conv that absorbed the Add
  // after it): each value of C adds the float `residual_bytes` past its address, the residual
  // tensor being laid out as C (another allocation, so the distance is taken between addresses,
  // not pointers). So only for a C written where the output lives, never for a scratch copy; it
  // makes the epilogue run over finished rows (ApplyRowEpilogue), not in the tiles' registers.
  bool has_residual = false;
  std::uintptr_t residual_bytes = 0;  // modulo 2^64: the residual may lie below C
  bool empty() const { return bias == nullptr && activation == nullptr && clamp == kNone && !has_residual; }
};

// The packed-B layout the blocked driver reads: per block of kc rows of k (kc = a PackedA's kc),
// n rounded up to NR columns stored as NR-wide panels of that block's rows.
int64_t PackedBFloats(int64_t k, int64_t n);
// C[m, n] = A · B with A and B both pre-packed, then the epilogue; no barrier per k block, so
// the whole product is one parallel pass over output tiles (pool may be null: run inline).
void SgemmPrepacked(const PackedA& a, int64_t n, const float* packed_b, float* c, int64_t ldc, const RowEpilogue& ep,
                    ThreadPool* pool);
// The same with A's panels packed elsewhere, in PackedA's layout: m × k, in blocks of kc rows of
// k, m rounded up to MR (packed_b must use the same kc).
void SgemmPrepackedPanels(const float* a_panels, int64_t m, int64_t k, int64_t kc, int64_t n, const float* packed_b,
                          float* c, int64_t ldc, const RowEpilogue& ep, ThreadPool* pool);

// B supplied row segment by row segment (convolutions generate im2col rows on the fly), so B is
// packed one L2-sized column block at a time right before that block is multiplied.
struct BRowSource {
  // Writes B[r, j0:j1) to dst (contiguous; the GEMM then scatters it into its panels).
  void (*fill)(const void* ctx, int64_t r, int64_t j0, int64_t j1, float* dst) = nullptr;
  const void* ctx = nullptr;
  const float* direct = nullptr;  // instead of fill: B is row-major with row stride n, read in place
};
// C[m, n] = A · B + epilogue. Wide outputs: column blocks in parallel, each packed into a per-thread
// buffer and multiplied while hot. Narrow outputs (too few blocks for the threads): B is packed
// whole into b_buffer (PackedBFloats(k, n) floats), then SgemmPrepacked. pool may be null.
void SgemmPrepackedRows(const PackedA& a, int64_t n, const BRowSource& b, float* c, int64_t ldc, const RowEpilogue& ep,
                        float* b_buffer, ThreadPool* pool);

// Implicit-im2col GEMM for stride-1 convolutions over an input with no padding to apply:
// B[r, j] = x[offs[r] + j] (offs: each kernel tap's offset into the input), over n "wide" output
// positions j = oh · row + ow that include (row − ow) throw-away columns per output row. C gets
// the n wide columns (ldc apart rows). False when this machine has no kernel for it (use the
// packed path).
bool SgemmImplicit(const PackedA& a, int64_t n, const float* x, const int64_t* offs, float* c, int64_t ldc,
                   const RowEpilogue& ep, ThreadPool* pool);

// Implicit im2col with no throw-away columns: C[r, f] for the n output positions f of a plane
// `width` (>= 16) wide, from B[q, f] = x[offs[q] + (f / width) · row_stride + f % width]. C is
// the output itself (ldc apart rows). Only where the ISA has the kernel (SgemmHasImplicitCompact).
bool SgemmHasImplicitCompact();
void SgemmImplicitCompact(const PackedA& a, int64_t n, int64_t width, int64_t row_stride, const float* x,
                          const int64_t* offs, float* c, int64_t ldc, const RowEpilogue& ep, ThreadPool* pool);

// fn(i) for every i in [0, count), items claimed one at a time by the pool's threads (pool may be null).
void ForEachClaimed(ThreadPool* pool, int64_t count, const std::function<void(int64_t)>& fn);

// The kernel ISA in use ("avx512", "avx2", "neon", "portable"), for introspection and benchmarks.
const char* SgemmIsa();

namespace gemm_detail {
// The packed panels' shape (sgemm_kernels.h): MR rows of A, NR columns of B.
constexpr int kMR = 6;
constexpr int kNR = 16;
}  // namespace gemm_detail

}  // namespace gebe::cpu
