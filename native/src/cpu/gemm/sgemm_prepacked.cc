// The GEMM drivers for constant weights packed ahead (PackedA) against a B that is packed here:
// whole (SgemmPrepacked), one column block at a time from rows generated on the fly
// (SgemmPrepackedRows: im2col rows, or a matrix read in place), or read through per-row offsets
// (SgemmImplicit: implicit im2col). They split the work over threads and pack; the arithmetic is
// the active ISA's block kernels.
#include <algorithm>
#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/gemm/sgemm_kernels.h"
#include "cpu/gemm/sgemm_pack.h"

namespace gebe::cpu {

using namespace gemm_detail;

namespace {

// The epilogue of one finished block of rows [i0, i0 + mh): in registers (fused) or over the rows.
struct BlockEpilogue {
  const RowEpilogue& ep;
  TileEpilogue tile;
  bool fused;
  explicit BlockEpilogue(const RowEpilogue& e) : ep(e) { fused = FusableEpilogue(e, &tile, ActiveKernels().tiles_add_residual); }
  // For the block kernel of the last k slice (null: nothing to fuse).
  const TileEpilogue* Tile(int64_t i0, TileEpilogue* storage) const {
    if (!fused) return nullptr;
    *storage = tile;
    if (storage->bias) storage->bias += i0;
    return storage;
  }
  // After the last k slice, what could not be fused.
  void Rows(float* c, int64_t ldc, int64_t i0, int64_t mh, int64_t nw) const {
    if (fused || ep.empty()) return;
    RowEpilogue shifted = ep;
    if (shifted.bias) shifted.bias += i0;
    ApplyRowEpilogue(shifted, c, ldc, mh, nw);
  }
};

}  // namespace

void SgemmPrepacked(const PackedA& a, int64_t n, const float* packed_b, float* c, int64_t ldc, const RowEpilogue& ep,
                    ThreadPool* pool) {
  SgemmPrepackedPanels(a.data.data(), a.m, a.k, a.kc, n, packed_b, c, ldc, ep, pool);
}

void SgemmPrepackedPanels(const float* a_panels, int64_t m, int64_t k, int64_t kblock, int64_t n, const float* packed_b,
                          float* c, int64_t ldc, const RowEpilogue& ep, ThreadPool* pool) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  const Kernels& kernels = ActiveKernels();
  int64_t n_padded = PadTo(n, kNR), m_padded = PadTo(m, kMR);
  const int threads = pool ? pool->size() : 1;
  // Whole 12-row tiles (the widest packed tile), column blocks of at least 32.
  const TaskBlocks tasks = SplitForThreads(m, n, threads, 2 * kMR, 2 * kNR);
  int64_t nc = tasks.nc, m_blocks = tasks.m_blocks, n_blocks = tasks.n_blocks;
  // Each task reads all the A rows of its row block and all the B columns of its column block.
  // Split by columns, every thread streams all of A: with more rows than columns (a small map's
  // convolution, m channels over n positions) A is the weights, the larger operand, and not in
  // cache from the last run. Then the threads take equal runs of whole 6-row panels instead, B
  // whole: a 1024 -> 512 1x1 convolution over 14x14 at 2 threads, 32 of them side by side so the
  // weights come from memory, went from 1.21-1.26x ONNX Runtime's time to 1.12-1.18x.
  const int64_t row_panels = (m + kMR - 1) / kMR;
  const bool by_rows = threads > 1 && m > n && row_panels >= 4 * threads;
  if (by_rows) {
    m_blocks = threads * ((m + kMC * threads - 1) / (kMC * threads));
    nc = kNC;
    n_blocks = (n + nc - 1) / nc;
  }
  auto row_start = [&](int64_t q) {
    return by_rows ? std::min(m, q * row_panels / m_blocks * kMR) : std::min(m, q * tasks.mc);
  };
  BlockEpilogue epi(ep);
  ForEachClaimed(pool, m_blocks * n_blocks, [&](int64_t t) {
    int64_t i0 = row_start(t / n_blocks), j0 = (t % n_blocks) * nc;
    int64_t mh = row_start(t / n_blocks + 1) - i0, nw = std::min(nc, n - j0);
    float* cp = c + i0 * ldc + j0;
    for (int64_t k0 = 0; k0 < k; k0 += kblock) {
      int64_t kc = std::min(kblock, k - k0);
      TileEpilogue te;
      const float* ap = a_panels + k0 * m_padded + (i0 / kMR) * kc * kMR;
      const float* bp = packed_b + k0 * n_padded + (j0 / kNR) * kc * kNR;
      kernels.block(kc, ap, mh, bp, nw, cp, ldc, k0 > 0, k0 + kc >= k ? epi.Tile(i0, &te) : nullptr);
    }
    epi.Rows(cp, ldc, i0, mh, nw);
  });
}

