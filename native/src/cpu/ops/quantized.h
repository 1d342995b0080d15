// Shared by the integer-arithmetic operators (quantized.cc: DynamicQuantizeLinear, the MatMuls,
// the direct N-D convolution; quantized_conv.cc: QLinearConv, ConvInteger and the QDQ fusion's
// convolutions on the integer GEMM): reading 8-bit values and per-index quantisation parameters,
// the reference convolution, and requantisation as ONNX Runtime does it.
#pragma once

#include <cmath>
#include <functional>

#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

inline int32_t Int8At(const TensorRef& t, int64_t i) {
  return t.dtype == DataType::kInt8 ? int32_t(t.as<const int8_t>()[i]) : int32_t(t.as<const uint8_t>()[i]);
}

// A zero point, when present, has its operand's element type (ONNX's constraint). Checked where
// each kernel infers its shapes: the kernels narrow zero points to int32 and read packed weights'
// zero points as bytes, so a wider type (an INT64 zero point of -2^63) would be undefined there.
inline void ExpectZeroPointType(const Kernel& kernel, const TensorRef* zero_point, const std::string& name, const TensorRef& operand,
                                const std::string& operand_name) {
  if (zero_point != nullptr && zero_point->dtype != operand.dtype) {
    throw EngineError(kernel.node().label() + ": " + name + " must have " + operand_name + "'s element type " +
                      DataTypeName(operand.dtype) + ", not " + DataTypeName(zero_point->dtype));
  }
}

// A zero point or scale read per index: scalar (or absent: 0), or one entry per row/column.
struct PerIndex {
  const TensorRef* t = nullptr;
  double At(int64_t i) const {
    if (!t || !t->data || t->count() == 0) return 0;
    return ReadAsDouble(*t, t->count() == 1 ? 0 : i);
  }
  float Float(int64_t i) const { return float(At(i)); }
};

// FP32 → 8-bit as ONNX Runtime requantises (MLAS): clamp to the type's range less the zero point,
// round half to even, add the zero point (clamping first is the same as saturating afterwards: the
// bounds are integers). All in FP32 with plain comparisons so loops over it vectorise.
struct Requantizer {
  float lo = 0, hi = 255;
  int32_t zero_point = 0;
  Requantizer(DataType t, int32_t zp)
      : lo(float((t == DataType::kInt8 ? -128 : 0) - zp)), hi(float((t == DataType::kInt8 ? 127 : 255) - zp)), zero_point(zp) {}
  int32_t operator()(float v) const {
    v = v > lo ? v : lo;  // NaN lands here too
    v = v < hi ? v : hi;
    const float kRound = 12582912.f;  // 1.5 · 2^23: adding and subtracting it rounds half to even
    return int32_t((v + kRound) - kRound) + zero_point;
  }
};

inline void Store8(TensorRef& y, int64_t i, int32_t q) {
  if (y.dtype == DataType::kUInt8) y.as<uint8_t>()[i] = uint8_t(q);
  else y.as<int8_t>()[i] = int8_t(q);
}

// Direct integer convolution over any number of spatial dims (groups, strides, dilations, pads):
// emit(batch, channel, position, flat output index, exact accumulator). With emit empty, only the
// output shape.
using ConvEmit = std::function<void(int64_t, int64_t, int64_t, int64_t, int64_t)>;
void IntegerConv(const Kernel& k, const ConvAttributes& attrs, int64_t group, const TensorRef& x, const TensorRef& w,
                 PerIndex xzp, PerIndex wzp, Shape* out_shape, const ConvEmit& emit);

}  // namespace gebe::cpu
