// The per-ISA side of the integer GEMM (qgemm.h), laid out as MLAS does: the driver (qgemm.cc)
// packs and splits, and each ISA's file fills one table: qgemm_portable.cc, qgemm_avx2.cc
// (vpmaddwd on 16-bit operands: exact, unlike vpmaddubsw's saturating pairs) and
// qgemm_avx512.cc (AVX-512 VNNI vpdpbusd). The table is picked once per process from ActiveIsa().
//
// Weight panels: kQMR rows (zero rows past M) per panel; per quad of K, row r's four values at
// panel[(q · kQMR + r) · 4] as INT8, or as INT16 where `a16` (the AVX2 kernels multiply 16-bit
// values), so a panel is quads · kQMR · 4 elements and the next panel follows it.
#pragma once

#include <cstdint>

#include "cpu/gemm/qgemm.h"

namespace gebe::cpu::qgemm_detail {

// C[0 .. mh) × [0 .. n) (ldc apart) = one weight panel (mh ≤ kQMR real rows) · n columns of packed
// B (whole panels of kQNR columns, the last one padded).
using BlockKernel = void (*)(int64_t quads, const void* a_panel, int64_t mh, const uint8_t* b, int64_t n, int32_t* c,
                             int64_t ldc);

// One row of QgemmRequantize (qgemm.h): row r's parameters taken from rq at index r.
using RequantizeRow = void (*)(const int32_t* acc, int64_t n, const QgemmRequant& rq, int64_t r, uint8_t* out);

struct Kernels {
  const char* isa = nullptr;
  bool a16 = false;  // weight panels hold INT16
  BlockKernel block = nullptr;
  RequantizeRow requantize = nullptr;
};

// The portable row, the reference of the ISA ones (qgemm_portable.cc).
void RequantizeRowPortable(const int32_t* acc, int64_t n, const QgemmRequant& rq, int64_t r, uint8_t* out);

const Kernels& ActiveKernels();

// Row r of w (m × k INT8, row-major) into the weight panels of `kernels`' layout at out (zeroed first,
// PanelBytes(kernels, m, k) bytes).
size_t PanelBytes(const Kernels& kernels, int64_t m, int64_t k);
void PackWeightPanels(const Kernels& kernels, const int8_t* w, int64_t m, int64_t k, void* out);
const Kernels* PortableKernels();
const Kernels* Avx2Kernels();
const Kernels* Avx512VnniKernels();  // nullptr off x86-64; the CPU may still lack VNNI (CpuSupportsVnni)
bool CpuSupportsVnni();

}  // namespace gebe::cpu::qgemm_detail
