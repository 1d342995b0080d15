#include "cpu/gemm/sgemm_pack.h"

#include <algorithm>
#include <cstring>

#include "cpu/isa.h"

namespace gebe::cpu {

namespace gemm_detail {

// Defined beside the packing (not the drivers): PackPanelsA calls the ISA's row packer, and the
// kernel tests link the packing without the drivers.
const Kernels& ActiveKernels() {
  static const Kernels& k = [] () -> const Kernels& {
    const Kernels* table = nullptr;
    switch (ActiveIsa()) {
      case Isa::kAvx512: table = Avx512Kernels(); break;
      case Isa::kAvx2: table = Avx2Kernels(); break;
      default: table = NeonKernels(); break;
    }
    return table ? *table : *PortableKernels();
  }();
  return k;
}

int64_t BalancedKc(int64_t k) {
  int64_t blocks = (k + kKC - 1) / kKC;
  return (k + blocks - 1) / blocks;
}

TaskBlocks SplitForThreads(int64_t m, int64_t n, int threads, int64_t row_tile, int64_t min_cols) {
  TaskBlocks t;
  t.m_blocks = (m + kMC - 1) / kMC;
  t.mc = PadTo((m + t.m_blocks - 1) / t.m_blocks, row_tile);
  t.m_blocks = (m + t.mc - 1) / t.mc;
  t.nc = kNC;
  while (threads > 1 && t.m_blocks * ((n + t.nc - 1) / t.nc) < threads * 4 && t.nc > min_cols) t.nc /= 2;
  t.n_blocks = (n + t.nc - 1) / t.nc;
  return t;
}

// Rows are walked in the outer loop so B is read sequentially, not panel by panel down its
// columns (which strides through memory by a whole row per load).
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

void PackPanelsA(bool trans_a, const float* a, int64_t lda, int64_t i0, int64_t mc, int64_t k0, int64_t kc, float alpha,
                 float* out) {
  PackRowsAKernel pack_rows = ActiveKernels().pack_rows_a;
  for (int64_t i = 0; i < mc; i += kMR) {
    int64_t h = std::min<int64_t>(kMR, mc - i);
    float* dst = out + (i / kMR) * kc * kMR;
    if (!trans_a && h == kMR) {
      const float* rows = a + (i0 + i) * lda + k0;
      if (pack_rows) {
        pack_rows(kc, rows, lda, alpha, dst);
      } else {
        // A fixed row count, so the compiler unrolls the panel's column.
        for (int64_t k = 0; k < kc; ++k)
          for (int64_t y = 0; y < kMR; ++y) dst[k * kMR + y] = rows[y * lda + k] * alpha;
      }
      continue;
    }
    // Element by element: op(A)[r][q] is a[q·row_step + r·col_step] from the panel's corner.
    const float* corner = trans_a ? a + k0 * lda + i0 + i : a + (i0 + i) * lda + k0;
    int64_t q_step = trans_a ? lda : 1, y_step = trans_a ? 1 : lda;
    for (int64_t k = 0; k < kc; ++k) {
      float* col = dst + k * kMR;
      for (int64_t y = 0; y < h; ++y) col[y] = corner[k * q_step + y * y_step] * alpha;
      for (int64_t y = h; y < kMR; ++y) col[y] = 0.f;
    }
  }
}

// Whole panels move as fixed 64-byte copies.
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

bool FusableEpilogue(const RowEpilogue& ep, TileEpilogue* out, bool residual_in_tiles) {
  if (ep.activation || (ep.has_residual && !residual_in_tiles)) return false;
  if (ep.bias == nullptr && ep.clamp == RowEpilogue::kNone && !ep.has_residual) return false;
  out->residual = ep.has_residual;
  out->residual_bytes = ep.residual_bytes;
  out->bias = ep.bias;
  out->clamp = ep.clamp == RowEpilogue::kRelu   ? TileEpilogue::kRelu
               : ep.clamp == RowEpilogue::kClip ? TileEpilogue::kClip
                                                : TileEpilogue::kNone;
  out->lo = ep.lo;
  out->hi = ep.hi;
  return true;
}

namespace {

// One pass over each row: bias, residual, clamp, in that order per value (an absent bias adds
// nothing, not +0, which would turn -0 into +0). Three passes, one per step, read and wrote each
// row three times: the residual convs of ResNet-50 spent a third of their GEMM time here.
constexpr int64_t kAhead = 2;  // rows of residual requested ahead of the one being added
template <bool kBias, bool kResidual>
void RowSteps(const RowEpilogue& ep, const TileEpilogue& clamp, float* c, int64_t ldc, int64_t h, int64_t w) {
  for (int64_t y = 0; y < h; ++y) {
    float* __restrict row = c + y * ldc;
    const float bv = kBias ? ep.bias[y] : 0.f;
    const float* __restrict residual = reinterpret_cast<const float*>(reinterpret_cast<std::uintptr_t>(row) + ep.residual_bytes);
    if (kResidual && y + kAhead < h) {
      // The residual was written layers ago and its rows are short runs ldc apart, which the
      // hardware prefetcher does not follow: ask for the row after next while this one runs.
      const char* ahead = reinterpret_cast<const char*>(residual + kAhead * ldc);
      for (int64_t off = 0; off < w * int64_t(sizeof(float)); off += 64) __builtin_prefetch(ahead + off);
    }
    if (clamp.clamp == TileEpilogue::kRelu) {
      for (int64_t x = 0; x < w; ++x) {
        float v = row[x];
        if (kBias) v += bv;
        if (kResidual) v += residual[x];
        row[x] = v > clamp.lo ? v : clamp.lo;
      }
    } else {
      for (int64_t x = 0; x < w; ++x) {
        float v = row[x];
        if (kBias) v += bv;
        if (kResidual) v += residual[x];
        row[x] = ClampValue(clamp, v);
      }
    }
    if (ep.activation) ep.activation(ep.ctx, row, w);
  }
}

}  // namespace

void ApplyRowEpilogue(const RowEpilogue& ep, float* c, int64_t ldc, int64_t h, int64_t w) {
  // A clamp reaches here only with a residual (otherwise the tiles applied it): the tiles' order.
  TileEpilogue clamp;
  clamp.clamp = ep.clamp == RowEpilogue::kRelu ? TileEpilogue::kRelu : ep.clamp == RowEpilogue::kClip ? TileEpilogue::kClip : TileEpilogue::kNone;
  clamp.lo = ep.lo;
  clamp.hi = ep.hi;
  if (ep.bias && ep.has_residual) return RowSteps<true, true>(ep, clamp, c, ldc, h, w);
  if (ep.bias) return RowSteps<true, false>(ep, clamp, c, ldc, h, w);
  if (ep.has_residual) return RowSteps<false, true>(ep, clamp, c, ldc, h, w);
  if (clamp.clamp != TileEpilogue::kNone) return RowSteps<false, false>(ep, clamp, c, ldc, h, w);
  if (ep.activation)
    for (int64_t y = 0; y < h; ++y) ep.activation(ep.ctx, c + y * ldc, w);
}

}  // namespace gemm_detail

using namespace gemm_detail;

PackedA PackA(int64_t m, int64_t k, const float* a, int64_t lda) {
  PackedA packed;
  packed.m = m;
  packed.k = k;
  packed.source = a;
  packed.kc = BalancedKc(k);
  int64_t m_padded = PadTo(m, kMR);
  packed.data.resize(size_t(k * m_padded));
  for (int64_t k0 = 0; k0 < k; k0 += packed.kc) {
    int64_t kc = std::min(packed.kc, k - k0);
    PackPanelsA(false, a, lda, 0, m, k0, kc, 1.f, packed.data.data() + k0 * m_padded);
  }
  return packed;
}

PackedB PackB(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb) {
  PackedB packed;
  packed.k = k;
  packed.n = n;
  packed.source = b;
  packed.kc = BalancedKc(k);
  int64_t n_padded = PadTo(n, kNR);
  packed.data.resize(size_t(k * n_padded));
  for (int64_t k0 = 0; k0 < k; k0 += packed.kc) {
    int64_t kc = std::min(packed.kc, k - k0);
    PackPanelsB(trans_b, b, ldb, k0, kc, 0, n, packed.data.data() + k0 * n_padded);
  }
  return packed;
}

int64_t PackedBFloats(int64_t k, int64_t n) { return k * PadTo(n, kNR); }

}  // namespace gebe::cpu
