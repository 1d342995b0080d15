// Tensors inside the CPU engine. A TensorRef is a typed view (dtype, shape, data) used by kernels;
// a ConstTensor owns its bytes (initializers, Constant nodes, folded constants) and is shared by
// plans through shared_ptr so a folded value outlives the plan that made it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace gebe::cpu {

using Shape = std::vector<int64_t>;

std::string ShapeToString(const Shape& shape);
// Element count; throws EngineError on a negative extent or an overflow.
int64_t CheckedElementCount(const Shape& shape, const std::string& what);

struct TensorRef {
  DataType dtype = DataType::kInvalid;
  Shape shape;
  void* data = nullptr;  // nullptr while only the type and shape are known (shape inference)

  int64_t count() const { return ElementCount(shape); }
  size_t bytes() const { return size_t(count()) * ElementSize(dtype); }
  int rank() const { return int(shape.size()); }
  template <typename T> T* as() const { return static_cast<T*>(data); }
};

// An immutable tensor with owned storage.
struct ConstTensor {
  DataType dtype = DataType::kInvalid;
  Shape shape;
  std::shared_ptr<AlignedBuffer> storage;

  TensorRef ref() const { return {dtype, shape, storage ? storage->data() : nullptr}; }
  template <typename T> const T* as() const { return static_cast<const T*>(storage->data()); }
  int64_t count() const { return ElementCount(shape); }

  static ConstTensor Allocate(DataType dtype, const Shape& shape);
};

// Values of a small integer tensor (int32 or int64) as int64 — for shape-like inputs.
std::vector<int64_t> ReadInts(const TensorRef& t);

}  // namespace gebe::cpu
