#include "cpu/gemm/sgemm.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <cstring>
#include <memory>
#include <vector>

#include "engine/engine.h"

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

namespace {

constexpr int64_t kKC = 256;
constexpr int64_t kMC = 72;   // multiple of kMR
constexpr int64_t kNC = 512;  // multiple of kNR

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

struct Dispatch {
  MicroKernel kernel = MicroKernelPortable;
  MicroKernel kernel8 = nullptr;  // a 6×8 kernel, where the ISA has one
  MicroKernelEpi kernel_epi = nullptr;  // the 6×16 kernel with its epilogue fused, where the ISA has one
  MicroKernelStrided kernel_strided = nullptr;  // the 6×16 kernel reading B in place, where the ISA has one
  MicroKernelIndirect kernel_indirect = nullptr;  // the 6×16 kernel with per-row B offsets, where the ISA has one
  DotKernel dot = DotPortable;
  PanelRowsKernel panel_rows = PanelRowsPortable;
  const char* isa = "portable";
  Dispatch() {
    if (MicroKernel k = MicroKernelNeon()) {
      kernel = k;
      isa = "neon";
    }
    if (CpuHasAvx2Fma()) {
      if (MicroKernel k = MicroKernelAvx2()) {
        kernel = k;
        kernel8 = MicroKernel8Avx2();
        kernel_epi = MicroKernelEpiAvx2();
        kernel_strided = MicroKernelStridedAvx2();
        kernel_indirect = MicroKernelIndirectAvx2();
        isa = "avx2+fma";
      }
      if (DotKernel d = DotAvx2()) dot = d;
      if (PanelRowsKernel p = PanelRowsAvx2()) panel_rows = p;
    }
  }
};

const Dispatch& GetDispatch() {
  static Dispatch d;
  return d;
}

// Packs op(B)[k0:k0+kc, j0:j0+nc) into NR-column panels: panel p holds kc rows of NR floats
// (zero-padded). Rows are walked in the outer loop so B is read sequentially, not panel by panel
// down its columns (which strides through memory by a whole row per load).
void PackPanelsB(bool trans_b, const float* b, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  int64_t full = nc / kNR, tail = nc % kNR;
  if (!trans_b) {
    for (int64_t k = 0; k < kc; ++k) {
      const float* src = b + (k0 + k) * ldb + j0;
      for (int64_t p = 0; p < full; ++p) std::memcpy(out + p * kc * kNR + k * kNR, src + p * kNR, sizeof(float) * kNR);
      if (tail) {
        float* row = out + full * kc * kNR + k * kNR;
        for (int64_t x = 0; x < tail; ++x) row[x] = src[full * kNR + x];
        for (int64_t x = tail; x < kNR; ++x) row[x] = 0.f;
      }
    }
    return;
  }
  for (int64_t p = 0; p * kNR < nc; ++p) {
    int64_t w = std::min<int64_t>(kNR, nc - p * kNR);
    float* dst = out + p * kc * kNR;
    for (int64_t x = 0; x < w; ++x) {
      const float* src = b + (j0 + p * kNR + x) * ldb + k0;
      for (int64_t k = 0; k < kc; ++k) dst[k * kNR + x] = src[k];
    }
    for (int64_t x = w; x < kNR; ++x)
      for (int64_t k = 0; k < kc; ++k) dst[k * kNR + x] = 0.f;
  }
}

// Packs alpha * op(A)[i0:i0+mc, k0:k0+kc] into MR-row panels: panel p holds kc columns of MR floats.
void PackPanelsA(bool trans_a, const float* a, int64_t lda, int64_t i0, int64_t mc, int64_t k0, int64_t kc, float alpha,
           float* out) {
  for (int64_t i = 0; i < mc; i += kMR) {
    int64_t h = std::min<int64_t>(kMR, mc - i);
    float* dst = out + (i / kMR) * kc * kMR;
    for (int64_t k = 0; k < kc; ++k) {
      float* col = dst + k * kMR;
      for (int64_t y = 0; y < h; ++y) {
        float v = trans_a ? a[(k0 + k) * lda + i0 + i + y] : a[(i0 + i + y) * lda + k0 + k];
        col[y] = v * alpha;
      }
      for (int64_t y = h; y < kMR; ++y) col[y] = 0.f;
    }
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

// Row r of a packed B slice: column t goes to base[(t / NR) * panel_stride + t % NR]; whole
// panels move as fixed 64-byte copies, the padding columns of the last panel are zeroed.
void ScatterRow(const float* src, int64_t n, int64_t n_padded, float* base, int64_t panel_stride) {
  int64_t full = n / kNR;
  for (int64_t p = 0; p < full; ++p) std::memcpy(base + p * panel_stride, src + p * kNR, sizeof(float) * kNR);
  if (n_padded > full * kNR) {
    float* d = base + full * panel_stride;
    int64_t tail = n - full * kNR;
    for (int64_t x = 0; x < tail; ++x) d[x] = src[full * kNR + x];
    for (int64_t x = tail; x < kNR; ++x) d[x] = 0.f;
  }
}

// A partial tile (h ≤ MR rows, w ≤ NR columns) of C: through the 6×8 kernel when w ≤ 8, into
// a scratch tile when the kernel would write outside C.
inline void EdgeTile(int64_t kc, const float* ap, const float* bp, float* cp, int64_t ldc, bool accumulate, int64_t h,
                     int64_t w, float* edge) {
  const Dispatch& d = GetDispatch();
  bool narrow = d.kernel8 && w <= kNR / 2;
  if (narrow && h == kMR && w == kNR / 2) {
    d.kernel8(kc, ap, bp, cp, ldc, accumulate);
    return;
  }
  (narrow ? d.kernel8 : d.kernel)(kc, ap, bp, edge, kNR, false);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) cp[y * ldc + x] = accumulate ? cp[y * ldc + x] + edge[y * kNR + x] : edge[y * kNR + x];
}

// Bias and Relu/Clip can be applied per micro tile (in registers); a callback activation cannot.
bool FusableEpilogue(const RowEpilogue& ep, TileEpilogue* out) {
  if (ep.activation || (ep.bias == nullptr && ep.clamp == RowEpilogue::kNone)) return false;
  out->bias = ep.bias;
  out->clamp = ep.clamp == RowEpilogue::kRelu ? TileEpilogue::kRelu : ep.clamp == RowEpilogue::kClip ? TileEpilogue::kClip : TileEpilogue::kNone;
  out->lo = ep.lo;
  out->hi = ep.hi;
  return true;
}

// The last k slice of a tile: the micro-kernel, then (when given) the epilogue on the finished
// tile while it is in registers or L1.
inline void FinalTile(int64_t kc, const float* ap, const float* bp, float* cp, int64_t ldc, bool accumulate, int64_t h,
                      int64_t w, float* edge, const TileEpilogue* ep) {
  if (h == kMR && w == kNR) {
    const Dispatch& d = GetDispatch();
    if (ep && d.kernel_epi) {
      d.kernel_epi(kc, ap, bp, cp, ldc, accumulate, *ep);
      return;
    }
    d.kernel(kc, ap, bp, cp, ldc, accumulate);
  } else {
    EdgeTile(kc, ap, bp, cp, ldc, accumulate, h, w, edge);
  }
  if (ep) ApplyTileEpilogue(*ep, cp, ldc, h, w);
}

// A 16-column tile of C with B read in place (rows ldb apart); h ≤ MR rows.
inline void StridedTile(int64_t kc, const float* ap, const float* bp, int64_t ldb, float* cp, int64_t ldc,
                        bool accumulate, int64_t h, float* edge, const TileEpilogue* ep) {
  MicroKernelStrided kernel = GetDispatch().kernel_strided;
  if (h == kMR) {
    kernel(kc, ap, bp, ldb, cp, ldc, accumulate, ep);
    return;
  }
  kernel(kc, ap, bp, ldb, edge, kNR, false, nullptr);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < kNR; ++x) cp[y * ldc + x] = accumulate ? cp[y * ldc + x] + edge[y * kNR + x] : edge[y * kNR + x];
  if (ep) ApplyTileEpilogue(*ep, cp, ldc, h, kNR);
}

}  // namespace