namespace {

// Few rows of A: packing B would cost about as much as the multiply, so a B that is a plain
// matrix (pointwise convolutions) is read in place; only a partial last panel is packed. Up to
// twice as many rows when the whole B (n columns) fits in half a typical L2: its rows come from
// L2 either way, so packing them is all cost (MobileNetV2's 14×14 projections to 64 and 96
// channels: 25-30% faster at 1 thread, 35% at 2). With more rows than that, packing pays.
bool ReadsBInPlace(const PackedA& a, int64_t n, const BRowSource& b) {
  if (!b.direct || !ActiveKernels().block_strided) return false;
  constexpr int64_t kHalfL2Floats = 128 * 1024;
  return a.m <= 48 || (a.m <= 96 && a.k * n <= kHalfL2Floats);
}

// One thread, columns [j0, j1) of C: k slices outermost; each slice of B (kc × nb) is packed into
// `slice` right before use, so it is read from L2 by every row block of A, and the C block (m × nb)
// stays in L2 between slices. The epilogue runs on each row block after the last slice.
void BlockKOuter(const PackedA& a, const BRowSource& b, int64_t n, int64_t j0, int64_t j1, float* c, int64_t ldc,
                 const RowEpilogue& ep, float* slice) {
  const Kernels& kernels = ActiveKernels();
  int64_t m = a.m, k = a.k, nb = j1 - j0, m_padded = PadTo(m, kMR);
  int64_t nb_padded = PadTo(nb, kNR);
  thread_local std::vector<float> row;
  if (!b.direct && row.size() < size_t(nb)) row.resize(size_t(nb));
  BlockEpilogue epi(ep);
  bool in_place = ReadsBInPlace(a, n, b);
  int64_t full = in_place ? nb / kNR * kNR : 0;  // columns read in place
  for (int64_t k0 = 0; k0 < k; k0 += a.kc) {
    int64_t kc = std::min(a.kc, k - k0);
    bool accumulate = k0 > 0, last = k0 + kc >= k;
    for (int64_t r = k0; r < k0 + kc && full < nb; ++r) {
      const float* src = b.direct ? b.direct + r * n + j0 : row.data();
      if (!b.direct) b.fill(b.ctx, r, j0, j1, row.data());
      // Panels are numbered from column `full` on (in place: only the last, partial one).
      ScatterRow(src + full, nb - full, nb_padded - full, slice + (r - k0) * kNR, kc * kNR);
    }
    for (int64_t i0 = 0; i0 < m; i0 += kMC) {
      int64_t mh = std::min(kMC, m - i0);
      const float* ap = a.data.data() + k0 * m_padded + (i0 / kMR) * kc * kMR;
      TileEpilogue te;
      const TileEpilogue* tep = last ? epi.Tile(i0, &te) : nullptr;
      float* cp = c + i0 * ldc;
      if (full > 0) kernels.block_strided(kc, ap, mh, b.direct + k0 * n + j0, n, full, cp, ldc, accumulate, tep);
      if (full < nb) kernels.block(kc, ap, mh, slice, nb - full, cp + full, ldc, accumulate, tep);
      if (last) epi.Rows(cp, ldc, i0, mh, nb);
    }
  }
}

// Packs all of B (rows in parallel) into b_buffer in the layout SgemmPrepacked reads.
void PackAllRows(const PackedA& a, int64_t n, const BRowSource& b, float* b_buffer, ThreadPool* pool) {
  int64_t k = a.k, n_padded = PadTo(n, kNR);
  pool->ParallelFor(k, std::max<int64_t>(1, 4096 / n), [&](int64_t r0, int64_t r1) {
    thread_local std::vector<float> row;
    if (!b.direct && row.size() < size_t(n)) row.resize(size_t(n));
    for (int64_t r = r0; r < r1; ++r) {
      int64_t k0 = r / a.kc * a.kc, kcb = std::min(a.kc, k - k0);
      const float* src = b.direct ? b.direct + r * n : row.data();
      if (!b.direct) b.fill(b.ctx, r, 0, n, row.data());
      ScatterRow(src, n, n_padded, b_buffer + k0 * n_padded + (r - k0) * kNR, kcb * kNR);
    }
  });
}

}  // namespace

