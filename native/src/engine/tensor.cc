#include <algorithm>
#include <cstdlib>
#include <new>
#include <utility>

#include "engine/engine.h"

namespace gebe {

size_t ElementSize(DataType type) {
  switch (type) {
    case DataType::kBool:
    case DataType::kUInt8:
    case DataType::kInt8:
      return 1;
    case DataType::kUInt16:
    case DataType::kInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return 2;
    case DataType::kUInt32:
    case DataType::kInt32:
    case DataType::kFloat32:
      return 4;
    case DataType::kUInt64:
    case DataType::kInt64:
    case DataType::kFloat64:
      return 8;
    case DataType::kString:
    case DataType::kInvalid:
      return 0;
  }
  return 0;
}

const char* DataTypeName(DataType type) {
  switch (type) {
    case DataType::kBool: return "BOOL";
    case DataType::kUInt8: return "UINT8";
    case DataType::kUInt16: return "UINT16";
    case DataType::kUInt32: return "UINT32";
    case DataType::kUInt64: return "UINT64";
    case DataType::kInt8: return "INT8";
    case DataType::kInt16: return "INT16";
    case DataType::kInt32: return "INT32";
    case DataType::kInt64: return "INT64";
    case DataType::kFloat16: return "FP16";
    case DataType::kFloat32: return "FP32";
    case DataType::kFloat64: return "FP64";
    case DataType::kString: return "BYTES";
    case DataType::kBFloat16: return "BF16";
    case DataType::kInvalid: return "INVALID";
  }
  return "INVALID";
}

DataType DataTypeFromName(std::string_view name) {
  for (int t = int(DataType::kBool); t <= int(DataType::kBFloat16); ++t) {
    if (name == DataTypeName(DataType(t))) return DataType(t);
  }
  return DataType::kInvalid;
}

int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

AlignedBuffer::AlignedBuffer(size_t bytes) : size_(bytes) {
  // An empty buffer still gets an address: kernels hand empty tensors to memcpy and memset with
  // a size of 0, which C leaves undefined for a null pointer.
  size_t rounded = std::max<size_t>(1, (bytes + kAlignment - 1) / kAlignment) * kAlignment;
  data_ = std::aligned_alloc(kAlignment, rounded);
  if (data_ == nullptr) throw std::bad_alloc();
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace gebe