namespace gemm_detail {
void ApplyTileEpilogue(const TileEpilogue& ep, float* c, int64_t ldc, int64_t h, int64_t w) {
  for (int64_t y = 0; y < h; ++y) {
    float* row = c + y * ldc;
    if (ep.bias) {
      float bv = ep.bias[y];
      for (int64_t x = 0; x < w; ++x) row[x] += bv;
    }
    if (ep.clamp == TileEpilogue::kRelu) {
      for (int64_t x = 0; x < w; ++x) row[x] = row[x] > ep.lo ? row[x] : ep.lo;
    } else if (ep.clamp == TileEpilogue::kClip) {
      for (int64_t x = 0; x < w; ++x) row[x] = std::min(std::max(row[x], ep.lo), ep.hi);
    }
  }
}

void MicroKernelPortable(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool accumulate) {
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
}  // namespace gemm_detail

const char* SgemmIsa() { return GetDispatch().isa; }

int64_t BalancedKc(int64_t k);

namespace {

// Matrix-vector products (m < kMR): packing would cost more than it saves.
void Gemv(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc, ThreadPool* pool) {
  DotKernel dot = GetDispatch().dot;
  std::vector<float> row;
  for (int64_t i = 0; i < m; ++i) {
    const float* arow = a + i * lda;
    if (trans_a) {
      row.resize(size_t(k));
      for (int64_t p = 0; p < k; ++p) row[size_t(p)] = a[p * lda + i];
      arow = row.data();
    }
    float* crow = c + i * ldc;
    if (trans_b) {
      // B is [n, k]: every output is a contiguous dot product.
      auto body = [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j) {
          float v = alpha * dot(arow, b + j * ldb, k);
          crow[j] = beta == 0.f ? v : v + beta * crow[j];
        }
      };
      if (pool) pool->ParallelFor(n, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, k)), body);
      else body(0, n);
    } else {
      // B is [k, n]: accumulate scaled rows of B.
      auto body = [&](int64_t j0, int64_t j1) {
        for (int64_t j = j0; j < j1; ++j) crow[j] = beta == 0.f ? 0.f : crow[j] * beta;
        for (int64_t p = 0; p < k; ++p) {
          float av = alpha * arow[p];
          const float* brow = b + p * ldb;
          for (int64_t j = j0; j < j1; ++j) crow[j] += av * brow[j];
        }
      };
      if (pool) pool->ParallelFor(n, 256, body);
      else body(0, n);
    }
  }
}

