// Tests of every integer GEMM block kernel (qgemm_kernels.h) of every ISA this CPU runs, against
// an exact int64 reference: every row count 1..8 of a weight panel, column counts 1..70 (whole and
// partial B panels and tiles), K 1..40 and deep K, random values and the extremes (255 × -128,
// 255 × 127 in every product: what vpmaddubsw's saturating pairs would get wrong). An ISA the CPU
// lacks is reported as skipped. run-asan.sh builds it with the sanitizers.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cpu/gemm/qgemm_kernels.h"
#include "cpu/isa.h"

#include "check.h"

using namespace gebe::cpu;
using namespace gebe::cpu::qgemm_detail;

namespace {

// B (k × n, row-major UINT8) as packed panels.
std::vector<uint8_t> PackB(const std::vector<uint8_t>& b, int64_t k, int64_t n) {
  std::vector<uint8_t> out(QgemmPackedBytes(k, n), 0);
  int64_t panel_stride = QuadsOf(k) * kQNR * 4;
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) out[size_t((j / kQNR) * panel_stride + ((kk / 4) * kQNR + j % kQNR) * 4 + kk % 4)] = b[size_t(kk * n + j)];
  return out;
}

enum class Fill { kRandom, kMinWeights, kMaxWeights };

void RunCase(const Kernels& kernels, int64_t mh, int64_t n, int64_t k, Fill fill, std::mt19937& rng) {
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  std::vector<int8_t> a(size_t(mh * k));
  std::vector<uint8_t> b(size_t(k * n));
  for (auto& x : a) x = int8_t(fill == Fill::kRandom ? s8(rng) : fill == Fill::kMinWeights ? -128 : 127);
  for (auto& x : b) x = uint8_t(fill == Fill::kRandom ? u8(rng) : 255);
  std::vector<uint8_t> panels(PanelBytes(kernels, mh, k));
  PackWeightPanels(kernels, a.data(), mh, k, panels.data());
  std::vector<uint8_t> bp = PackB(b, k, n);
  int64_t ldc = n + 5;
  std::vector<int32_t> c(size_t(mh * ldc), 12345);
  kernels.block(QuadsOf(k), panels.data(), mh, bp.data(), n, c.data(), ldc);
  int bad = 0;
  for (int64_t i = 0; i < mh; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      int64_t want = 12345;  // columns past n are left alone
      if (j < n) {
        want = 0;
        for (int64_t q = 0; q < k; ++q) want += int64_t(a[size_t(i * k + q)]) * b[size_t(q * n + j)];
      }
      if (c[size_t(i * ldc + j)] != want) bad++;
    }
  }
  Check(bad == 0, std::string(kernels.isa) + " mh=" + std::to_string(mh) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                      " fill=" + std::to_string(int(fill)) + ": " + std::to_string(bad) + " wrong");
}

void TestKernels(const Kernels& kernels) {
  std::mt19937 rng(7);
  int cases = 0;
  for (int64_t mh = 1; mh <= kQMR; ++mh)
    for (int64_t n : {1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 70})
      for (int64_t k : {1, 2, 3, 4, 5, 9, 27, 40}) {
        RunCase(kernels, mh, n, k, Fill::kRandom, rng);
        cases++;
      }
  for (Fill fill : {Fill::kRandom, Fill::kMinWeights, Fill::kMaxWeights})
    for (int64_t k : {576, 1153, 4096}) {
      RunCase(kernels, kQMR, 50, k, fill, rng);
      RunCase(kernels, 3, 17, k, fill, rng);
      cases += 2;
    }
  std::printf("qgemm %s: %d cases\n", kernels.isa, cases);
}

}  // namespace

int main() {
  cpu_test::print_limit = 20;
  TestKernels(*PortableKernels());
  if (Avx2Kernels() && CpuSupports(Isa::kAvx2)) TestKernels(*Avx2Kernels());
  else std::printf("qgemm avx2: skipped (this CPU has no AVX2)\n");
  if (Avx512VnniKernels() && CpuSupportsVnni()) TestKernels(*Avx512VnniKernels());
  else std::printf("qgemm avx512vnni: skipped (this CPU has no AVX-512 VNNI)\n");
  if (failures) std::fprintf(stderr, "%d qgemm kernel checks failed\n", failures);
  return failures ? 1 : 0;
}
