// Triton's classification extension, once for every path: an output a client asks for as classes
// (HTTP `classification: k`, gRPC `classification` / `class_count`) is answered as BYTES, per
// batch entry its k largest values, each "value:index" or "value:index:label". The native HTTP
// and gRPC routes call Classify on the scheduler thread; the answers JS writes (ensembles, Python
// models, any model behind the JS front ends) reach the same function through the addon
// (classification_js.cc).
//
// No N-API and no scheduler: unit-tested on its own (native/test/classification).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "executor/request_failure.h"

namespace gebe {

// One output's labels by class index, as its label_filename lists them (read at load, at most
// 16 MiB). Kept as one text and the end of each label, so a large file of short lines costs one
// allocation and an offset per line, not a string object per line.
class ClassLabels {
 public:
  void Append(std::string_view label);
  // The label of class `index`; empty when the file has none for it (past its end, or an
  // empty line): such a class prints without one.
  std::string_view At(size_t index) const;
  size_t size() const { return ends_.size(); }

 private:
  std::string text_;
  std::vector<size_t> ends_;
};

// The labels of a model's outputs by output name; outputs without a label file are absent.
using OutputLabels = std::map<std::string, std::shared_ptr<const ClassLabels>, std::less<>>;

// The labels of output `name` in `labels` (which may be null); null when it has none.
const ClassLabels* FindLabels(const OutputLabels* labels, std::string_view name);

// The class result of one output: a BYTES tensor in KServe's layout.
struct ClassResult {
  std::vector<int64_t> shape;  // [batch, n] when batched, else [n]; n = min(k, classes per entry)
  std::vector<uint8_t> bytes;  // per element a 4-byte little-endian length, then its text
};

// The top `k` classes of the output `name` of `dtype` and `shape` (its `byte_size` bytes at
// `data`, any alignment). `batched`: the first dimension is the batch, and each batch entry is
// classified on its own; otherwise the whole tensor is one entry. Values in descending order,
// ties (and NaNs, which rank below every number) in index order; floating-point values printed
// as std::fixed with precision 9 (AppendFixed9), integers plain. `labels` may be null.
//
// Fails (kInvalidArgument, in Triton's wording) for the types Triton has no class results for:
// BOOL, FP16, BF16 and BYTES.
RequestFailure Classify(const std::string& name, DataType dtype, const std::vector<int64_t>& shape, bool batched,
                        const uint8_t* data, size_t byte_size, uint64_t k, const ClassLabels* labels, ClassResult* out);

// `v` as Triton prints a class value: std::fixed with precision 9 ("0.699999988", "-0.000000000",
// "nan", "-inf"). Exposed for tests.
void AppendFixed9(double v, std::string* out);

}  // namespace gebe
