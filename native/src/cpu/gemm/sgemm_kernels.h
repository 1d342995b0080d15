// The per-ISA side of the GEMM, laid out as MLAS does: the drivers (sgemm.cc, sgemm_prepacked.cc)
// and the packing (sgemm_pack.cc) know only the panel layout below and call a table of kernels;
// each ISA's file (sgemm_portable.cc, sgemm_avx2.cc, sgemm_avx512.cc, sgemm_neon.cc) fills one
// table. The table is picked once per process from ActiveIsa() (cpu/isa.h).
//
// Layout: A is packed as MR-row panels (kc × MR floats each, row i of the panel at a[q·MR + i]),
// B as NR-column panels (kc × NR floats each); consecutive panels of one k slice are kc·MR and
// kc·NR floats apart, padded with zeros to whole panels.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/gemm/sgemm.h"

namespace gebe::cpu::gemm_detail {

// The finished block's epilogue: row i gets bias[i] (when bias is set), then, with `residual`,
// each value the float residual_bytes past its own address (RowEpilogue's residual: only the
// kernels of a table with tiles_add_residual are handed one), then the clamp.
struct TileEpilogue {
  enum Clamp { kNone, kRelu, kClip };
  const float* bias = nullptr;
  Clamp clamp = kNone;
  float lo = 0.f, hi = 0.f;
  bool residual = false;
  std::uintptr_t residual_bytes = 0;
};

// One block of C for one k slice: C[0:mh, 0:nw) = (accumulate ? C : 0) + A·B, A given as the
// panels of rows 0..mh. With ep (the last k slice only), the epilogue is applied to the block
// while it is in registers; bias is indexed from the block's first row.
// B as packed panels (b: the panel of column 0).
using PackedBlockKernel = void (*)(int64_t kc, const float* a, int64_t mh, const float* b, int64_t nw, float* c,
                                   int64_t ldc, bool accumulate, const TileEpilogue* ep);
// B read in place: row q of the block's columns at b + q·ldb; nw is a multiple of NR.
using StridedBlockKernel = void (*)(int64_t kc, const float* a, int64_t mh, const float* b, int64_t ldb, int64_t nw,
                                    float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep);
// Implicit im2col: row q of B at b + offs[q]; nw is a multiple of NR.
using IndirectBlockKernel = void (*)(int64_t kc, const float* a, int64_t mh, const float* b, const int64_t* offs,
                                     int64_t nw, float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep);
// Implicit im2col over a convolution's output plane, `width` (>= 16) positions a row and no
// throw-away columns: column j of the block is output position f = j0 + j, and B[q, j] =
// b[offs[q] + (f / width) · row_stride + f % width]. Any nw; nothing outside those rows is read.
using CompactBlockKernel = void (*)(int64_t kc, const float* a, int64_t mh, const float* b, const int64_t* offs,
                                    int64_t j0, int64_t nw, int64_t width, int64_t row_stride, float* c, int64_t ldc,
                                    bool accumulate, const TileEpilogue* ep);
// A read in place, one row per output position of a convolution (the transposed small-plane
// path): row r's k values lie in `runs` contiguous runs, run t at x + row_offset[r] +
// run_offset[t] for run_count[t] values (one tap's channels of a channels-last input).
struct DirectRows {
  const float* x = nullptr;
  const int64_t* row_offset = nullptr;
  const int64_t* run_offset = nullptr;
  const int64_t* run_count = nullptr;
  int64_t runs = 0;
};
// C[0:mh, 0:nw) = (accumulate ? C : 0) + A·B with A as DirectRows (rows 0..mh of a.row_offset)
// and B as packed panels of the same kc = sum of run_count; no epilogue.
using DirectBlockKernel = void (*)(const DirectRows& a, int64_t mh, const float* b, int64_t kc, int64_t nw, float* c,
                                   int64_t ldc, bool accumulate);
// dst[j · ld_dst + i] = src[i · ld_src + j] for a rows × cols block (both 1..16), then on each
// dst row j the epilogue with bias[j] when ep is set: a product of positions × channels written
// back as channel planes.
using TransposeBlockKernel = void (*)(const float* src, int64_t ld_src, int64_t rows, int64_t cols, float* dst,
                                      int64_t ld_dst, const TileEpilogue* ep);
// One output row of a 2×2 stride-2 max pool over the small-plane product (positions × channels,
// ld floats a position): dst[q · channels + c] is the maximum of positions 2q and 2q + 1 of rows
// `top` and `bottom`, each with the epilogue applied first (bias[c], then the clamp) when ep is set,
// taken in MaxPool's order (v > m ? v : m from -inf, so a NaN is skipped). The pooled write-back of
// a Conv that absorbed the MaxPool after it: bit for bit what the Conv, then the MaxPool, write.
using Pool2x2RowKernel = void (*)(const float* top, const float* bottom, int64_t ld, int64_t cols, int64_t channels,
                                  const TileEpilogue* ep, float* dst);
// Dot product of n floats (the matrix-vector path).
using DotKernel = float (*)(const float* a, const float* b, int64_t n);
// m (1..kMR-1) rows of A times one kc × NR panel of packed B: acc[i][0..NR) += sum_q a_i[q] * panel[q*NR + j],
// a_i = a + i * a_row (a_col apart for consecutive q). The thin-A path of pre-packed Gemm/MatMul.
using PanelRowsKernel = void (*)(int64_t m, int64_t kc, const float* a, int64_t a_row, int64_t a_col, const float* panel,
                                 float* acc);
// One whole panel of kMR rows of A, not transposed (row y at a + y·lda), scaled:
// out[q·kMR + y] = alpha · a[y·lda + q] for q in [0, kc). The product is rounded once, as the portable
// loop's, so every ISA packs the same bits.
using PackRowsAKernel = void (*)(int64_t kc, const float* a, int64_t lda, float alpha, float* out);

struct Kernels {
  const char* isa = nullptr;  // "portable", "avx2", "avx512", "neon"
  PackedBlockKernel block = nullptr;
  StridedBlockKernel block_strided = nullptr;    // nullptr: the ISA has none (drivers pack B instead)
  IndirectBlockKernel block_indirect = nullptr;  // nullptr: no implicit im2col on this ISA
  CompactBlockKernel block_compact = nullptr;    // nullptr: implicit im2col over wide rows only
  DirectBlockKernel block_direct = nullptr;      // nullptr: small-plane convs pack A panels instead
  TransposeBlockKernel transpose_block = nullptr;  // nullptr: the small-plane product is copied back in scalars
  Pool2x2RowKernel pool_2x2_row = nullptr;        // nullptr: the pooled write-back's portable loop
  DotKernel dot = nullptr;
  PanelRowsKernel panel_rows = nullptr;
  PackRowsAKernel pack_rows_a = nullptr;  // nullptr: the portable loop of PackPanelsA
  // The block kernels (block, block_strided, block_indirect, block_compact) add a TileEpilogue's
  // residual while the tile is in registers; otherwise the drivers add it over finished rows.
  bool tiles_add_residual = false;
};

// The kernels of ActiveIsa().
const Kernels& ActiveKernels();

// Each ISA's table; nullptr where the build has no such kernels (other architectures).
const Kernels* PortableKernels();
const Kernels* Avx2Kernels();
const Kernels* Avx512Kernels();
const Kernels* NeonKernels();

// The epilogue's clamp on one value, as every portable loop applies it: Relu as x > lo ? x : lo
// (NaN gives lo), Clip as min(max(x, lo), hi) (NaN kept).
inline float ClampValue(const TileEpilogue& ep, float x) {
  if (ep.clamp == TileEpilogue::kRelu) return x > ep.lo ? x : ep.lo;
  if (ep.clamp == TileEpilogue::kClip) return std::min(std::max(x, ep.lo), ep.hi);
  return x;
}

// The epilogue over an h × w block of C (portable; partial tiles of ISAs without masks).
void ApplyTileEpilogue(const TileEpilogue& ep, float* c, int64_t ldc, int64_t h, int64_t w);

}  // namespace gebe::cpu::gemm_detail