void SgemmPrepackedRows(const PackedA& a, int64_t n, const BRowSource& b, float* c, int64_t ldc, const RowEpilogue& ep,
                        float* b_buffer, ThreadPool* pool) {
  if (a.m <= 0 || n <= 0 || a.k <= 0) return;
  int threads = pool ? pool->size() : 1;
  // Column block width: a k slice of B (kc × nb) and the C block (m × nb) each within about a
  // quarter of a typical L2; then equal blocks of whole 32-column tiles.
  int64_t nb = std::max<int64_t>(kNR, std::min<int64_t>({kNC, 65536 / a.kc, 65536 / std::max<int64_t>(1, a.m)}));
  int64_t blocks = (n + nb - 1) / nb;
  // Shared by several threads: a multiple of the thread count (no thread one block behind).
  if (threads > 1 && blocks >= 2 * threads) blocks = (blocks + threads - 1) / threads * threads;
  nb = PadTo((n + blocks - 1) / blocks, kNR);
  blocks = (n + nb - 1) / nb;
  if (threads > 1 && blocks < 2 * threads && ReadsBInPlace(a, n, b)) {
    // B is read in place, so narrower blocks cost no packing: two per thread, whole panels.
    nb = std::max<int64_t>(kNR, PadTo((n + 2 * threads - 1) / (2 * threads), kNR));
    blocks = (n + nb - 1) / nb;
  }
  if (threads > 1 && blocks < 2 * threads) {
    // Too few column blocks to share: pack all of B, then split the tiles.
    PackAllRows(a, n, b, b_buffer, pool);
    SgemmPrepacked(a, n, b_buffer, c, ldc, ep, pool);
    return;
  }
  // The blocks share out whole 16-column panels as evenly as they go. Blocks of nb with the
  // remainder last left threads uneven: 196 positions (14x14) as 64, 64, 64 and 4 gave one thread
  // 128 columns and the other 68, and 784 (28x28) as 7 blocks of 112 gave one 4 of them.
  const int64_t panels = (n + kNR - 1) / kNR;
  blocks = std::min(blocks, panels);
  const int64_t widest = (panels + blocks - 1) / blocks * kNR;
  auto block_start = [panels, blocks, n](int64_t q) { return std::min(n, EvenPanelBlockStart(q, panels, blocks)); };
  // One contiguous run of column blocks (positions, for a convolution) per thread: the part of
  // the input the previous layer wrote on this thread, and of the output the next one reads here.
  ParallelForContiguous(pool, blocks, 1, [&](int64_t q0, int64_t q1) {
    thread_local std::vector<float> slice;
    size_t need = size_t(PackedBFloats(a.kc, widest));
    if (slice.size() < need) slice.resize(need);
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t j0 = block_start(q), j1 = block_start(q + 1);
      BlockKOuter(a, b, n, j0, j1, c + j0, ldc, ep, slice.data());
    }
  });
}

namespace {

// Column blocks as in the packed path (the C block stays in L2 across k slices); with threads, at
// least four blocks per thread and a multiple of the thread count, so that no thread is left with
// one block more than the others at the end (7 blocks on 2 threads idle one an eighth).
int64_t ImplicitBlockWidth(int64_t m, int64_t n, int threads) {
  int64_t nb = std::max<int64_t>(kNR, std::min<int64_t>({kNC, 65536 / std::max<int64_t>(1, m)}) / kNR * kNR);
  if (threads <= 1) return nb;
  int64_t want = std::max<int64_t>((n + nb - 1) / nb, 4 * threads);
  want = (want + threads - 1) / threads * threads;
  return std::max<int64_t>(4 * kNR, PadTo((n + want - 1) / want, kNR));
}

}  // namespace

