// Runs a loaded session on inputs of its declared shapes (dynamic dims as 1), filled with zeros or
// with each type's edge values in turn, from any of them first, which is what a client's values can do to a
// model (shapes and counts read from inputs, integer division, conversions of NaN and infinities,
// BOOL bytes other than 0 and 1, which the binary protocols pass through). Models whose inputs are
// strings or would pass max_input_bytes are skipped. Shared by the model fuzzer (native/test/fuzz)
// and the engine driver's replay of its findings (fixtures/models/fuzz).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "engine/engine.h"

namespace gebe_test {

enum class Fill { kZeros, kEdges };

// The most edge values any type has (floats'), so rotations 0 to kEdgeRotations - 1 put each of
// them first: a kernel that refuses the first value it reads (a negative dimension) would
// otherwise never meet the others.
constexpr size_t kEdgeRotations = 9;

template <typename T>
std::vector<T> EdgeValues() {
  using Limits = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    return {Limits::quiet_NaN(), -Limits::infinity(), Limits::infinity(), T(-0.0), T(1e30), T(-1), T(0.5), Limits::max(), Limits::lowest()};
  } else {
    // `root, root, 1` in a row: a shape of two dims of the power of two nearest the type's square
    // root (and a 1). For INT64 that is [2^31, 2^31, 1]: 2^62 elements pass an element count's
    // overflow check, and as FP32 their 2^64 bytes wrapped to 0 in the memory cap's check.
    constexpr T root = T(T(1) << (Limits::digits / 2));
    if constexpr (std::is_signed_v<T>) return {Limits::min(), T(-1), Limits::max(), T(0), T(2), root, root, T(1)};
    else return {Limits::max(), T(0), T(2), root, root, T(1)};
  }
}

// Fills `out` (`bytes` long) by repeating `values`, starting from values[rotation].
template <typename T>
void Repeat(const std::vector<T>& values, uint8_t* out, size_t bytes, size_t rotation) {
  for (size_t i = 0; i * sizeof(T) < bytes; ++i) std::memcpy(out + i * sizeof(T), &values[(i + rotation) % values.size()], sizeof(T));
}

inline void FillEdges(gebe::DataType type, uint8_t* out, size_t bytes, size_t rotation) {
  using gebe::DataType;
  switch (type) {
    case DataType::kBool: Repeat<uint8_t>({0, 1, 2, 255}, out, bytes, rotation); break;
    case DataType::kUInt8: Repeat(EdgeValues<uint8_t>(), out, bytes, rotation); break;
    case DataType::kUInt16: Repeat(EdgeValues<uint16_t>(), out, bytes, rotation); break;
    case DataType::kUInt32: Repeat(EdgeValues<uint32_t>(), out, bytes, rotation); break;
    case DataType::kUInt64: Repeat(EdgeValues<uint64_t>(), out, bytes, rotation); break;
    case DataType::kInt8: Repeat(EdgeValues<int8_t>(), out, bytes, rotation); break;
    case DataType::kInt16: Repeat(EdgeValues<int16_t>(), out, bytes, rotation); break;
    case DataType::kInt32: Repeat(EdgeValues<int32_t>(), out, bytes, rotation); break;
    case DataType::kInt64: Repeat(EdgeValues<int64_t>(), out, bytes, rotation); break;
    case DataType::kFloat32: Repeat(EdgeValues<float>(), out, bytes, rotation); break;
    case DataType::kFloat64: Repeat(EdgeValues<double>(), out, bytes, rotation); break;
    // NaN, -inf, inf, -0, -1, 1, the largest finite, its negative, the smallest subnormal.
    case DataType::kFloat16: Repeat<uint16_t>({0x7e00, 0xfc00, 0x7c00, 0x8000, 0xbc00, 0x3c00, 0x7bff, 0xfbff, 0x0001}, out, bytes, rotation); break;
    case DataType::kBFloat16: Repeat<uint16_t>({0x7fc0, 0xff80, 0x7f80, 0x8000, 0xbf80, 0x3f80, 0x7f7f, 0xff7f, 0x0001}, out, bytes, rotation); break;
    default: break;
  }
}

inline void RunOnValues(gebe::Session& session, Fill fill, size_t rotation = 0, size_t max_input_bytes = size_t(1) << 20) {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<gebe::TensorView> views;
  storage.reserve(session.inputs().size());
  for (const gebe::TensorDesc& desc : session.inputs()) {
    std::vector<int64_t> shape = desc.dims;
    for (int64_t& d : shape) if (d < 0) d = 1;
    const size_t element = gebe::ElementSize(desc.dtype);
    if (element == 0) return;
    size_t bytes = element;
    for (int64_t d : shape) {
      if (d != 0 && bytes > max_input_bytes / size_t(d)) return;
      bytes *= size_t(d);
    }
    storage.emplace_back(bytes, 0);
    if (fill == Fill::kEdges) FillEdges(desc.dtype, storage.back().data(), bytes, rotation);
    views.push_back({desc.name, desc.dtype, shape, storage.back().data(), bytes});
  }
  std::vector<gebe::Tensor> out;
  session.run(views, out);
}

// Zeros, then edge values in every rotation; each run must succeed or be refused with an
// EngineError. Returns how many were refused.
inline int RunOnZerosAndEdges(gebe::Session& session) {
  int refused = 0;
  for (size_t run = 0; run <= kEdgeRotations; ++run) {
    try {
      if (run == 0) RunOnValues(session, Fill::kZeros);
      else RunOnValues(session, Fill::kEdges, run - 1);
    } catch (const gebe::EngineError&) {
      ++refused;
    }
  }
  return refused;
}

}  // namespace gebe_test
