// Tests of every GEMM block kernel (sgemm_kernels.h) of every ISA this CPU runs, against a
// double-precision reference: packed, strided (B in place), indirect (B rows through offsets) and
// compact (output positions of a plane 16..37 wide, vectors spanning two rows) blocks, every row
// count 1..30 (whole and partial 6-row panels and 12-row tiles) and column count 1..70 (whole,
// masked and half vectors), overwrite and accumulate, with and without the
// bias + Relu/Clip epilogue; the direct block (A rows read in place through runs, where an ISA has
// one) and the 16 × 16 transpose with its epilogue. An ISA the CPU lacks is reported as skipped.
// run-asan.sh builds it with the sanitizers.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cpu/gemm/sgemm_kernels.h"
#include "cpu/gemm/sgemm_pack.h"
#include "cpu/isa.h"

#include "check.h"

using namespace gebe::cpu;
using namespace gebe::cpu::gemm_detail;

namespace {

struct Case {
  int64_t mh, nw, kc;
  bool accumulate;
  int epilogue;  // 0 none, 1 bias + Relu, 2 bias + Clip
};

float Reference(const Case& t, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c0,
                const std::vector<float>& bias, int64_t i, int64_t j, int64_t ldc) {
  double sum = t.accumulate ? c0[size_t(i * ldc + j)] : 0.0;
  for (int64_t q = 0; q < t.kc; ++q) sum += double(a[size_t(i * t.kc + q)]) * double(b[size_t(q * t.nw + j)]);
  if (t.epilogue == 0) return float(sum);
  sum += bias[size_t(i)];
  if (t.epilogue == 1) return float(sum > 0 ? sum : 0);
  return float(std::min(std::max(sum, -0.5), 0.5));
}

enum class Source { kPacked, kStrided, kIndirect, kCompact };

void RunCase(const Kernels& k, Source source, const Case& t, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> a(size_t(t.mh * t.kc)), b(size_t(t.kc * t.nw)), bias(size_t(t.mh));
  for (auto& x : a) x = d(rng);
  for (auto& x : b) x = d(rng);
  for (auto& x : bias) x = d(rng);
  int64_t ldc = t.nw + 3;
  std::vector<float> c(size_t(t.mh * ldc + 3));
  for (auto& x : c) x = d(rng);
  const std::vector<float> c0 = c;
  std::vector<float> ap(size_t(PadTo(t.mh, kMR) * t.kc));
  PackPanelsA(false, a.data(), t.kc, 0, t.mh, 0, t.kc, 1.f, ap.data());
  TileEpilogue ep;
  ep.bias = bias.data();
  ep.clamp = t.epilogue == 1 ? TileEpilogue::kRelu : TileEpilogue::kClip;
  ep.lo = t.epilogue == 1 ? 0.f : -0.5f;
  ep.hi = 0.5f;
  const TileEpilogue* tep = t.epilogue ? &ep : nullptr;
  if (source == Source::kPacked) {
    std::vector<float> bp(size_t(t.kc * PadTo(t.nw, kNR)));
    PackPanelsB(false, b.data(), t.nw, 0, t.kc, 0, t.nw, bp.data());
    k.block(t.kc, ap.data(), t.mh, bp.data(), t.nw, c.data(), ldc, t.accumulate, tep);
  } else if (source == Source::kStrided) {
    k.block_strided(t.kc, ap.data(), t.mh, b.data(), t.nw, t.nw, c.data(), ldc, t.accumulate, tep);
  } else if (source == Source::kIndirect) {
    // Rows of B scattered through offsets: row q stored at q·(nw + 5), in reverse order.
    std::vector<float> scattered(size_t(t.kc * (t.nw + 5)));
    std::vector<int64_t> offs(size_t(t.kc));
    for (int64_t q = 0; q < t.kc; ++q) {
      offs[size_t(q)] = (t.kc - 1 - q) * (t.nw + 5);
      for (int64_t j = 0; j < t.nw; ++j) scattered[size_t(offs[size_t(q)] + j)] = b[size_t(q * t.nw + j)];
    }
    k.block_indirect(t.kc, ap.data(), t.mh, scattered.data(), offs.data(), t.nw, c.data(), ldc, t.accumulate, tep);
  } else {
    // Output positions j0 + j of a plane `width` wide whose rows are row_stride apart (no gap for
    // some widths), one such plane per row of B in reverse order; the first plane in memory ends
    // at the last position read, so a read past it is an error under the sanitizers.
    int64_t width = 16 + (t.mh * 3 + t.nw) % 22, j0 = (t.kc * 5) % (width + 3);
    int64_t row_stride = width + (width % 2) * 3;
    int64_t last = j0 + t.nw - 1, plane = (last / width) * row_stride + last % width + 1;
    std::vector<float> planes(size_t(t.kc * plane));
    std::vector<int64_t> offs(size_t(t.kc));
    for (int64_t q = 0; q < t.kc; ++q) {
      offs[size_t(q)] = (t.kc - 1 - q) * plane;
      for (int64_t j = 0; j < t.nw; ++j) {
        int64_t f = j0 + j;
        planes[size_t(offs[size_t(q)] + (f / width) * row_stride + f % width)] = b[size_t(q * t.nw + j)];
      }
    }
    k.block_compact(t.kc, ap.data(), t.mh, planes.data(), offs.data(), j0, t.nw, width, row_stride, c.data(), ldc,
                    t.accumulate, tep);
  }
  for (int64_t i = 0; i < t.mh; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      float got = c[size_t(i * ldc + j)];
      float want = j < t.nw ? Reference(t, a, b, c0, bias, i, j, ldc) : c0[size_t(i * ldc + j)];
      if (!(std::fabs(got - want) <= 1e-4f * (1.f + std::fabs(want)))) {
        Check(false, std::string(k.isa) + " source " + std::to_string(int(source)) + " mh=" + std::to_string(t.mh) +
                         " nw=" + std::to_string(t.nw) + " kc=" + std::to_string(t.kc) + " acc=" +
                         std::to_string(t.accumulate) + " ep=" + std::to_string(t.epilogue) + " at (" +
                         std::to_string(i) + "," + std::to_string(j) + "): " + std::to_string(got) + " vs " +
                         std::to_string(want));
        return;
      }
    }
  }
  // Nothing past the block's last row.
  for (size_t x = size_t(t.mh * ldc); x < c.size(); ++x) Check(c[x] == c0[x], std::string(k.isa) + ": wrote past C");
}

