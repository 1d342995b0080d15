#include "cpu/tensor.h"

#include <limits>

namespace gebe::cpu {

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t CheckedElementCount(const Shape& shape, const std::string& what) {
  // At most 2^60 elements, so that a byte size (8 bytes an element at most) cannot wrap around in
  // the memory-cap checks that follow this one: [2^31, 2^31] floats are 2^64 bytes, which wrapped
  // to 0 and passed them, and ConstantOfShape then wrote past its 0-byte buffer.
  constexpr int64_t kMaxElements = std::numeric_limits<int64_t>::max() / 8;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw EngineError(what + " has a negative dimension in shape " + ShapeToString(shape));
    if (d != 0 && n > kMaxElements / d) {
      throw EngineError(what + " has too many elements: shape " + ShapeToString(shape));
    }
    n *= d;
  }
  return n;
}

ConstTensor ConstTensor::Allocate(DataType dtype, const Shape& shape) {
  ConstTensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.storage = std::make_shared<AlignedBuffer>(size_t(ElementCount(shape)) * ElementSize(dtype));
  return t;
}

std::vector<int64_t> ReadInts(const TensorRef& t) {
  std::vector<int64_t> out(size_t(t.count()));
  if (t.dtype == DataType::kInt64) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.as<const int64_t>()[i];
  } else if (t.dtype == DataType::kInt32) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.as<const int32_t>()[i];
  } else {
    throw EngineError(std::string("expected an int64 or int32 tensor but received ") + DataTypeName(t.dtype));
  }
  return out;
}

}  // namespace gebe::cpu