// The blocked driver. `packed` (when not null) supplies op(B) already packed.
void Blocked(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, const PackedB* packed, float beta, float* c, int64_t ldc, ThreadPool* pool,
             const PackedA* packed_a_all = nullptr) {
  if (beta != 0.f && beta != 1.f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] *= beta;
  }
  MicroKernel kernel = GetDispatch().kernel;
  int64_t n_padded = (n + kNR - 1) / kNR * kNR;
  // Uninitialised (every float is written by the packing before it is read).
  std::unique_ptr<float[]> packed_b;
  if (!packed) packed_b.reset(new float[size_t(std::min(BalancedKc(k), k) * n_padded)]);
  int threads = pool ? pool->size() : 1;
  // Tile the output so every thread gets work even when m is small (convolutions: m = channels).
  int64_t mc = kMC, nc = kNC;
  int64_t m_blocks = (m + mc - 1) / mc;
  while (m_blocks * ((n + nc - 1) / nc) < threads * 2 && nc > kNR * 4) nc /= 2;
  nc = std::max<int64_t>(kNR, nc / kNR * kNR);
  int64_t n_blocks = (n + nc - 1) / nc;

  // Equal k blocks (288 → 144 + 144, not 256 + 32): a thin last block would cost a full extra
  // read-modify-write pass over C for little work. Pre-packed B fixes its own blocking.
  int64_t kblock = packed ? packed->kc : packed_a_all ? packed_a_all->kc : BalancedKc(k);
  int64_t m_padded = (m + kMR - 1) / kMR * kMR;
  for (int64_t k0 = 0; k0 < k; k0 += kblock) {
    int64_t kc = std::min(kblock, k - k0);
    bool accumulate = k0 > 0 || beta != 0.f;
    int64_t panels = n_padded / kNR;
    const float* bblock;
    if (packed) {
      bblock = packed->data.data() + k0 * n_padded;
    } else {
      auto pack = [&](int64_t p0, int64_t p1) {
        int64_t j = p0 * kNR;
        PackPanelsB(trans_b, b, ldb, k0, kc, j, std::min<int64_t>(p1 * kNR, n) - j, packed_b.get() + p0 * kc * kNR);
      };
      if (pool) pool->ParallelFor(panels, 8, pack);
      else pack(0, panels);
      bblock = packed_b.get();
    }

    auto tile = [&](int64_t t0, int64_t t1) {
      thread_local std::vector<float> packed_a;
      packed_a.resize(size_t(kMC * kKC));
      alignas(64) float edge[kMR * kNR];
      for (int64_t t = t0; t < t1; ++t) {
        int64_t i0 = (t / n_blocks) * mc, j0 = (t % n_blocks) * nc;
        int64_t mh = std::min(mc, m - i0), nw = std::min(nc, n - j0);
        // Panels of rows i0.. of this k block: pre-packed (constant weights) or packed now.
        const float* apanels;
        if (packed_a_all) {
          apanels = packed_a_all->data.data() + k0 * m_padded + (i0 / kMR) * kc * kMR;
        } else {
          PackPanelsA(trans_a, a, lda, i0, mh, k0, kc, alpha, packed_a.data());
          apanels = packed_a.data();
        }
        for (int64_t j = 0; j < nw; j += kNR) {
          const float* bp = bblock + ((j0 + j) / kNR) * kc * kNR;
          int64_t w = std::min<int64_t>(kNR, nw - j);
          for (int64_t i = 0; i < mh; i += kMR) {
            const float* ap = apanels + (i / kMR) * kc * kMR;
            int64_t h = std::min<int64_t>(kMR, mh - i);
            float* cp = c + (i0 + i) * ldc + j0 + j;
            if (h == kMR && w == kNR) {
              kernel(kc, ap, bp, cp, ldc, accumulate);
            } else {
              EdgeTile(kc, ap, bp, cp, ldc, accumulate, h, w, edge);
            }
          }
        }
      }
    };
    if (pool) pool->ParallelFor(m_blocks * n_blocks, 1, tile);
    else tile(0, m_blocks * n_blocks);
  }
}

}  // namespace