// The direct block: row i's k values in runs of 1..13 values (a tap's channels), each run of
// each row somewhere else in one buffer, rows in reverse order; the buffer ends at the last value
// read, so a read past it is an error under the sanitizers.
void RunDirectCase(const Kernels& k, const Case& t, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> a(size_t(t.mh * t.kc)), b(size_t(t.kc * t.nw));
  for (auto& x : a) x = d(rng);
  for (auto& x : b) x = d(rng);
  std::vector<int64_t> run_offset, run_count;
  int64_t span = 0;  // floats one row's runs take, with a gap of 2 after each run
  for (int64_t q = 0; q < t.kc;) {
    int64_t count = std::min<int64_t>(t.kc - q, 1 + int64_t(rng() % 13));
    run_offset.push_back(span);
    run_count.push_back(count);
    span += count + 2;
    q += count;
  }
  std::vector<int64_t> rows(size_t(t.mh));
  std::vector<float> x(size_t(t.mh * span - 2));
  for (int64_t i = 0; i < t.mh; ++i) {
    rows[size_t(i)] = (t.mh - 1 - i) * span;
    for (size_t r = 0, q = 0; r < run_offset.size(); ++r)
      for (int64_t v = 0; v < run_count[r]; ++v, ++q) x[size_t(rows[size_t(i)] + run_offset[r] + v)] = a[size_t(i * t.kc) + q];
  }
  DirectRows dr;
  dr.x = x.data();
  dr.row_offset = rows.data();
  dr.run_offset = run_offset.data();
  dr.run_count = run_count.data();
  dr.runs = int64_t(run_offset.size());
  std::vector<float> bp(size_t(t.kc * PadTo(t.nw, kNR)));
  PackPanelsB(false, b.data(), t.nw, 0, t.kc, 0, t.nw, bp.data());
  int64_t ldc = t.nw + 3;
  std::vector<float> c(size_t(t.mh * ldc + 3));
  for (auto& v : c) v = d(rng);
  const std::vector<float> c0 = c;
  k.block_direct(dr, t.mh, bp.data(), t.kc, t.nw, c.data(), ldc, t.accumulate);
  Case plain = t;
  plain.epilogue = 0;
  for (int64_t i = 0; i < t.mh; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      float got = c[size_t(i * ldc + j)];
      float want = j < t.nw ? Reference(plain, a, b, c0, {}, i, j, ldc) : c0[size_t(i * ldc + j)];
      if (!(std::fabs(got - want) <= 1e-4f * (1.f + std::fabs(want)))) {
        Check(false, std::string(k.isa) + " direct mh=" + std::to_string(t.mh) + " nw=" + std::to_string(t.nw) +
                         " kc=" + std::to_string(t.kc) + " at (" + std::to_string(i) + "," + std::to_string(j) +
                         "): " + std::to_string(got) + " vs " + std::to_string(want));
        return;
      }
    }
  }
  for (size_t v = size_t(t.mh * ldc); v < c.size(); ++v) Check(c[v] == c0[v], std::string(k.isa) + ": direct wrote past C");
}