bool SgemmImplicit(const PackedA& a, int64_t n, const float* x, const int64_t* offs, float* c, int64_t ldc,
                   const RowEpilogue& ep, ThreadPool* pool) {
  const Kernels& kernels = ActiveKernels();
  if (!kernels.block_indirect) return false;
  int64_t m = a.m, k = a.k, m_padded = PadTo(m, kMR);
  if (m <= 0 || n <= 0 || k <= 0) return true;
  BlockEpilogue epi(ep);
  int64_t nb = ImplicitBlockWidth(m, n, pool ? pool->size() : 1);
  ForEachClaimed(pool, (n + nb - 1) / nb, [&](int64_t q) {
    int64_t j0 = q * nb, nbw = std::min(nb, n - j0);
    // The last partial panel of the whole output is packed (reading it in place would run past
    // the input's end); full panels read the input through the tap offsets.
    thread_local std::vector<float> tail;
    int64_t full = (j0 + nbw == n) ? nbw / kNR * kNR : nbw;
    for (int64_t k0 = 0; k0 < k; k0 += a.kc) {
      int64_t kc = std::min(a.kc, k - k0);
      bool accumulate = k0 > 0, last = k0 + kc >= k;
      if (full < nbw) {
        if (tail.size() < size_t(kc * kNR)) tail.resize(size_t(kc * kNR));
        for (int64_t r = 0; r < kc; ++r)
          for (int64_t x2 = 0; x2 < kNR; ++x2)
            tail[size_t(r * kNR + x2)] = full + x2 < nbw ? x[offs[k0 + r] + j0 + full + x2] : 0.f;
      }
      for (int64_t i0 = 0; i0 < m; i0 += kMC) {
        int64_t mh = std::min(kMC, m - i0);
        const float* ap = a.data.data() + k0 * m_padded + (i0 / kMR) * kc * kMR;
        TileEpilogue te;
        const TileEpilogue* tep = last ? epi.Tile(i0, &te) : nullptr;
        float* cp = c + i0 * ldc + j0;
        if (full > 0) kernels.block_indirect(kc, ap, mh, x + j0, offs + k0, full, cp, ldc, accumulate, tep);
        if (full < nbw) kernels.block(kc, ap, mh, tail.data(), nbw - full, cp + full, ldc, accumulate, tep);
        if (last) epi.Rows(cp, ldc, i0, mh, nbw);
      }
    }
  });
  return true;
}

bool SgemmHasImplicitCompact() { return ActiveKernels().block_compact != nullptr; }

void SgemmImplicitCompact(const PackedA& a, int64_t n, int64_t width, int64_t row_stride, const float* x,
                          const int64_t* offs, float* c, int64_t ldc, const RowEpilogue& ep, ThreadPool* pool) {
  const Kernels& kernels = ActiveKernels();
  int64_t m = a.m, k = a.k, m_padded = PadTo(m, kMR);
  if (m <= 0 || n <= 0 || k <= 0) return;
  BlockEpilogue epi(ep);
  int64_t nb = ImplicitBlockWidth(m, n, pool ? pool->size() : 1);
  ForEachClaimed(pool, (n + nb - 1) / nb, [&](int64_t q) {
    int64_t j0 = q * nb, nbw = std::min(nb, n - j0);
    for (int64_t k0 = 0; k0 < k; k0 += a.kc) {
      int64_t kc = std::min(a.kc, k - k0);
      bool last = k0 + kc >= k;
      for (int64_t i0 = 0; i0 < m; i0 += kMC) {
        int64_t mh = std::min(kMC, m - i0);
        const float* ap = a.data.data() + k0 * m_padded + (i0 / kMR) * kc * kMR;
        TileEpilogue te;
        float* cp = c + i0 * ldc + j0;
        kernels.block_compact(kc, ap, mh, x, offs + k0, j0, nbw, width, row_stride, cp, ldc, k0 > 0,
                              last ? epi.Tile(i0, &te) : nullptr);
        if (last) epi.Rows(cp, ldc, i0, mh, nbw);
      }
    }
  });
}

}  // namespace gebe::cpu