int64_t BalancedKc(int64_t k) {
  int64_t blocks = (k + kKC - 1) / kKC;
  return (k + blocks - 1) / blocks;
}

namespace {

bool Degenerate(int64_t m, int64_t n, int64_t k, float alpha, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return true;
  if (k <= 0 || alpha == 0.f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.f ? 0.f : c[i * ldc + j] * beta;
    return true;
  }
  return false;
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
  Blocked(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, nullptr, beta, c, ldc, pool);
}

PackedA PackA(int64_t m, int64_t k, const float* a, int64_t lda) {
  PackedA packed;
  packed.m = m;
  packed.k = k;
  packed.source = a;
  packed.kc = BalancedKc(k);
  int64_t m_padded = (m + kMR - 1) / kMR * kMR;
  packed.data.resize(size_t(k * m_padded));
  for (int64_t k0 = 0; k0 < k; k0 += packed.kc) {
    int64_t kc = std::min(packed.kc, k - k0);
    PackPanelsA(false, a, lda, 0, m, k0, kc, 1.f, packed.data.data() + k0 * m_padded);
  }
  return packed;
}

void SgemmPackedA(const PackedA& a, int64_t n, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                  ThreadPool* pool) {
  if (Degenerate(a.m, n, a.k, 1.f, beta, c, ldc)) return;
  Blocked(false, false, a.m, n, a.k, 1.f, nullptr, 0, b, ldb, nullptr, beta, c, ldc, pool, &a);
}

PackedB PackB(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb) {
  PackedB packed;
  packed.k = k;
  packed.n = n;
  packed.source = b;
  packed.kc = BalancedKc(k);
  int64_t n_padded = (n + kNR - 1) / kNR * kNR;
  packed.data.resize(size_t(k * n_padded));
  for (int64_t k0 = 0; k0 < k; k0 += packed.kc) {
    int64_t kc = std::min(packed.kc, k - k0);
    float* block = packed.data.data() + k0 * n_padded;
    PackPanelsB(trans_b, b, ldb, k0, kc, 0, n, block);
  }
  // Keep the layout the blocked driver expects, plus the original for the matrix-vector path.
  return packed;
}

namespace {

// A few rows (a batch of flattened images through a fully connected layer) against pre-packed B:
// A is packed whole once, then groups of B's column panels are claimed by the threads, each
// running through all of k for its columns. Every B panel (the bulk of the bytes) is read once,
// and there is one join instead of one per k block.
void ThinPacked(bool trans_a, int64_t m, const PackedB& b, float alpha, const float* a, int64_t lda, float beta,
                float* c, int64_t ldc, ThreadPool* pool) {
  int64_t n = b.n, k = b.k, kblock = b.kc;
  if (beta != 0.f && beta != 1.f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] *= beta;
  }
  MicroKernel kernel = GetDispatch().kernel;
  int64_t m_padded = (m + kMR - 1) / kMR * kMR, n_padded = (n + kNR - 1) / kNR * kNR;
  std::unique_ptr<float[]> ap(new float[size_t(m_padded * k)]);
  int64_t kblocks = (k + kblock - 1) / kblock;
  auto pack = [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      int64_t k0 = q * kblock;
      PackPanelsA(trans_a, a, lda, 0, m, k0, std::min(kblock, k - k0), alpha, ap.get() + k0 * m_padded);
    }
  };
  if (pool) pool->ParallelFor(kblocks, 4, pack);
  else pack(0, kblocks);
  int threads = pool ? pool->size() : 1;
  int64_t panels = n_padded / kNR;
  int64_t per_group = std::max<int64_t>(1, panels / (threads * 4));
  int64_t groups = (panels + per_group - 1) / per_group;
  ForEachClaimed(pool, groups, [&](int64_t gi) {
    alignas(64) float edge[kMR * kNR];
    int64_t p0 = gi * per_group, p1 = std::min(panels, p0 + per_group);
    for (int64_t k0 = 0; k0 < k; k0 += kblock) {
      int64_t kc = std::min(kblock, k - k0);
      bool accumulate = k0 > 0 || beta != 0.f;
      const float* apanels = ap.get() + k0 * m_padded;
      for (int64_t p = p0; p < p1; ++p) {
        const float* bp = b.data.data() + k0 * n_padded + p * kc * kNR;
        int64_t w = std::min<int64_t>(kNR, n - p * kNR);
        for (int64_t i = 0; i < m; i += kMR) {
          int64_t h = std::min<int64_t>(kMR, m - i);
          const float* apanel = apanels + (i / kMR) * kc * kMR;
          float* cp = c + i * ldc + p * kNR;
          if (h == kMR && w == kNR) kernel(kc, apanel, bp, cp, ldc, accumulate);
          else EdgeTile(kc, apanel, bp, cp, ldc, accumulate, h, w, edge);
        }
      }
    }
  });
}

}  // namespace

