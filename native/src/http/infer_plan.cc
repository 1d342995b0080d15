#include "http/infer_plan.h"

#include <cstring>

namespace gebe {

namespace {

constexpr std::string_view kModelsPrefix = "/v2/models/";
// The codec's limit on one tensor's element count (codec/shape.ts MAX_ELEMENTS).
constexpr uint64_t kMaxElements = uint64_t(1) << 31;

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Index of the tensor called `name`, or tensors.size() when the model has none by that name.
size_t IndexByName(const std::vector<ContractTensor>& tensors, const std::string& name) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return i;
  }
  return tensors.size();
}

}  // namespace

bool MatchInferUrl(std::string_view url, InferUrl* out) {
  if (url.substr(0, kModelsPrefix.size()) != kModelsPrefix) return false;
  std::string_view rest = url.substr(kModelsPrefix.size());
  // Percent-escapes, queries and fragments: the JS router decodes or strips them; leave them to it.
  if (rest.find_first_of("%?#") != std::string_view::npos) return false;
  // Node reads request targets as latin1, so bytes past ASCII name another model there.
  for (char c : rest) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7F) return false;
  }
  std::vector<std::string_view> segments;
  size_t start = 0;
  for (;;) {
    const size_t slash = rest.find('/', start);
    segments.push_back(rest.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (segments.size() > 4) return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  for (std::string_view s : segments) {
    if (s.empty()) return false;  // also a trailing slash
  }
  *out = InferUrl();
  if (segments.size() == 2 && segments[1] == "infer") {
    out->model = segments[0];
    return true;
  }
  if (segments.size() == 4 && segments[1] == "versions" && segments[3] == "infer" && AllDigits(segments[2])) {
    out->model = segments[0];
    out->version = segments[2];
    out->versioned = true;
    return true;
  }
  return false;
}

bool BinaryHeaderLength(const std::vector<std::pair<std::string, std::string>>& headers, size_t* length) {
  const std::string* found = nullptr;
  for (const auto& h : headers) {
    if (h.first == "content-encoding") return false;
    if (h.first == "inference-header-content-length") {
      if (found != nullptr) return false;  // Node joins repeated values, which the JS path refuses
      found = &h.second;
    }
  }
  // Plain digits, short enough to be a safe integer.
  if (found == nullptr || !AllDigits(*found) || found->size() > 15) return false;
  size_t v = 0;
  for (char c : *found) v = v * 10 + size_t(c - '0');
  *length = v;
  return true;
}

bool NativeRouteDatatype(DataType dtype) {
  switch (dtype) {
    case DataType::kBool:
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32:
    case DataType::kUInt64:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kFloat32:
    case DataType::kFloat64:
      return true;
    default:
      return false;
  }
}

bool PlanInfer(const InferHeader& header, const InferContract& contract, size_t binary_bytes, InferPlan* plan) {
  *plan = InferPlan();
  const size_t n_inputs = contract.inputs.size();
  if (header.inputs.empty() || header.inputs.size() != n_inputs) return false;
  plan->inputs.resize(n_inputs);
  std::vector<bool> present(n_inputs, false);
  size_t offset = 0;
  int64_t rows = -1;
  for (const HeaderInput& in : header.inputs) {
    if (!in.has_binary_data_size) return false;  // JSON `data`: the JS codec decodes it
    const size_t index = IndexByName(contract.inputs, in.name);
    if (index == n_inputs || present[index]) return false;
    present[index] = true;
    const ContractTensor& meta = contract.inputs[index];
    if (!NativeRouteDatatype(meta.dtype) || in.datatype != DataTypeName(meta.dtype)) return false;
    if (in.shape.size() != meta.shape.size()) return false;
    uint64_t elements = 1;
    for (size_t d = 0; d < in.shape.size(); ++d) {
      const int64_t got = in.shape[d];
      if (meta.shape[d] != -1 && meta.shape[d] != got) return false;
      const uint64_t dim = static_cast<uint64_t>(got);
      if (elements != 0 && dim > kMaxElements / elements) return false;
      elements *= dim;
      if (elements > kMaxElements) return false;
    }
    if (contract.batched) {
      if (in.shape.empty()) return false;
      if (rows == -1) rows = in.shape[0];
      else if (rows != in.shape[0]) return false;
    }
    const uint64_t bytes = elements * ElementSize(meta.dtype);
    if (in.binary_data_size != bytes || bytes > binary_bytes - offset) return false;
    InferPlan::Input& p = plan->inputs[index];
    p.model_index = index;
    p.body_offset = offset;
    p.byte_size = static_cast<size_t>(bytes);
    p.shape = in.shape;
    offset += static_cast<size_t>(bytes);
  }
  if (offset != binary_bytes) return false;
  if (contract.batched) {
    if (rows < 1 || rows > contract.max_request_batch) return false;
    plan->rows = rows;
  }

  // Outputs: every one returned must travel binary, or the JS path answers with JSON data.
  const size_t n_outputs = contract.outputs.size();
  if (n_outputs == 0) return false;
  const bool binary_by_default = header.binary_data_output == 1;
  if (!header.has_outputs) {
    if (!binary_by_default) return false;
    for (size_t o = 0; o < n_outputs; ++o) {
      if (!NativeRouteDatatype(contract.outputs[o].dtype)) return false;
      plan->outputs.push_back(o);
    }
    plan->output_mask = ~uint64_t(0);
  } else {
    if (header.outputs.empty()) return false;  // no outputs: the JS path answers plain JSON
    std::vector<bool> asked(n_outputs, false);
    bool wide = false;
    for (const HeaderOutput& out : header.outputs) {
      const size_t index = IndexByName(contract.outputs, out.name);
      if (index == n_outputs || asked[index]) return false;
      asked[index] = true;
      const bool binary = out.binary_data != -1 ? out.binary_data == 1 : binary_by_default;
      if (!binary || !NativeRouteDatatype(contract.outputs[index].dtype)) return false;
      plan->outputs.push_back(index);
      // As validate-request.ts: bit i asks for output i; all bits when an index does not fit 31.
      if (index >= 31) wide = true;
      else plan->output_mask |= uint64_t(1) << index;
    }
    if (wide) plan->output_mask = ~uint64_t(0);
  }

  if (header.has_priority) {
    if (header.priority > 0xffffffffull) return false;
    plan->priority = static_cast<uint32_t>(header.priority);
  }
  if (header.has_timeout) plan->timeout_us = header.timeout;
  return true;
}

}  // namespace gebe
