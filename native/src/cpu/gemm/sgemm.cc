// The GEMM drivers for A and B given as plain matrices (Sgemm, SgemmPacked, SgemmPackedA): they
// choose the path by shape (matrix-vector, small, thin, blocked), split the work over threads and
// pack; the arithmetic is the active ISA's block kernels (sgemm_kernels.h).
#include "cpu/gemm/sgemm.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "cpu/gemm/sgemm_kernels.h"
#include "cpu/gemm/sgemm_pack.h"
#include "cpu/isa.h"

namespace gebe::cpu {

using namespace gemm_detail;

// Runs fn(i) for i in [0, count) with every participant claiming one item at a time: work items here
// are large and uneven in number (25 column blocks on 2 threads), so claiming them singly keeps the
// threads finishing together where fixed chunks of several items would not.
void ForEachClaimed(ThreadPool* pool, int64_t count, const std::function<void(int64_t)>& fn) {
  int64_t slots = pool ? std::min<int64_t>(pool->size(), count) : 1;
  if (slots <= 1) {
    for (int64_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<int64_t> next{0};
  pool->ParallelFor(slots, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s)
      for (int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) fn(i);
  });
}

const char* SgemmIsa() { return ActiveKernels().isa; }

namespace {

// Scratch floats for one GEMM call (uninitialised: packing writes every float before it is read).
// Kept per thread and reused while it fits kKeptFloats (4 MiB), so steady-state inference allocates
// nothing per call; a larger request gets its own allocation, freed with the call, so no thread holds
// more than that between calls. Each call site has its own kept buffer: the drivers do not nest.
class CallScratch {
 public:
  static constexpr size_t kKeptFloats = size_t(1) << 20;
  CallScratch(std::unique_ptr<float[]>& kept, size_t& kept_size, size_t n) {
    if (n > kKeptFloats) {
      own_.reset(new float[n]);
      data_ = own_.get();
      return;
    }
    if (kept_size < n) {
      kept.reset(new float[n]);
      kept_size = n;
    }
    data_ = kept.get();
  }
  float* get() const { return data_; }

 private:
  std::unique_ptr<float[]> own_;
  float* data_ = nullptr;
};

void ScaleC(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
  if (beta == 0.f || beta == 1.f) return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] *= beta;
}

bool Degenerate(int64_t m, int64_t n, int64_t k, float alpha, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return true;
  if (k <= 0 || alpha == 0.f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.f ? 0.f : c[i * ldc + j] * beta;
    return true;
  }
  return false;
}

// One row of C from one row of A (m < kMR without packed weights): packing would cost more than it saves.
void GemvRow(bool trans_b, int64_t n, int64_t k, float alpha, const float* arow, const float* b, int64_t ldb,
             float beta, float* crow, ThreadPool* pool) {
  if (trans_b) {
    // B is [n, k]: every output is a contiguous dot product.
    DotKernel dot = ActiveKernels().dot;
    ParallelForOrInline(pool, n, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, k)), [&](int64_t j0, int64_t j1) {
      for (int64_t j = j0; j < j1; ++j) {
        float v = alpha * dot(arow, b + j * ldb, k);
        crow[j] = beta == 0.f ? v : v + beta * crow[j];
      }
    });
    return;
  }
  // B is [k, n]: accumulate scaled rows of B.
  ParallelForOrInline(pool, n, 256, [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j) crow[j] = beta == 0.f ? 0.f : crow[j] * beta;
    for (int64_t p = 0; p < k; ++p) {
      float av = alpha * arow[p];
      const float* brow = b + p * ldb;
      for (int64_t j = j0; j < j1; ++j) crow[j] += av * brow[j];
    }
  });
}

void Gemv(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc, ThreadPool* pool) {
  std::vector<float> row;
  for (int64_t i = 0; i < m; ++i) {
    const float* arow = a + i * lda;
    if (trans_a) {
      row.resize(size_t(k));
      for (int64_t p = 0; p < k; ++p) row[size_t(p)] = a[p * lda + i];
      arow = row.data();
    }
    GemvRow(trans_b, n, k, alpha, arow, b, ldb, beta, c + i * ldc, pool);
  }
}

void SmallGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* crow = c + i * ldc;
    if (beta == 0.f) std::fill(crow, crow + n, 0.f);
    else if (beta != 1.f) for (int64_t j = 0; j < n; ++j) crow[j] *= beta;
    for (int64_t p = 0; p < k; ++p) {
      float av = alpha * (ta ? a[p * lda + i] : a[i * lda + p]);
      if (!tb) {
        const float* brow = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
      } else {
        for (int64_t j = 0; j < n; ++j) crow[j] += av * b[j * ldb + p];
      }
    }
  }
}

// Where the blocked driver's operands come from: B packed now (b, ldb) or ahead (packed_b); A
// packed per tile (a, lda, alpha) or ahead (packed_a).
struct BlockedOperands {
  bool trans_a = false, trans_b = false;
  float alpha = 1.f;
  const float* a = nullptr;
  int64_t lda = 0;
  const float* b = nullptr;
  int64_t ldb = 0;
  const PackedB* packed_b = nullptr;
  const PackedA* packed_a = nullptr;
};