void SgemmPacked(bool trans_a, int64_t m, const PackedB& b, float alpha, const float* a, int64_t lda, float beta,
                 float* c, int64_t ldc, ThreadPool* pool) {
  if (Degenerate(m, b.n, b.k, alpha, beta, c, ldc)) return;
  if (m < kMR) {
    // The source layout is unknown here (transposed or not), so the packed panels serve as B:
    // each kc × NR panel is row-major over its NR columns. All m rows go through a panel at once
    // so the weights (the whole cost at batch 1) are read once.
    PanelRowsKernel panel_rows = GetDispatch().panel_rows;
    int64_t n_padded = (b.n + kNR - 1) / kNR * kNR;
    int64_t a_row = trans_a ? 1 : lda, a_col = trans_a ? lda : 1;
    auto body = [&](int64_t p0, int64_t p1) {
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
    };
    int64_t panels = n_padded / kNR;
    if (pool) pool->ParallelFor(panels, std::max<int64_t>(1, 2048 / std::max<int64_t>(1, b.k)), body);
    else body(0, panels);
    return;
  }
  if (m <= kMC) {
    ThinPacked(trans_a, m, b, alpha, a, lda, beta, c, ldc, pool);
    return;
  }
  Blocked(trans_a, false, m, b.n, b.k, alpha, a, lda, nullptr, 0, &b, beta, c, ldc, pool);
}