// The transpose of a rows × cols block into dst (row stride ld_dst), with the epilogue or without;
// every float of dst outside the block keeps its value.
void RunTransposeCase(const Kernels& k, int64_t rows, int64_t cols, int epilogue, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  int64_t ld_src = cols + 5, ld_dst = rows + 7;
  std::vector<float> src(size_t((rows - 1) * ld_src + cols));
  std::vector<float> bias(static_cast<size_t>(cols));
  for (auto& v : src) v = d(rng);
  for (auto& v : bias) v = d(rng);
  std::vector<float> dst(size_t(cols * ld_dst)), dst0;
  for (auto& v : dst) v = d(rng);
  dst0 = dst;
  TileEpilogue ep;
  ep.bias = bias.data();
  ep.clamp = epilogue == 1 ? TileEpilogue::kRelu : TileEpilogue::kClip;
  ep.lo = epilogue == 1 ? 0.f : -0.5f;
  ep.hi = 0.5f;
  k.transpose_block(src.data(), ld_src, rows, cols, dst.data(), ld_dst, epilogue ? &ep : nullptr);
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < ld_dst; ++i) {
      float want = dst0[size_t(j * ld_dst + i)];
      if (i < rows) {
        float v = src[size_t(i * ld_src + j)];
        if (epilogue) v += bias[size_t(j)];
        if (epilogue == 1) v = v > 0.f ? v : 0.f;
        if (epilogue == 2) v = std::min(std::max(v, -0.5f), 0.5f);
        want = v;
      }
      if (dst[size_t(j * ld_dst + i)] != want) {
        Check(false, std::string(k.isa) + " transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " ep=" +
                         std::to_string(epilogue) + " at (" + std::to_string(j) + "," + std::to_string(i) + ")");
        return;
      }
    }
  }
}

int TestKernels(const Kernels& k) {
  std::mt19937 rng(7);
  int cases = 0;
  for (int64_t mh = 1; mh <= 30; ++mh) {
    for (int64_t nw = 1; nw <= 70; nw += (mh % 5 == 0 ? 1 : 7)) {
      Case t{mh, nw, 1 + (mh * 7 + nw) % 37, (mh + nw) % 2 == 0, int((mh + nw) % 3)};
      RunCase(k, Source::kPacked, t, rng);
      ++cases;
      if (k.block_direct) RunDirectCase(k, t, rng), ++cases;
      if (k.block_compact) RunCase(k, Source::kCompact, t, rng), ++cases;
      if (nw % kNR == 0 || nw == 70) {
        Case s = t;
        s.nw = nw / kNR * kNR;
        if (s.nw == 0) continue;
        if (k.block_strided) RunCase(k, Source::kStrided, s, rng), ++cases;
        if (k.block_indirect) RunCase(k, Source::kIndirect, s, rng), ++cases;
      }
    }
  }
  if (k.transpose_block) {
    for (int64_t rows = 1; rows <= 16; ++rows)
      for (int64_t cols = 1; cols <= 16; ++cols) RunTransposeCase(k, rows, cols, int((rows + cols) % 3), rng), ++cases;
  }
  return cases;
}

}  // namespace

int main() {
  cpu_test::print_limit = 20;
  struct Entry {
    Isa isa;
    const Kernels* kernels;
  };
  for (Entry e : {Entry{Isa::kPortable, PortableKernels()}, Entry{Isa::kAvx2, Avx2Kernels()},
                  Entry{Isa::kAvx512, Avx512Kernels()}}) {
    if (!e.kernels || !CpuSupports(e.isa)) {
      std::printf("sgemm kernels (%s): skipped, this CPU does not run them\n", IsaName(e.isa));
      continue;
    }
    int cases = TestKernels(*e.kernels);
    std::printf("sgemm kernels (%s): %d cases\n", e.kernels->isa, cases);
  }
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("sgemm kernels: all checks passed\n");
  return 0;
}
