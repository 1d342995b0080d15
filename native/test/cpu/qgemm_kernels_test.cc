// Tests of every integer GEMM block kernel (qgemm_kernels.h) of every ISA this CPU runs, against
// an exact int64 reference: every row count 1..8 of a weight panel, column counts 1..70 (whole and
// partial B panels and tiles), K 1..40 and deep K, random values and the extremes (255 × -128,
// 255 × 127 in every product: what vpmaddubsw's saturating pairs would get wrong). An ISA the CPU
// lacks is reported as skipped. Also each ISA's requantisation row (TestRequantize), and the
// transposed tile and column requantisation where the ISA has them (TestTransposed). run-asan.sh builds it with the sanitizers.
#include <climits>
#include <cmath>
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

// The transposed tile (AVX-512 VNNI only): rows 1..kQTRows positions × v 1..4 vectors of 16
// channels, taps 1..3 at scattered offsets into a channels-last buffer, 1..5 quads per tap, random
// values and the extremes, against an int64 reference over the same layout.
int RunTransposedCase(const Kernels& kernels, int64_t rows, int64_t v, int64_t taps, int64_t cquads, Fill fill, std::mt19937& rng) {
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  const int64_t c4 = cquads * 4, cols = v * 16, row_stride = c4 * 3 + 4;  // positions not contiguous
  std::vector<int64_t> offsets(static_cast<size_t>(taps));
  for (int64_t t = 0; t < taps; ++t) offsets[size_t(t)] = t * (row_stride * kQTRows + 8);
  std::vector<uint8_t> x(size_t(offsets.back() + row_stride * kQTRows + c4));
  for (auto& e : x) e = uint8_t(fill == Fill::kRandom ? u8(rng) : 255);
  std::vector<int8_t> w(size_t(taps * cquads * cols * 4));
  for (auto& e : w) e = int8_t(fill == Fill::kRandom ? s8(rng) : fill == Fill::kMinWeights ? -128 : 127);
  const uint8_t* x_rows[kQTRows];
  for (int64_t r = 0; r < rows; ++r) x_rows[r] = x.data() + r * row_stride;
  const int64_t ldc = kQTCols + 3;
  std::vector<int32_t> c(size_t(kQTRows * ldc), 12345);
  kernels.transposed_tile(x_rows, rows, offsets.data(), taps, cquads, w.data(), v, c.data(), ldc);
  int bad = 0;
  for (int64_t r = 0; r < kQTRows; ++r)
    for (int64_t j = 0; j < ldc; ++j) {
      int64_t want = 12345;  // rows past `rows` and columns past v · 16 are left alone
      if (r < rows && j < cols) {
        want = 0;
        for (int64_t t = 0; t < taps; ++t)
          for (int64_t q = 0; q < c4; ++q)
            want += int64_t(x[size_t(r * row_stride + offsets[size_t(t)] + q)]) * w[size_t(((t * cquads + q / 4) * cols + j) * 4 + q % 4)];
      }
      if (c[size_t(r * ldc + j)] != want) bad++;
    }
  Check(bad == 0, std::string(kernels.isa) + " transposed rows=" + std::to_string(rows) + " v=" + std::to_string(v) + " taps=" +
                      std::to_string(taps) + " cquads=" + std::to_string(cquads) + " fill=" + std::to_string(int(fill)) + ": " +
                      std::to_string(bad) + " wrong");
  return 1;
}

// The column requantisation against the portable row run on one column at a time (its per-row
// values taken from the column's entries): both forms, both output types, NaN and infinite scales.
int RunRequantizeColumnsCase(const Kernels& kernels, int64_t rows, int64_t n, bool qdq, bool is_signed, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> acc_d(-600, 600), any(INT32_MIN, INT32_MAX);
  std::uniform_real_distribution<float> mul_d(0.001f, 2.f);
  const int64_t lda = n + 2, ldo = n + 3;
  std::vector<int32_t> acc(static_cast<size_t>(rows * lda)), add(static_cast<size_t>(n));
  std::vector<float> mul(static_cast<size_t>(n)), bias(static_cast<size_t>(n));
  for (auto& e : acc) e = acc_d(rng) % 7 == 6 ? any(rng) : acc_d(rng);
  for (int64_t j = 0; j < n; ++j) {
    add[size_t(j)] = j % 5 == 4 ? any(rng) : acc_d(rng);
    mul[size_t(j)] = j % 13 == 3 ? NAN : j % 13 == 7 ? INFINITY : j % 13 == 9 ? -INFINITY : mul_d(rng);
    bias[size_t(j)] = 0.37f * float(j % 3);
  }
  int32_t zp = is_signed ? -3 : 5;
  QgemmRequant rq;
  rq.add = add.data();
  rq.mul = mul.data();
  if (qdq) rq.bias = bias.data(), rq.floor = 0.f, rq.divide = true, rq.divisor = 0.7f;
  rq.lo = float((is_signed ? -128 : 0) - zp);
  rq.hi = float((is_signed ? 127 : 255) - zp);
  rq.zero_point = zp;
  std::vector<uint8_t> out(size_t(rows * ldo), 0xAB);
  kernels.requantize_columns(acc.data(), lda, rows, n, rq, out.data(), ldo);
  int bad = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < ldo; ++j) {
      uint8_t want = 0xAB;  // nothing past n written
      if (j < n) {
        QgemmRequant one = rq;
        one.add = &add[size_t(j)];
        one.mul = &mul[size_t(j)];
        if (qdq) one.bias = &bias[size_t(j)];
        RequantizeRowPortable(&acc[size_t(r * lda + j)], 1, one, 0, &want);
      }
      bad += out[size_t(r * ldo + j)] != want;
    }
  Check(bad == 0, std::string(kernels.isa) + " requantize columns rows=" + std::to_string(rows) + " n=" + std::to_string(n) +
                      " qdq=" + std::to_string(qdq) + " signed=" + std::to_string(is_signed) + ": " + std::to_string(bad) + " wrong");
  return 1;
}

