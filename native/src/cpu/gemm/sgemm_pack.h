// Packing into the panel layout of sgemm_kernels.h, shared by the GEMM drivers.
#pragma once

#include <cstdint>

#include "cpu/gemm/sgemm_kernels.h"

namespace gebe::cpu::gemm_detail {

constexpr int64_t kKC = 256;
constexpr int64_t kMC = 72;   // multiple of 2·kMR (the widest tile's rows)
constexpr int64_t kNC = 512;  // multiple of 2·kNR

// Equal k blocks (288 → 144 + 144, not 256 + 32): a thin last block would cost a full extra
// read-modify-write pass over C for little work.
int64_t BalancedKc(int64_t k);

inline int64_t PadTo(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }

// The tasks an m × n product over packed panels is cut into: equal row blocks (a thin last block
// would leave one thread idle at the end) of whole `row_tile`-row tiles, at most about kMC rows, and
// column blocks of kNC halved, but not below 2·min_cols, until `threads` threads have four tasks each.
struct TaskBlocks {
  int64_t mc = 0, m_blocks = 0, nc = 0, n_blocks = 0;
};
TaskBlocks SplitForThreads(int64_t m, int64_t n, int threads, int64_t row_tile, int64_t min_cols);
// The first column of block q when `blocks` blocks share `panels` kNR-column panels as evenly as
// they divide (blocks of whole panels, the larger ones last). Work split by a fixed width with the
// remainder last leaves threads uneven when there are few blocks.
inline int64_t EvenPanelBlockStart(int64_t q, int64_t panels, int64_t blocks) { return q * panels / blocks * kNR; }

// Packs op(B)[k0:k0+kc, j0:j0+nc) into NR-column panels (zero-padded).
void PackPanelsB(bool trans_b, const float* b, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* out);
// Packs alpha · op(A)[i0:i0+mc, k0:k0+kc] into MR-row panels (zero-padded).
void PackPanelsA(bool trans_a, const float* a, int64_t lda, int64_t i0, int64_t mc, int64_t k0, int64_t kc, float alpha,
                 float* out);
// Row r of a packed B slice: column t goes to base[(t / NR) * panel_stride + t % NR]; the padding
// columns of the last panel (up to n_padded) are zeroed.
void ScatterRow(const float* src, int64_t n, int64_t n_padded, float* base, int64_t panel_stride);

// Bias and Relu/Clip can be applied per block in registers; a callback activation cannot, and a
// residual only where the caller's kernels add one (the block kernels of a table with
// tiles_add_residual, writing C where the output lives).
bool FusableEpilogue(const RowEpilogue& ep, TileEpilogue* out, bool residual_in_tiles = false);
// The row epilogue over rows [0, h) × columns [0, w) of c (bias indexed from row 0), for what
// FusableEpilogue refused.
void ApplyRowEpilogue(const RowEpilogue& ep, float* c, int64_t ldc, int64_t h, int64_t w);

}  // namespace gebe::cpu::gemm_detail
