#include "cpu/gemm/sgemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/engine.h"

namespace gebe::cpu {

using namespace gemm_detail;

namespace {

constexpr int64_t kKC = 256;
constexpr int64_t kMC = 72;   // multiple of kMR
constexpr int64_t kNC = 512;  // multiple of kNR

struct Dispatch {
  MicroKernel kernel = MicroKernelPortable;
  const char* isa = "portable";
  Dispatch() {
    if (MicroKernel k = MicroKernelNeon()) {
      kernel = k;
      isa = "neon";
    }
    if (CpuHasAvx2Fma()) {
      if (MicroKernel k = MicroKernelAvx2()) {
        kernel = k;
        isa = "avx2+fma";
      }
    }
  }
};

const Dispatch& GetDispatch() {
  static Dispatch d;
  return d;
}

// Packs op(B)[k0:k0+kc, j0:j0+NR) panels: panel p holds kc rows of NR floats (zero-padded).
void PackB(bool trans_b, const float* b, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  for (int64_t j = 0; j < nc; j += kNR) {
    int64_t w = std::min<int64_t>(kNR, nc - j);
    float* dst = out + (j / kNR) * kc * kNR;
    for (int64_t k = 0; k < kc; ++k) {
      float* row = dst + k * kNR;
      if (!trans_b) {
        const float* src = b + (k0 + k) * ldb + j0 + j;
        if (w == kNR) std::memcpy(row, src, sizeof(float) * kNR);
        else {
          for (int64_t x = 0; x < w; ++x) row[x] = src[x];
          for (int64_t x = w; x < kNR; ++x) row[x] = 0.f;
        }
      } else {
        for (int64_t x = 0; x < w; ++x) row[x] = b[(j0 + j + x) * ldb + k0 + k];
        for (int64_t x = w; x < kNR; ++x) row[x] = 0.f;
      }
    }
  }
}

// Packs alpha * op(A)[i0:i0+mc, k0:k0+kc] into MR-row panels: panel p holds kc columns of MR floats.
void PackA(bool trans_a, const float* a, int64_t lda, int64_t i0, int64_t mc, int64_t k0, int64_t kc, float alpha,
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

}  // namespace

namespace gemm_detail {
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

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc, ThreadPool* pool) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || alpha == 0.f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.f ? 0.f : c[i * ldc + j] * beta;
    return;
  }
  if (m * n * k < 8192 || (m < 4 && n < 32)) {
    SmallGemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  if (beta != 0.f && beta != 1.f) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] *= beta;
  }
  MicroKernel kernel = GetDispatch().kernel;
  int64_t n_padded = (n + kNR - 1) / kNR * kNR;
  std::vector<float> packed_b(size_t(std::min(kKC, k) * n_padded));
  int threads = pool ? pool->size() : 1;
  // Tile the output so every thread gets work even when m is small (convolutions: m = channels).
  int64_t mc = kMC, nc = kNC;
  int64_t m_blocks = (m + mc - 1) / mc;
  while (m_blocks * ((n + nc - 1) / nc) < threads * 2 && nc > kNR * 4) nc /= 2;
  nc = std::max<int64_t>(kNR, nc / kNR * kNR);
  int64_t n_blocks = (n + nc - 1) / nc;

  for (int64_t k0 = 0; k0 < k; k0 += kKC) {
    int64_t kc = std::min(kKC, k - k0);
    bool accumulate = k0 > 0 || beta != 0.f;
    int64_t panels = n_padded / kNR;
    auto pack = [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int64_t j = p * kNR;
        PackB(trans_b, b, ldb, k0, kc, j, std::min<int64_t>(kNR, n - j), packed_b.data() + p * kc * kNR);
      }
    };
    if (pool) pool->ParallelFor(panels, 8, pack);
    else pack(0, panels);

    auto tile = [&](int64_t t0, int64_t t1) {
      thread_local std::vector<float> packed_a;
      packed_a.resize(size_t(kMC * kKC));
      alignas(64) float edge[kMR * kNR];
      for (int64_t t = t0; t < t1; ++t) {
        int64_t i0 = (t / n_blocks) * mc, j0 = (t % n_blocks) * nc;
        int64_t mh = std::min(mc, m - i0), nw = std::min(nc, n - j0);
        PackA(trans_a, a, lda, i0, mh, k0, kc, alpha, packed_a.data());
        for (int64_t j = 0; j < nw; j += kNR) {
          const float* bp = packed_b.data() + ((j0 + j) / kNR) * kc * kNR;
          int64_t w = std::min<int64_t>(kNR, nw - j);
          for (int64_t i = 0; i < mh; i += kMR) {
            const float* ap = packed_a.data() + (i / kMR) * kc * kMR;
            int64_t h = std::min<int64_t>(kMR, mh - i);
            float* cp = c + (i0 + i) * ldc + j0 + j;
            if (h == kMR && w == kNR) {
              kernel(kc, ap, bp, cp, ldc, accumulate);
            } else {
              kernel(kc, ap, bp, edge, kNR, false);
              for (int64_t y = 0; y < h; ++y)
                for (int64_t x = 0; x < w; ++x) {
                  float v = edge[y * kNR + x];
                  cp[y * ldc + x] = accumulate ? cp[y * ldc + x] + v : v;
                }
            }
          }
        }
      }
    };
    if (pool) pool->ParallelFor(m_blocks * n_blocks, 1, tile);
    else tile(0, m_blocks * n_blocks);
  }
}

}  // namespace gebe::cpu