int64_t PackedBFloats(int64_t k, int64_t n) { return k * ((n + kNR - 1) / kNR * kNR); }

void SgemmPrepacked(const PackedA& a, int64_t n, const float* packed_b, float* c, int64_t ldc, const RowEpilogue& ep,
                    ThreadPool* pool) {
  int64_t m = a.m, k = a.k, kblock = a.kc;
  if (m <= 0 || n <= 0 || k <= 0) return;
  MicroKernel kernel = GetDispatch().kernel;
  int64_t n_padded = (n + kNR - 1) / kNR * kNR, m_padded = (m + kMR - 1) / kMR * kMR;
  int threads = pool ? pool->size() : 1;
  // Equal m blocks (a thin last block would leave one thread idle at the end).
  int64_t m_blocks = (m + kMC - 1) / kMC;
  int64_t mc = ((m + m_blocks - 1) / m_blocks + kMR - 1) / kMR * kMR;
  m_blocks = (m + mc - 1) / mc;
  int64_t nc = kNC;
  while (threads > 1 && m_blocks * ((n + nc - 1) / nc) < threads * 4 && nc > kNR * 2) nc /= 2;
  int64_t n_blocks = (n + nc - 1) / nc;
  TileEpilogue tile_ep;
  bool fused = FusableEpilogue(ep, &tile_ep);
  auto tile = [&](int64_t t) {
    alignas(64) float edge[kMR * kNR];
    {
      int64_t i0 = (t / n_blocks) * mc, j0 = (t % n_blocks) * nc;
      int64_t mh = std::min(mc, m - i0), nw = std::min(nc, n - j0);
      for (int64_t k0 = 0; k0 < k; k0 += kblock) {
        int64_t kc = std::min(kblock, k - k0);
        bool accumulate = k0 > 0, fuse = fused && k0 + kc >= k;
        const float* apanels = a.data.data() + k0 * m_padded + (i0 / kMR) * kc * kMR;
        const float* bblock = packed_b + k0 * n_padded;
        for (int64_t j = 0; j < nw; j += kNR) {
          const float* bp = bblock + ((j0 + j) / kNR) * kc * kNR;
          int64_t w = std::min<int64_t>(kNR, nw - j);
          for (int64_t i = 0; i < mh; i += kMR) {
            const float* ap = apanels + (i / kMR) * kc * kMR;
            int64_t h = std::min<int64_t>(kMR, mh - i);
            float* cp = c + (i0 + i) * ldc + j0 + j;
            if (fuse) {
              TileEpilogue te = tile_ep;
              if (te.bias) te.bias += i0 + i;
              FinalTile(kc, ap, bp, cp, ldc, accumulate, h, w, edge, &te);
            } else if (h == kMR && w == kNR) {
              kernel(kc, ap, bp, cp, ldc, accumulate);
            } else {
              EdgeTile(kc, ap, bp, cp, ldc, accumulate, h, w, edge);
            }
          }
        }
      }
      if (fused || ep.empty()) return;
      for (int64_t y = 0; y < mh; ++y) {
        float* row = c + (i0 + y) * ldc + j0;
        if (ep.bias) {
          float bv = ep.bias[i0 + y];
          for (int64_t x = 0; x < nw; ++x) row[x] += bv;
        }
        if (ep.activation) ep.activation(ep.ctx, row, nw);
      }
    }
  };
  ForEachClaimed(pool, m_blocks * n_blocks, tile);
}

