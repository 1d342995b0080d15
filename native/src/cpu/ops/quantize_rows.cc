// The portable quantisation rows and the choice of ISA (quantize_rows.h).
#include "cpu/ops/quantize_rows.h"

#include "cpu/isa.h"

namespace gebe::cpu {

namespace {

using namespace quantize_detail;

void QuantizeRow(const float* x, int64_t n, const QuantizeParams& q, uint8_t* y) {
  for (int64_t k = 0; k < n; ++k) y[k] = Quantize(x[k], q);
}

void AddRow(const uint8_t* a, const DequantizeParams& da, const uint8_t* b, const DequantizeParams& db, int64_t n,
            const QuantizeParams& q, uint8_t* y) {
  for (int64_t k = 0; k < n; ++k) {
    float va = Dequantize(a[k], da), vb = Dequantize(b[k], db);
    y[k] = Quantize(va + vb, q);
  }
}

const QuantizeRows kPortable{QuantizeRow, AddRow};

}  // namespace

const QuantizeRows& ActiveQuantizeRows() {
  static const QuantizeRows* rows = [] {
    const QuantizeRows* r = nullptr;
    if (ActiveIsa() == Isa::kAvx512) r = Avx512QuantizeRows();
    else if (ActiveIsa() == Isa::kAvx2) r = Avx2QuantizeRows();
    return r ? r : &kPortable;
  }();
  return *rows;
}

}  // namespace gebe::cpu