// The output tiling of the blocked driver: every thread gets work even when m is small
// (convolutions: m = channels).
struct Tiling {
  int64_t mc, nc, m_blocks, n_blocks;
};

Tiling TileOutput(int64_t m, int64_t n, int threads) {
  Tiling t{kMC, kNC, (m + kMC - 1) / kMC, 0};
  while (t.m_blocks * ((n + t.nc - 1) / t.nc) < threads * 2 && t.nc > kNR * 4) t.nc /= 2;
  t.nc = std::max<int64_t>(kNR, t.nc / kNR * kNR);
  t.n_blocks = (n + t.nc - 1) / t.nc;
  return t;
}

// k blocks outermost: per block, B is packed by all threads, then the output tiles are shared out.
void Blocked(int64_t m, int64_t n, int64_t k, const BlockedOperands& op, float beta, float* c, int64_t ldc,
             ThreadPool* pool) {
  ScaleC(m, n, beta, c, ldc);
  const Kernels& kernels = ActiveKernels();
  int64_t n_padded = PadTo(n, kNR), m_padded = PadTo(m, kMR);
  int64_t kblock = op.packed_b ? op.packed_b->kc : op.packed_a ? op.packed_a->kc : BalancedKc(k);
  thread_local std::unique_ptr<float[]> kept_b;
  thread_local size_t kept_b_size = 0;
  CallScratch b_slice(kept_b, kept_b_size, op.packed_b ? 0 : size_t(std::min(kblock, k) * n_padded));
  Tiling t = TileOutput(m, n, pool ? pool->size() : 1);
  for (int64_t k0 = 0; k0 < k; k0 += kblock) {
    int64_t kc = std::min(kblock, k - k0);
    bool accumulate = k0 > 0 || beta != 0.f;
    const float* bblock = op.packed_b ? op.packed_b->data.data() + k0 * n_padded : b_slice.get();
    if (!op.packed_b) {
      ParallelForOrInline(pool, n_padded / kNR, 8, [&](int64_t p0, int64_t p1) {
        int64_t j = p0 * kNR;
        PackPanelsB(op.trans_b, op.b, op.ldb, k0, kc, j, std::min<int64_t>(p1 * kNR, n) - j, b_slice.get() + p0 * kc * kNR);
      });
    }
    ParallelForOrInline(pool, t.m_blocks * t.n_blocks, 1, [&](int64_t t0, int64_t t1) {
      thread_local std::vector<float> a_panels;
      a_panels.resize(size_t(kMC * kKC));
      for (int64_t tile = t0; tile < t1; ++tile) {
        int64_t i0 = (tile / t.n_blocks) * t.mc, j0 = (tile % t.n_blocks) * t.nc;
        int64_t mh = std::min(t.mc, m - i0), nw = std::min(t.nc, n - j0);
        const float* ap = a_panels.data();
        if (op.packed_a) ap = op.packed_a->data.data() + k0 * m_padded + (i0 / kMR) * kc * kMR;
        else PackPanelsA(op.trans_a, op.a, op.lda, i0, mh, k0, kc, op.alpha, a_panels.data());
        kernels.block(kc, ap, mh, bblock + (j0 / kNR) * kc * kNR, nw, c + i0 * ldc + j0, ldc, accumulate, nullptr);
      }
    });
  }
}

// Fewer rows than the micro-kernel against pre-packed B. The source layout is unknown here
// (transposed or not), so the packed panels serve as B: each kc × NR panel is row-major over its
// NR columns. All m rows go through a panel at once so the weights (the whole cost at batch 1)
// are read once.
void PanelRowsPacked(bool trans_a, int64_t m, const PackedB& b, float alpha, const float* a, int64_t lda, float beta,
                     float* c, int64_t ldc, ThreadPool* pool) {
  PanelRowsKernel panel_rows = ActiveKernels().panel_rows;
  int64_t n_padded = PadTo(b.n, kNR);
  int64_t a_row = trans_a ? 1 : lda, a_col = trans_a ? lda : 1;
  ParallelForOrInline(pool, n_padded / kNR, std::max<int64_t>(1, 2048 / std::max<int64_t>(1, b.k)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      float acc[kMR * kNR] = {};
      for (int64_t k0 = 0; k0 < b.k; k0 += b.kc) {
        int64_t kc = std::min(b.kc, b.k - k0);
        panel_rows(m, kc, a + k0 * a_col, a_row, a_col, b.data.data() + k0 * n_padded + p * kc * kNR, acc);
      }
      for (int64_t i = 0; i < m; ++i) {
        float* crow = c + i * ldc;
        for (int64_t j = 0; j < kNR && p * kNR + j < b.n; ++j) {
          float v = alpha * acc[i * kNR + j];
          crow[p * kNR + j] = beta == 0.f ? v : v + beta * crow[p * kNR + j];
        }
      }
    }
  });
}