void TestTransposed(const Kernels& kernels) {
  if (!kernels.transposed_tile) return;
  std::mt19937 rng(13);
  int cases = 0;
  for (int64_t rows = 1; rows <= kQTRows; ++rows)
    for (int64_t v = 1; v <= 4; ++v)
      for (int64_t taps : {1, 2, 3})
        for (int64_t cquads : {1, 2, 5}) cases += RunTransposedCase(kernels, rows, v, taps, cquads, Fill::kRandom, rng);
  for (Fill fill : {Fill::kMinWeights, Fill::kMaxWeights}) cases += RunTransposedCase(kernels, kQTRows, 4, 9, 128, fill, rng);
  for (int64_t rows : {1, 5, 32})
    for (int64_t n : {1, 15, 16, 17, 33, 64})
      for (bool qdq : {false, true})
        for (bool is_signed : {false, true}) cases += RunRequantizeColumnsCase(kernels, rows, n, qdq, is_signed, rng);
  std::printf("qgemm %s transposed: %d cases\n", kernels.isa, cases);
}

// The requantisation row against a scalar reference in ORT's order (product rounded to FP32 before
// the bias add), over column counts around the vector widths, both output types, the QLinearConv
// and unfused-chain forms, column-sum terms, wrapping int32 sums, ties (·0.5), NaN and infinite scales.
int RequantizeCase(const Kernels& kernels, int64_t n, bool qdq, bool is_signed, bool col_terms, float mul, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> acc_d(-600, 600), any(INT32_MIN, INT32_MAX), zw_d(-128, 127), sum_d(0, 255 * 64);
  std::vector<int32_t> acc(static_cast<size_t>(n)), sums(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) acc[size_t(j)] = j % 11 == 10 ? any(rng) : acc_d(rng);
  for (auto& x : sums) x = sum_d(rng);
  int32_t add = col_terms ? any(rng) : acc_d(rng), zw = zw_d(rng);
  float bias = qdq ? 0.37f : 0.f, ys = 0.7f;
  int32_t zp = is_signed ? -3 : 5;
  QgemmRequant rq;
  rq.add = &add;
  if (col_terms) rq.zw = &zw, rq.col_sums = sums.data();
  rq.mul = &mul;
  if (qdq) rq.bias = &bias, rq.floor = 0.f, rq.divide = true, rq.divisor = ys;
  rq.lo = float((is_signed ? -128 : 0) - zp);
  rq.hi = float((is_signed ? 127 : 255) - zp);
  rq.zero_point = zp;
  std::vector<uint8_t> out(static_cast<size_t>(n) + 3, 0xAB);
  kernels.requantize(acc.data(), n, rq, 0, out.data());
  int bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    uint32_t a = uint32_t(acc[size_t(j)]) + uint32_t(add);
    if (col_terms) a -= uint32_t(zw) * uint32_t(sums[size_t(j)]);
    volatile float product = float(int32_t(a)) * mul;
    float v = product + bias;
    if (!(v > rq.floor)) v = rq.floor;
    if (qdq) v = v / ys;
    if (!(v > rq.lo)) v = rq.lo;
    if (v > rq.hi) v = rq.hi;
    int32_t want = int32_t(std::nearbyint(v)) + zp;
    if (out[size_t(j)] != uint8_t(want)) bad++;
  }
  for (int64_t j = n; j < n + 3; ++j) bad += out[size_t(j)] != 0xAB;  // nothing past n written
  Check(bad == 0, std::string(kernels.isa) + " requantize n=" + std::to_string(n) + " qdq=" + std::to_string(qdq) +
                      " signed=" + std::to_string(is_signed) + " col_terms=" + std::to_string(col_terms) + " mul=" + std::to_string(mul) +
                      ": " + std::to_string(bad) + " wrong");
  return 1;
}

void TestRequantize(const Kernels& kernels) {
  std::mt19937 rng(11);
  int cases = 0;
  for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 33, 96})
    for (bool qdq : {false, true})
      for (bool is_signed : {false, true})
        for (bool col_terms : {false, true})
          for (float mul : {0.5f, 0.0123f, 3.1f, 1e-9f, INFINITY, -INFINITY, NAN}) cases += RequantizeCase(kernels, n, qdq, is_signed, col_terms, mul, rng);
  std::printf("qgemm %s requantize: %d cases\n", kernels.isa, cases);
}

}  // namespace

int main() {
  cpu_test::print_limit = 20;
  TestKernels(*PortableKernels());
  TestRequantize(*PortableKernels());
  if (Avx2Kernels() && CpuSupports(Isa::kAvx2)) TestKernels(*Avx2Kernels()), TestRequantize(*Avx2Kernels());
  else std::printf("qgemm avx2: skipped (this CPU has no AVX2)\n");
  if (Avx512VnniKernels() && CpuSupportsVnni())
    TestKernels(*Avx512VnniKernels()), TestRequantize(*Avx512VnniKernels()), TestTransposed(*Avx512VnniKernels());
  else std::printf("qgemm avx512vnni: skipped (this CPU has no AVX-512 VNNI)\n");
  if (failures) std::fprintf(stderr, "%d qgemm kernel checks failed\n", failures);
  return failures ? 1 : 0;
}