namespace {

// One thread, columns [j0, j1) of C: k slices outermost; each slice of B (kc × nb) is packed into
// `slice` right before use, so it is read from L2 by every row block of A, and the C block (m × nb)
// stays in L2 between slices. The epilogue runs on each row block after the last slice.
void BlockKOuter(const PackedA& a, const BRowSource& b, int64_t n, int64_t j0, int64_t j1, float* c, int64_t ldc,
                 const RowEpilogue& ep, float* slice) {
  MicroKernel kernel = GetDispatch().kernel;
  int64_t m = a.m, k = a.k, nb = j1 - j0, m_padded = (m + kMR - 1) / kMR * kMR;
  int64_t nb_padded = (nb + kNR - 1) / kNR * kNR;
  thread_local std::vector<float> row;
  if (!b.direct && row.size() < size_t(nb)) row.resize(size_t(nb));
  TileEpilogue tile_ep;
  bool fused = FusableEpilogue(ep, &tile_ep);
  alignas(64) float edge[kMR * kNR];
  // Few rows of A: packing B would cost about as much as the multiply, so a B that is a plain
  // matrix (pointwise convolutions) is read in place; only a partial last panel is packed.
  bool in_place = b.direct && GetDispatch().kernel_strided && m <= 48;
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
      const float* apanels = a.data.data() + k0 * m_padded + (i0 / kMR) * kc * kMR;
      for (int64_t j = 0; j < nb; j += kNR) {
        const float* bp = slice + ((j - full) / kNR) * kc * kNR;
        int64_t w = std::min<int64_t>(kNR, nb - j);
        for (int64_t i = 0; i < mh; i += kMR) {
          const float* ap = apanels + (i / kMR) * kc * kMR;
          int64_t h = std::min<int64_t>(kMR, mh - i);
          float* cp = c + (i0 + i) * ldc + j;
          if (j < full) {
            TileEpilogue te = tile_ep;
            if (te.bias) te.bias += i0 + i;
            StridedTile(kc, ap, b.direct + k0 * n + j0 + j, n, cp, ldc, accumulate, h, edge, last && fused ? &te : nullptr);
          } else if (last && fused) {
            TileEpilogue te = tile_ep;
            if (te.bias) te.bias += i0 + i;
            FinalTile(kc, ap, bp, cp, ldc, accumulate, h, w, edge, &te);
          } else if (h == kMR && w == kNR) {
            kernel(kc, ap, bp, cp, ldc, accumulate);
          } else {
            EdgeTile(kc, ap, bp, cp, ldc, accumulate, h, w, edge);
          }
        }
      }
      if (!last || fused || ep.empty()) continue;
      for (int64_t y = 0; y < mh; ++y) {
        float* crow = c + (i0 + y) * ldc;
        if (ep.bias) {
          float bv = ep.bias[i0 + y];
          for (int64_t x = 0; x < nb; ++x) crow[x] += bv;
        }
        if (ep.activation) ep.activation(ep.ctx, crow, nb);
      }
    }
  }
}

}  // namespace

void SgemmPrepackedRows(const PackedA& a, int64_t n, const BRowSource& b, float* c, int64_t ldc, const RowEpilogue& ep,
                        float* b_buffer, ThreadPool* pool) {
  int64_t k = a.k;
  if (a.m <= 0 || n <= 0 || k <= 0) return;
  int threads = pool ? pool->size() : 1;
  // Column block width: a k slice of B (kc × nb) and the C block (m × nb) each within about a
  // quarter of a typical L2; then equal blocks.
  int64_t nb = std::max<int64_t>(kNR, std::min<int64_t>({kNC, 65536 / a.kc, 65536 / std::max<int64_t>(1, a.m)}));
  int64_t blocks = (n + nb - 1) / nb;
  // Shared by several threads: a multiple of the thread count (no thread one block behind).
  if (threads > 1 && blocks >= 2 * threads) blocks = (blocks + threads - 1) / threads * threads;
  nb = ((n + blocks - 1) / blocks + kNR - 1) / kNR * kNR;
  blocks = (n + nb - 1) / nb;
  if (threads > 1 && blocks < 2 * threads) {
    // Too few column blocks to share: pack all of B (rows in parallel), then split the tiles.
    int64_t n_padded = (n + kNR - 1) / kNR * kNR;
    auto pack = [&](int64_t r0, int64_t r1) {
      thread_local std::vector<float> row;
      if (!b.direct && row.size() < size_t(n)) row.resize(size_t(n));
      for (int64_t r = r0; r < r1; ++r) {
        int64_t k0 = r / a.kc * a.kc, kcb = std::min(a.kc, k - k0);
        const float* src = b.direct ? b.direct + r * n : row.data();
        if (!b.direct) b.fill(b.ctx, r, 0, n, row.data());
        ScatterRow(src, n, n_padded, b_buffer + k0 * n_padded + (r - k0) * kNR, kcb * kNR);
      }
    };
    pool->ParallelFor(k, std::max<int64_t>(1, 4096 / n), pack);
    SgemmPrepacked(a, n, b_buffer, c, ldc, ep, pool);
    return;
  }
  ForEachClaimed(pool, blocks, [&](int64_t q) {
    thread_local std::vector<float> slice;
    size_t need = size_t(PackedBFloats(a.kc, nb));
    if (slice.size() < need) slice.resize(need);
    int64_t j0 = q * nb, j1 = std::min(n, j0 + nb);
    BlockKOuter(a, b, n, j0, j1, c + j0, ldc, ep, slice.data());
  });
}

