#include "executor/classification.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

namespace gebe {

void ClassLabels::Append(std::string_view label) {
  text_.append(label);
  ends_.push_back(text_.size());
}

std::string_view ClassLabels::At(size_t index) const {
  if (index >= ends_.size()) return {};
  const size_t begin = index == 0 ? 0 : ends_[index - 1];
  return std::string_view(text_).substr(begin, ends_[index] - begin);
}

const ClassLabels* FindLabels(const OutputLabels* labels, std::string_view name) {
  if (labels == nullptr) return nullptr;
  auto found = labels->find(name);
  return found == labels->end() ? nullptr : found->second.get();
}

void AppendFixed9(double v, std::string* out) {
  // std::fixed with precision 9 is printf's %.9f (libstdc++ formats through it): the exact binary
  // value rounded to nine decimals, ties to even, every integer digit, -0 and a negative NaN
  // with their sign, "nan" and "inf" in lower case.
  char text[512];  // DBL_MAX has 309 integer digits
  const int n = std::snprintf(text, sizeof text, "%.9f", v);
  out->append(text, size_t(n));
}

namespace {

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

template <typename T>
void AppendValue(T v, std::string* out) {
  if constexpr (std::is_floating_point_v<T>) AppendFixed9(double(v), out);
  else out->append(std::to_string(v));  // int8/uint8 promote to int: digits, not a character
}

void AppendElement(const std::string& text, std::vector<uint8_t>* out) {
  const uint32_t length = uint32_t(text.size());
  const size_t at = out->size();
  out->resize(at + 4 + text.size());
  std::memcpy(out->data() + at, &length, 4);  // little-endian hosts only, as Normalize
  std::memcpy(out->data() + at + 4, text.data(), text.size());
}

template <typename T>
void ClassifyAs(const uint8_t* data, size_t rows, size_t per_entry, size_t count, const ClassLabels* labels,
                std::vector<uint8_t>* out) {
  std::vector<T> values(per_entry);
  std::vector<size_t> order(per_entry);
  // A strict weak order, so the answer does not depend on the sort: larger first, NaN after
  // every number, equal values (and NaNs among themselves) by index.
  auto before = [&values](size_t x, size_t y) {
    const T a = values[x], b = values[y];
    if (IsNan(a) != IsNan(b)) return IsNan(b);
    if (!IsNan(a) && a != b) return a > b;
    return x < y;
  };
  std::string text;
  for (size_t r = 0; r < rows; ++r) {
    if (per_entry > 0) std::memcpy(values.data(), data + r * per_entry * sizeof(T), per_entry * sizeof(T));
    std::iota(order.begin(), order.end(), size_t(0));
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(count), order.end(), before);
    for (size_t i = 0; i < count; ++i) {
      const size_t index = order[i];
      text.clear();
      AppendValue(values[index], &text);
      text.push_back(':');
      text.append(std::to_string(index));
      const std::string_view label = labels != nullptr ? labels->At(index) : std::string_view();
      if (!label.empty()) {
        text.push_back(':');
        text.append(label);
      }
      AppendElement(text, out);
    }
  }
}

}  // namespace

RequestFailure Classify(const std::string& name, DataType dtype, const std::vector<int64_t>& shape, bool batched,
                        const uint8_t* data, size_t byte_size, uint64_t k, const ClassLabels* labels, ClassResult* out) {
  using Run = void (*)(const uint8_t*, size_t, size_t, size_t, const ClassLabels*, std::vector<uint8_t>*);
  Run run = nullptr;
  switch (dtype) {
    case DataType::kUInt8: run = ClassifyAs<uint8_t>; break;
    case DataType::kUInt16: run = ClassifyAs<uint16_t>; break;
    case DataType::kUInt32: run = ClassifyAs<uint32_t>; break;
    case DataType::kUInt64: run = ClassifyAs<uint64_t>; break;
    case DataType::kInt8: run = ClassifyAs<int8_t>; break;
    case DataType::kInt16: run = ClassifyAs<int16_t>; break;
    case DataType::kInt32: run = ClassifyAs<int32_t>; break;
    case DataType::kInt64: run = ClassifyAs<int64_t>; break;
    case DataType::kFloat32: run = ClassifyAs<float>; break;
    case DataType::kFloat64: run = ClassifyAs<double>; break;
    default:
      return RequestFailure::Of(FailureReason::kInvalidArgument, "class result not available for output '" + name +
                                                                      "' due to unsupported type '" + DataTypeName(dtype) + "'");
  }
  const int64_t first = batched && !shape.empty() ? shape[0] : 1;
  const size_t rows = first > 0 ? size_t(first) : 0;
  const size_t total = byte_size / ElementSize(dtype);
  const size_t per_entry = rows > 0 ? total / rows : 0;
  const size_t count = size_t(std::min<uint64_t>(k, per_entry));
  out->shape = batched ? std::vector<int64_t>{int64_t(rows), int64_t(count)} : std::vector<int64_t>{int64_t(count)};
  out->bytes.clear();
  run(data, rows, per_entry, count, labels, &out->bytes);
  return RequestFailure::None();
}

}  // namespace gebe
