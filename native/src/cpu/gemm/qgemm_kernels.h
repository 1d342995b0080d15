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

// The transposed form (qgemm_transposed.h): C[rows ≤ kQTRows positions × v·16 channels] (ldc
// apart) with the activations as the broadcast operand. Position r's quad cq of tap t is the 4
// bytes at x_rows[r] + tap_offsets[t] + 4·cq; the weights are v·16 channels per quad, quad after
// quad (t · cquads + cq), as qgemm_transposed.h packs them.
using TransposedTile = void (*)(const uint8_t* const* x_rows, int64_t rows, const int64_t* tap_offsets, int64_t taps,
                                int64_t cquads, const int8_t* w, int64_t v, int32_t* c, int64_t ldc);

// Rows (positions) of the transposed product, n columns (channels), to 8 bits: QgemmRequantize's
// arithmetic with the per-row arrays of rq (add, mul, bias) indexed by column instead; rq.zw must be null.
using RequantizeColumns = void (*)(const int32_t* acc, int64_t lda, int64_t rows, int64_t n, const QgemmRequant& rq, uint8_t* out,
                                   int64_t ldo);

struct Kernels {
  const char* isa = nullptr;
  bool a16 = false;  // weight panels hold INT16
  BlockKernel block = nullptr;
  RequantizeRow requantize = nullptr;
  // The transposed form, where the ISA has it (AVX-512 VNNI); null: callers take the panel path.
  TransposedTile transposed_tile = nullptr;
  RequantizeColumns requantize_columns = nullptr;
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
// AVX-512 VNNI's transposed form (qgemm_avx512_transposed.cc), part of Avx512VnniKernels' table.
void TransposedTileVnni(const uint8_t* const* x_rows, int64_t rows, const int64_t* tap_offsets, int64_t taps, int64_t cquads,
                        const int8_t* w, int64_t v, int32_t* c, int64_t ldc);
void RequantizeColumnsVnni(const int32_t* acc, int64_t lda, int64_t rows, int64_t n, const QgemmRequant& rq, uint8_t* out,
                           int64_t ldo);
const Kernels* Avx512VnniKernels();  // nullptr off x86-64; the CPU may still lack VNNI (CpuSupportsVnni)
bool CpuSupportsVnni();

}  // namespace gebe::cpu::qgemm_detail