bool SgemmImplicit(const PackedA& a, int64_t n, const float* x, const int64_t* offs, float* c, int64_t ldc,
                   const RowEpilogue& ep, ThreadPool* pool) {
  MicroKernelIndirect kernel = GetDispatch().kernel_indirect;
  if (!kernel) return false;
  int64_t m = a.m, k = a.k, m_padded = (m + kMR - 1) / kMR * kMR;
  if (m <= 0 || n <= 0 || k <= 0) return true;
  TileEpilogue tile_ep;
  bool fused = FusableEpilogue(ep, &tile_ep);
  // Column blocks as in the packed path (the C block stays in L2 across k slices).
  int threads = pool ? pool->size() : 1;
  int64_t nb = std::max<int64_t>(kNR, std::min<int64_t>({kNC, 65536 / std::max<int64_t>(1, m)}) / kNR * kNR);
  int64_t blocks = (n + nb - 1) / nb;
  if (threads > 1) {
    // At least four blocks per thread and a multiple of the thread count, so that no thread is
    // left with one block more than the others at the end (7 blocks on 2 threads idle one an eighth).
    int64_t want = std::max<int64_t>(blocks, 4 * threads);
    want = (want + threads - 1) / threads * threads;
    nb = std::max<int64_t>(4 * kNR, ((n + want - 1) / want + kNR - 1) / kNR * kNR);
    blocks = (n + nb - 1) / nb;
  }
  ForEachClaimed(pool, blocks, [&](int64_t q) {
    int64_t j0 = q * nb, nbw = std::min(nb, n - j0);
    alignas(64) float edge[kMR * kNR];
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
        const float* apanels = a.data.data() + k0 * m_padded + (i0 / kMR) * kc * kMR;
        for (int64_t j = 0; j < nbw; j += kNR) {
          int64_t w = std::min<int64_t>(kNR, nbw - j);
          for (int64_t i = 0; i < mh; i += kMR) {
            const float* ap = apanels + (i / kMR) * kc * kMR;
            int64_t h = std::min<int64_t>(kMR, mh - i);
            float* cp = c + (i0 + i) * ldc + j0 + j;
            TileEpilogue te = tile_ep;
            if (te.bias) te.bias += i0 + i;
            const TileEpilogue* tep = last && fused ? &te : nullptr;
            if (j < full) {
              if (h == kMR) {
                kernel(kc, ap, x + j0 + j, offs + k0, cp, ldc, accumulate, tep);
              } else {
                kernel(kc, ap, x + j0 + j, offs + k0, edge, kNR, false, nullptr);
                for (int64_t y = 0; y < h; ++y)
                  for (int64_t x2 = 0; x2 < kNR; ++x2)
                    cp[y * ldc + x2] = accumulate ? cp[y * ldc + x2] + edge[y * kNR + x2] : edge[y * kNR + x2];
                if (tep) ApplyTileEpilogue(*tep, cp, ldc, h, kNR);
              }
            } else {
              FinalTile(kc, ap, tail.data(), cp, ldc, accumulate, h, w, edge, tep);
            }
          }
        }
        if (!last || fused || ep.empty()) continue;
        for (int64_t y = 0; y < mh; ++y) {
          float* crow = c + (i0 + y) * ldc + j0;
          if (ep.bias) {
            float bv = ep.bias[i0 + y];
            for (int64_t x2 = 0; x2 < nbw; ++x2) crow[x2] += bv;
          }
          if (ep.activation) ep.activation(ep.ctx, crow, nbw);
        }
      }
    }
  });
  return true;
}

}  // namespace gebe::cpu
