// Single-precision GEMM: C = alpha * op(A) * op(B) + beta * C, row-major.
// Blocked (KC × MC × NC) with packed panels and a 6×16 register micro-kernel; the micro-kernel is
// chosen once at run time from the CPU (AVX2+FMA on x86-64, NEON on aarch64, portable otherwise),
// so the build never needs -march flags.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/thread_pool.h"

namespace gebe::cpu {

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc, ThreadPool* pool);

// op(B) packed once ahead of time (constant weights of Gemm/MatMul), so runs skip re-packing.
struct PackedB {
  int64_t k = 0, n = 0;
  int64_t kc = 0;                 // k block size the panels were packed with
  const float* source = nullptr;  // the weights it was packed from (to detect a change)
  std::vector<float> data;        // per KC block of k: n rounded up to NR, kc × NR per panel
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
  std::vector<float> data;        // per KC block of k: m rounded up to MR, kc × MR per panel
};
PackedA PackA(int64_t m, int64_t k, const float* a, int64_t lda);
// C = A · B + beta · C with A pre-packed (m >= 6; callers use Sgemm for thinner A).
void SgemmPackedA(const PackedA& a, int64_t n, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                  ThreadPool* pool);

// The micro-kernel ISA in use ("avx2+fma", "neon", "portable"), for introspection and benchmarks.
const char* SgemmIsa();

namespace gemm_detail {
constexpr int kMR = 6;
constexpr int kNR = 16;
// c[0..MR)[0..NR) (row stride ldc) = (accumulate ? c : 0) + sum_k a[k*MR + i] * b[k*NR + j]
using MicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool accumulate);
void MicroKernelPortable(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool accumulate);
MicroKernel MicroKernelAvx2();  // nullptr when not built for x86-64
MicroKernel MicroKernelNeon();  // nullptr when not built for aarch64
bool CpuHasAvx2Fma();
// Dot product of n floats (used by the matrix-vector path).
using DotKernel = float (*)(const float* a, const float* b, int64_t n);
DotKernel DotAvx2();  // nullptr when not built for x86-64
}  // namespace gemm_detail

}  // namespace gebe::cpu
