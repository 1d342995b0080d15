// The NEON tile for aarch64 (NEON is part of the aarch64 baseline, so no run-time check).
#include "cpu/gemm/sgemm_kernels.h"

#if defined(__aarch64__)
#include <arm_neon.h>

#include "cpu/gemm/tile_blocks.h"

namespace gebe::cpu::gemm_detail {

namespace {

void MicroKernel6x16Neon(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool accumulate) {
  float32x4_t acc[6][4];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = vdupq_n_f32(0.f);
  for (int64_t k = 0; k < kc; ++k) {
    float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8), b3 = vld1q_f32(b + 12);
    for (int i = 0; i < 6; ++i) {
      float32x4_t av = vdupq_n_f32(a[i]);
      acc[i][0] = vfmaq_f32(acc[i][0], av, b0);
      acc[i][1] = vfmaq_f32(acc[i][1], av, b1);
      acc[i][2] = vfmaq_f32(acc[i][2], av, b2);
      acc[i][3] = vfmaq_f32(acc[i][3], av, b3);
    }
    a += kMR;
    b += kNR;
  }
  for (int i = 0; i < 6; ++i) {
    float* row = c + i * ldc;
    for (int j = 0; j < 4; ++j) {
      float32x4_t v = accumulate ? vaddq_f32(vld1q_f32(row + 4 * j), acc[i][j]) : acc[i][j];
      vst1q_f32(row + 4 * j, v);
    }
  }
}

}  // namespace

const Kernels* NeonKernels() {
  static const Kernels k = [] {
    Kernels t = *PortableKernels();
    t.isa = "neon";
    t.block = PackedBlockFromTiles<MicroKernel6x16Neon, nullptr, nullptr>;
    return t;
  }();
  return &k;
}

}  // namespace gebe::cpu::gemm_detail

#else

namespace gebe::cpu::gemm_detail {
const Kernels* NeonKernels() { return nullptr; }
}  // namespace gebe::cpu::gemm_detail

#endif
