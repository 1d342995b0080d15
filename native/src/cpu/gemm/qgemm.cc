// The integer GEMM's driver: picks the kernel table, packs the constant weights, and walks weight
// panels over a block of packed columns. Packing B (im2col on UINT8, zero-point padded) is the
// caller's (ops/quantized_conv.cc), which knows the convolution's geometry.
#include <algorithm>
#include <cstring>

#include "cpu/gemm/qgemm_kernels.h"
#include "cpu/isa.h"

namespace gebe::cpu {

namespace qgemm_detail {

bool CpuSupportsVnni() {
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  return CpuSupports(Isa::kAvx512) && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

const Kernels& ActiveKernels() {
  static const Kernels* chosen = [] {
    Isa isa = ActiveIsa();
    if (isa == Isa::kAvx512 && Avx512VnniKernels() && CpuSupportsVnni()) return Avx512VnniKernels();
    // AVX-512 without VNNI runs the AVX2 kernels: vpmaddwd is what both have.
    if ((isa == Isa::kAvx512 || isa == Isa::kAvx2) && Avx2Kernels()) return Avx2Kernels();
    return PortableKernels();
  }();
  return *chosen;
}

size_t PanelBytes(const Kernels& kernels, int64_t m, int64_t k) {
  size_t panels = size_t((m + kQMR - 1) / kQMR);
  return std::max<size_t>(1, panels * size_t(QuadsOf(k) * kQMR * 4) * (kernels.a16 ? 2 : 1));
}

void PackWeightPanels(const Kernels& kernels, const int8_t* w, int64_t m, int64_t k, void* out) {
  std::memset(out, 0, PanelBytes(kernels, m, k));
  size_t panel_elems = size_t(QuadsOf(k) * kQMR * 4);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t kk = 0; kk < k; ++kk) {
      size_t at = size_t(r / kQMR) * panel_elems + size_t(((kk / 4) * kQMR + r % kQMR) * 4 + kk % 4);
      if (kernels.a16) static_cast<int16_t*>(out)[at] = w[r * k + kk];
      else static_cast<int8_t*>(out)[at] = w[r * k + kk];
    }
}

}  // namespace qgemm_detail

using qgemm_detail::ActiveKernels;

QgemmWeights PackQgemmWeights(const void* w, bool w_signed, int64_t m, int64_t k, const void* zw, int64_t zw_count) {
  const auto& kernels = ActiveKernels();
  QgemmWeights out;
  out.m = m;
  out.k = k;
  out.row_sums.assign(size_t(m), 0);
  out.zero_points.assign(size_t(m), 0);
  auto value = [&](const void* p, int64_t i) {
    return w_signed ? int32_t(static_cast<const int8_t*>(p)[i]) : int32_t(static_cast<const uint8_t*>(p)[i]) - 128;
  };
  for (int64_t r = 0; r < m; ++r) {
    if (zw && zw_count > 0) out.zero_points[size_t(r)] = value(zw, zw_count == 1 ? 0 : r);
    else out.zero_points[size_t(r)] = w_signed ? 0 : -128;  // an absent UINT8 zero point is 0, i.e. -128 once shifted
    out.any_zero_point = out.any_zero_point || out.zero_points[size_t(r)] != 0;
  }
  std::vector<int8_t> normalised(size_t(m * k));
  for (int64_t r = 0; r < m; ++r) {
    int32_t sum = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      int32_t v = value(w, r * k + kk);
      sum += v;
      normalised[size_t(r * k + kk)] = int8_t(v);
    }
    out.row_sums[size_t(r)] = sum;
  }
  out.packed = std::make_shared<AlignedBuffer>(qgemm_detail::PanelBytes(kernels, m, k));
  qgemm_detail::PackWeightPanels(kernels, normalised.data(), m, k, out.packed->data());
  return out;
}

void QgemmPacked(const QgemmWeights& w, int64_t row0, int64_t rows, const uint8_t* b, int64_t n, int32_t* c, int64_t ldc) {
  const auto& kernels = ActiveKernels();
  int64_t quads = QuadsOf(w.k);
  size_t panel_bytes = size_t(quads * kQMR * 4) * (kernels.a16 ? 2 : 1);
  const auto* base = static_cast<const uint8_t*>(w.packed->data());
  // row0 is a multiple of kQMR (callers split rows by panels).
  for (int64_t r = 0; r < rows; r += kQMR) {
    const uint8_t* panel = base + size_t((row0 + r) / kQMR) * panel_bytes;
    kernels.block(quads, panel, std::min<int64_t>(kQMR, rows - r), b, n, c + r * ldc, ldc);
  }
}

void QgemmColumnSums(const uint8_t* b, int64_t k, int64_t n, int32_t* sums) {
  int64_t quads = QuadsOf(k);
  for (int64_t j = 0; j < n; ++j) {
    const uint8_t* col = b + (j / kQNR) * quads * kQNR * 4 + (j % kQNR) * 4;
    int32_t s = 0;
    for (int64_t q = 0; q < quads; ++q) s += col[q * kQNR * 4] + col[q * kQNR * 4 + 1] + col[q * kQNR * 4 + 2] + col[q * kQNR * 4 + 3];
    sums[j] = s;
  }
}

void QgemmRequantize(const int32_t* acc, int64_t lda, int64_t rows, int64_t n, const QgemmRequant& rq, uint8_t* out, int64_t ldo) {
  const auto& kernels = ActiveKernels();
  for (int64_t r = 0; r < rows; ++r) kernels.requantize(acc + r * lda, n, rq, r, out + r * ldo);
}

const char* QgemmIsa() { return ActiveKernels().isa; }

}  // namespace gebe::cpu
