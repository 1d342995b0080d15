// Helpers shared by kernels: broadcasting, axis normalisation, strides, type dispatch.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/ops/kernel.h"

namespace gebe::cpu {

// A real result as element type T. Converting NaN, an infinity or a value outside an integer
// type's range to it is undefined in C++, and any model can produce those (ReduceLogSum of zeros,
// a Cast of 1e30): for integer T, NaN becomes 0 and the rest saturate at T's limits.
template <typename T>
inline T FromReal(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(v);
  } else {
    if (std::isnan(v)) return T(0);
    if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return T(v);
  }
}

// Integer quotient and remainder (the dividend's sign, as C's %). x86's idiv traps on a zero
// divisor and on a signed type's minimum divided by -1, the one quotient that does not fit, and a
// trap would end the server on values a client sent. Division by zero, which ONNX leaves
// undefined, gives 0; the minimum over -1 wraps to the minimum, as every other integer result does
// (the engine compiles with -fwrapv, binding.gyp).
template <typename T>
inline T IntegerQuotient(T x, T y) {
  if (y == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(x));
  }
  return T(x / y);
}

template <typename T>
inline T IntegerRemainder(T x, T y) {
  if (y == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return T(0);
  }
  return T(x % y);
}

// Numpy-style multidirectional broadcast; throws naming the node when shapes do not agree.
inline Shape BroadcastShapes(const Kernel& k, const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw EngineError(k.node().label() + ": shapes " + ShapeToString(a) + " and " + ShapeToString(b) +
                        " cannot be broadcast together (dimension " + std::to_string(i) + ": " + std::to_string(da) +
                        " vs " + std::to_string(db) + ")");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Strides of `shape` laid out against an output of rank `rank` (0 where broadcast).
inline std::vector<int64_t> BroadcastStrides(const Shape& shape, const Shape& out) {
  size_t rank = out.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    size_t o = i + (rank - shape.size());
    strides[o] = shape[i] == 1 ? 0 : s;
    s *= shape[i];
  }
  return strides;
}

// Where row r of `out` (all dimensions but the last) starts in two operands broadcast to it with
// strides sa and sb (from BroadcastStrides): *oa and *ob, in elements.
inline void BroadcastRowOffsets(int64_t r, const Shape& out, const std::vector<int64_t>& sa, const std::vector<int64_t>& sb,
                                int64_t* oa, int64_t* ob) {
  int64_t rem = r, a = 0, b = 0;
  for (size_t d = out.size() - 1; d-- > 0;) {
    int64_t i = rem % out[d];
    rem /= out[d];
    a += i * sa[d];
    b += i * sb[d];
  }
  *oa = a;
  *ob = b;
}

inline std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

inline int64_t NormalizeAxis(const Kernel& k, int64_t axis, int64_t rank, const char* what = "axis") {
  if (axis < -rank || axis >= rank) {
    throw EngineError(k.node().label() + ": " + what + " " + std::to_string(axis) + " is out of range for rank " +
                      std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

inline int64_t SizeFrom(const Shape& s, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < s.size(); ++i) n *= s[i];
  return n;
}

inline int64_t SizeTo(const Shape& s, size_t to) {
  int64_t n = 1;
  for (size_t i = 0; i < to && i < s.size(); ++i) n *= s[i];
  return n;
}

// Element i of a numeric or bool tensor as a double (for kernels that mix input types).
inline double ReadAsDouble(const TensorRef& t, int64_t i) {
  switch (t.dtype) {
    case DataType::kFloat32: return t.as<const float>()[i];
    case DataType::kFloat64: return t.as<const double>()[i];
    case DataType::kInt64: return double(t.as<const int64_t>()[i]);
    case DataType::kInt32: return t.as<const int32_t>()[i];
    case DataType::kInt16: return t.as<const int16_t>()[i];
    case DataType::kInt8: return t.as<const int8_t>()[i];
    case DataType::kUInt64: return double(t.as<const uint64_t>()[i]);
    case DataType::kUInt32: return t.as<const uint32_t>()[i];
    case DataType::kUInt16: return t.as<const uint16_t>()[i];
    case DataType::kUInt8: case DataType::kBool: return t.as<const uint8_t>()[i];
    default: return 0;
  }
}

// Work size (elements) above which element-wise kernels use the thread pool.
constexpr int64_t kParallelGrain = 1 << 15;

// A product (a GEMM, one image's convolution) of fewer multiply-adds than this runs on one thread:
// handing parts to another thread and joining them, and the next op then reading half its input
// from the other core's cache, cost more than the second thread saves. Measured at 2 threads on a
// 2-vCPU VM: the 0.4-0.5M products of a 32-token transformer layer took 2.2-3.9 µs on one thread
// and 5.3-9.4 across both; the MNIST template's 0.11M and 0.9M convolutions 6 and 12 µs on one,
// 13-14 and 13 across both.
constexpr int64_t kSingleThreadMacs = int64_t(1) << 20;

// A product whose B holds at least this many floats (1 MB, about an L2) reads it from L3 or
// memory on every run, and a thin one (a fully connected layer at batch 1) is bound by that
// stream, which two cores read faster than one whatever its multiply-adds. Measured at 2 threads
// on the 2-vCPU VM, four 1 × 576 × 1024 Gemms side by side (MobileNetV3's classifier): 133-140 µs
// on one thread against ONNX Runtime's 80 across both; 1 × 1024 × 1000: 365-392 against 202.
constexpr int64_t kStreamedWeightFloats = int64_t(1) << 18;

// `pool`, or none (the calling thread alone) for a product under kSingleThreadMacs whose B
// (b_floats of it, 0 if not worth counting) is under kStreamedWeightFloats.
inline ThreadPool* PoolForProduct(int64_t multiply_adds, ThreadPool* pool, int64_t b_floats = 0) {
  return multiply_adds >= kSingleThreadMacs || b_floats >= kStreamedWeightFloats ? pool : nullptr;
}

// Runs `count` separate products of `macs_each` multiply-adds each (a batched MatMul's, attention
// heads) as `one(t, pool_for_product_t)`. With at least one per thread, whole products run in
// parallel, each single-threaded, instead of splitting every small product across the pool with
// its own packing step and barrier; under kSingleThreadMacs in all of them (a small attention
// layer's heads), each B under kStreamedWeightFloats, they run on the calling thread; otherwise one
// after another, each across the pool.
template <typename F>
void ForEachProduct(int64_t count, int64_t macs_each, ThreadPool* pool, F&& one, int64_t b_floats_each = 0) {
  if (count > 1 && pool != nullptr && pool->size() > 1 && count >= pool->size() &&
      PoolForProduct(count * macs_each, pool, b_floats_each)) {
    pool->ParallelFor(count, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) one(t, nullptr);
    });
    return;
  }
  ThreadPool* each = PoolForProduct(macs_each, pool, b_floats_each);
  for (int64_t t = 0; t < count; ++t) one(t, each);
}

}  // namespace gebe::cpu