// A few rows (a batch of flattened images through a fully connected layer) against pre-packed B:
// Floats of C per thread up to which ThinPacked walks k slices outermost (16 KiB: C stays in L1).
constexpr int64_t kSmallThinC = 4096;

// A is packed whole once, then B's column panels are split among the threads, each running
// through all of k for its columns. Every B panel (the bulk of the bytes) is read once, and there
// is one join instead of one per k block.
void ThinPacked(bool trans_a, int64_t m, const PackedB& b, float alpha, const float* a, int64_t lda, float beta,
                float* c, int64_t ldc, ThreadPool* pool) {
  int64_t n = b.n, k = b.k, kblock = b.kc;
  ScaleC(m, n, beta, c, ldc);
  const Kernels& kernels = ActiveKernels();
  int64_t m_padded = PadTo(m, kMR), n_padded = PadTo(n, kNR);
  thread_local std::unique_ptr<float[]> kept_a;
  thread_local size_t kept_a_size = 0;
  CallScratch ap(kept_a, kept_a_size, size_t(m_padded * k));
  int64_t kblocks = (k + kblock - 1) / kblock;
  ParallelForOrInline(pool, kblocks, 4, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      int64_t k0 = q * kblock;
      PackPanelsA(trans_a, a, lda, 0, m, k0, std::min(kblock, k - k0), alpha, ap.get() + k0 * m_padded);
    }
  });
  int threads = pool ? pool->size() : 1;
  int64_t panels = n_padded / kNR;
  auto columns = [&](int64_t p0, int64_t p1) {  // panels [p0, p1), every k slice
    int64_t j0 = p0 * kNR, nw = std::min(n, p1 * kNR) - j0;
    for (int64_t k0 = 0; k0 < k; k0 += kblock) {
      int64_t kc = std::min(kblock, k - k0);
      kernels.block(kc, ap.get() + k0 * m_padded, m, b.data.data() + k0 * n_padded + p0 * kc * kNR, nw, c + j0, ldc,
                    k0 > 0 || beta != 0.f, nullptr);
    }
  };
  if (m_padded * n_padded <= kSmallThinC * threads) {
    // A small C (a batch of rows through a fully connected layer): each thread one run of whole
    // panel pairs with the k slices outermost, so the weights, often larger than L2 and read once
    // a call, stream in one sequential pass per slice instead of a 32 KB run per panel pair.
    int64_t pairs = (panels + 1) / 2;
    ParallelForOrInline(pool, pairs, std::max<int64_t>(1, pairs / threads), [&](int64_t q0, int64_t q1) {
      columns(2 * q0, std::min(panels, 2 * q1));
    });
    return;
  }
  // Groups of an even number of panels (the widest tiles span two), each group's C in L1 across
  // the k slices.
  int64_t per_group = std::max<int64_t>(2, panels / (threads * 4) / 2 * 2);
  int64_t groups = (panels + per_group - 1) / per_group;
  ForEachClaimed(pool, groups, [&](int64_t gi) { columns(gi * per_group, std::min(panels, (gi + 1) * per_group)); });
}

}  // namespace

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc, ThreadPool* pool) {
  if (Degenerate(m, n, k, alpha, beta, c, ldc)) return;
  if (m < kMR) {
    Gemv(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, pool);
    return;
  }
  if (m * n * k < 8192) {
    SmallGemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  BlockedOperands op;
  op.trans_a = trans_a;
  op.trans_b = trans_b;
  op.alpha = alpha;
  op.a = a;
  op.lda = lda;
  op.b = b;
  op.ldb = ldb;
  Blocked(m, n, k, op, beta, c, ldc, pool);
}

void SgemmPackedA(const PackedA& a, int64_t n, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                  ThreadPool* pool) {
  if (Degenerate(a.m, n, a.k, 1.f, beta, c, ldc)) return;
  BlockedOperands op;
  op.b = b;
  op.ldb = ldb;
  op.packed_a = &a;
  Blocked(a.m, n, a.k, op, beta, c, ldc, pool);
}

void SgemmPacked(bool trans_a, int64_t m, const PackedB& b, float alpha, const float* a, int64_t lda, float beta,
                 float* c, int64_t ldc, ThreadPool* pool) {
  if (Degenerate(m, b.n, b.k, alpha, beta, c, ldc)) return;
  if (m < kMR) {
    PanelRowsPacked(trans_a, m, b, alpha, a, lda, beta, c, ldc, pool);
  } else if (m <= 4 * kMC) {
    ThinPacked(trans_a, m, b, alpha, a, lda, beta, c, ldc, pool);
  } else {
    BlockedOperands op;
    op.trans_a = trans_a;
    op.alpha = alpha;
    op.a = a;
    op.lda = lda;
    op.packed_b = &b;
    Blocked(m, b.n, b.k, op, beta, c, ldc, pool);
  }
}

}  // namespace gebe::cpu
