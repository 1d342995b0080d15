// The portable kernels: plain C++ the compiler vectorises for the baseline ISA. Every machine
// runs them; GEBE_CPU_ISA=portable forces them so their paths are tested on any CPU.
#include <algorithm>

#include "cpu/gemm/sgemm_kernels.h"
#include "cpu/gemm/tile_blocks.h"

namespace gebe::cpu::gemm_detail {

void ApplyTileEpilogue(const TileEpilogue& ep, float* c, int64_t ldc, int64_t h, int64_t w) {
  for (int64_t y = 0; y < h; ++y) {
    float* row = c + y * ldc;
    if (ep.bias) {
      float bv = ep.bias[y];
      for (int64_t x = 0; x < w; ++x) row[x] += bv;
    }
    if (ep.clamp != TileEpilogue::kNone)
      for (int64_t x = 0; x < w; ++x) row[x] = ClampValue(ep, row[x]);
  }
}

namespace {

void Tile6x16Portable(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool accumulate) {
  float acc[kMR][kNR] = {};
  for (int64_t k = 0; k < kc; ++k) {
    const float* bk = b + k * kNR;
    const float* ak = a + k * kMR;
    for (int i = 0; i < kMR; ++i) {
      float av = ak[i];
      for (int j = 0; j < kNR; ++j) acc[i][j] += av * bk[j];
    }
  }
  for (int i = 0; i < kMR; ++i) {
    float* row = c + i * ldc;
    if (accumulate) for (int j = 0; j < kNR; ++j) row[j] += acc[i][j];
    else for (int j = 0; j < kNR; ++j) row[j] = acc[i][j];
  }
}

float DotPortable(const float* a, const float* b, int64_t n) {
  // Eight partial sums let the compiler vectorise without reassociating one accumulator.
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void PanelRowsPortable(int64_t m, int64_t kc, const float* a, int64_t a_row, int64_t a_col, const float* panel,
                       float* acc) {
  for (int64_t i = 0; i < m; ++i) {
    float* ai = acc + i * kNR;
    for (int64_t q = 0; q < kc; ++q) {
      float av = a[i * a_row + q * a_col];
      for (int j = 0; j < kNR; ++j) ai[j] += av * panel[q * kNR + j];
    }
  }
}

}  // namespace

const Kernels* PortableKernels() {
  static const Kernels k = [] {
    Kernels t;
    t.isa = "portable";
    t.block = PackedBlockFromTiles<Tile6x16Portable, nullptr, nullptr>;
    t.dot = DotPortable;
    t.panel_rows = PanelRowsPortable;
    return t;
  }();
  return &k;
}

}  // namespace gebe::cpu::gemm_detail
