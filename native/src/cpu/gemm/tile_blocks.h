// Block kernels (sgemm_kernels.h) assembled from fixed 6×16 tile kernels, for ISAs whose kernels
// have no masked edges (portable, AVX2, NEON): full tiles go straight to C, partial ones through a
// scratch tile. Included by those ISAs' files, so each instantiation is compiled with its tiles.
#pragma once

#include <algorithm>

#include "cpu/gemm/sgemm_kernels.h"

namespace gebe::cpu::gemm_detail {

// c[0..MR)[0..NR) (row stride ldc) = (accumulate ? c : 0) + sum_q a[q*MR + i] * b[q*NR + j]
using TileKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool accumulate);
// The same tile with its epilogue applied in registers.
using TileKernelEpi = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, bool accumulate,
                               const TileEpilogue& ep);
// The tile reading row q of B at b + q·ldb (in place); ep may be null.
using TileKernelStrided = void (*)(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                                   bool accumulate, const TileEpilogue* ep);
// The tile reading row q of B at b + offs[q]; ep may be null.
using TileKernelIndirect = void (*)(int64_t kc, const float* a, const float* b, const int64_t* offs, float* c,
                                    int64_t ldc, bool accumulate, const TileEpilogue* ep);

// Adds (or copies) an h × w scratch tile (row stride NR) into C.
inline void MergeEdge(const float* edge, float* c, int64_t ldc, bool accumulate, int64_t h, int64_t w) {
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) c[y * ldc + x] = accumulate ? c[y * ldc + x] + edge[y * kNR + x] : edge[y * kNR + x];
}

// K8 (may be null) is a 6×8 tile: output edges of at most 8 columns cost half a full tile.
template <TileKernel K, TileKernel K8, TileKernelEpi KE>
void PackedBlockFromTiles(int64_t kc, const float* a, int64_t mh, const float* b, int64_t nw, float* c, int64_t ldc,
                          bool accumulate, const TileEpilogue* ep) {
  alignas(64) float edge[kMR * kNR];
  for (int64_t j = 0; j < nw; j += kNR) {
    const float* bp = b + (j / kNR) * kc * kNR;
    int64_t w = std::min<int64_t>(kNR, nw - j);
    for (int64_t i = 0; i < mh; i += kMR) {
      const float* ap = a + (i / kMR) * kc * kMR;
      int64_t h = std::min<int64_t>(kMR, mh - i);
      float* cp = c + i * ldc + j;
      TileEpilogue te;
      if (ep) {
        te = *ep;
        if (te.bias) te.bias += i;
      }
      if (h == kMR && w == kNR) {
        if (ep && KE) {
          KE(kc, ap, bp, cp, ldc, accumulate, te);
          continue;
        }
        K(kc, ap, bp, cp, ldc, accumulate);
      } else if (K8 && h == kMR && w == kNR / 2) {
        K8(kc, ap, bp, cp, ldc, accumulate);
      } else {
        (K8 && w <= kNR / 2 ? K8 : K)(kc, ap, bp, edge, kNR, false);
        MergeEdge(edge, cp, ldc, accumulate, h, w);
      }
      if (ep) ApplyTileEpilogue(te, cp, ldc, h, w);
    }
  }
}

template <TileKernelStrided K>
void StridedBlockFromTiles(int64_t kc, const float* a, int64_t mh, const float* b, int64_t ldb, int64_t nw, float* c,
                           int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  alignas(64) float edge[kMR * kNR];
  for (int64_t j = 0; j < nw; j += kNR) {
    for (int64_t i = 0; i < mh; i += kMR) {
      const float* ap = a + (i / kMR) * kc * kMR;
      int64_t h = std::min<int64_t>(kMR, mh - i);
      float* cp = c + i * ldc + j;
      TileEpilogue te;
      if (ep) {
        te = *ep;
        if (te.bias) te.bias += i;
      }
      if (h == kMR) {
        K(kc, ap, b + j, ldb, cp, ldc, accumulate, ep ? &te : nullptr);
        continue;
      }
      K(kc, ap, b + j, ldb, edge, kNR, false, nullptr);
      MergeEdge(edge, cp, ldc, accumulate, h, kNR);
      if (ep) ApplyTileEpilogue(te, cp, ldc, h, kNR);
    }
  }
}

template <TileKernelIndirect K>
void IndirectBlockFromTiles(int64_t kc, const float* a, int64_t mh, const float* b, const int64_t* offs, int64_t nw,
                            float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  alignas(64) float edge[kMR * kNR];
  for (int64_t j = 0; j < nw; j += kNR) {
    for (int64_t i = 0; i < mh; i += kMR) {
      const float* ap = a + (i / kMR) * kc * kMR;
      int64_t h = std::min<int64_t>(kMR, mh - i);
      float* cp = c + i * ldc + j;
      TileEpilogue te;
      if (ep) {
        te = *ep;
        if (te.bias) te.bias += i;
      }
      if (h == kMR) {
        K(kc, ap, b + j, offs, cp, ldc, accumulate, ep ? &te : nullptr);
        continue;
      }
      K(kc, ap, b + j, offs, edge, kNR, false, nullptr);
      MergeEdge(edge, cp, ldc, accumulate, h, kNR);
      if (ep) ApplyTileEpilogue(te, cp, ldc, h, kNR);
    }
  }
}

}  // namespace gebe::cpu::gemm_detail