// Every numeric element type GEBE_DISPATCH_NUMERIC handles, for ExpectType lists.
#define GEBE_NUMERIC_TYPES                                                                                      \
  ::gebe::DataType::kFloat32, ::gebe::DataType::kFloat64, ::gebe::DataType::kInt64, ::gebe::DataType::kInt32, \
      ::gebe::DataType::kInt16, ::gebe::DataType::kInt8, ::gebe::DataType::kUInt64, ::gebe::DataType::kUInt32,  \
      ::gebe::DataType::kUInt16, ::gebe::DataType::kUInt8

#define GEBE_INTEGER_TYPES                                                                                     \
  ::gebe::DataType::kInt64, ::gebe::DataType::kInt32, ::gebe::DataType::kInt16, ::gebe::DataType::kInt8,        \
      ::gebe::DataType::kUInt64, ::gebe::DataType::kUInt32, ::gebe::DataType::kUInt16, ::gebe::DataType::kUInt8

// Dispatches on a numeric dtype: defines `T` inside the body.
#define GEBE_DISPATCH_NUMERIC(dtype, ...)                                         \
  switch (dtype) {                                                                \
    case ::gebe::DataType::kFloat32: { using T = float; __VA_ARGS__; break; }     \
    case ::gebe::DataType::kInt64: { using T = int64_t; __VA_ARGS__; break; }     \
    case ::gebe::DataType::kInt32: { using T = int32_t; __VA_ARGS__; break; }     \
    case ::gebe::DataType::kFloat64: { using T = double; __VA_ARGS__; break; }    \
    case ::gebe::DataType::kInt8: { using T = int8_t; __VA_ARGS__; break; }       \
    case ::gebe::DataType::kUInt8: { using T = uint8_t; __VA_ARGS__; break; }     \
    case ::gebe::DataType::kInt16: { using T = int16_t; __VA_ARGS__; break; }     \
    case ::gebe::DataType::kUInt16: { using T = uint16_t; __VA_ARGS__; break; }   \
    case ::gebe::DataType::kUInt32: { using T = uint32_t; __VA_ARGS__; break; }   \
    case ::gebe::DataType::kUInt64: { using T = uint64_t; __VA_ARGS__; break; }   \
    default: Fail(std::string("element type ") + ::gebe::DataTypeName(dtype) + " is not supported"); \
  }

// Dispatches on any fixed-size dtype by element width (for data movement kernels).
#define GEBE_DISPATCH_BY_SIZE(esize, ...)                    \
  switch (esize) {                                           \
    case 1: { using T = uint8_t; __VA_ARGS__; break; }       \
    case 2: { using T = uint16_t; __VA_ARGS__; break; }      \
    case 4: { using T = uint32_t; __VA_ARGS__; break; }      \
    case 8: { using T = uint64_t; __VA_ARGS__; break; }      \
    default: Fail("unsupported element size");              \
  }
