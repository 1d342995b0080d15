#include "http/infer_plan.h"

#include <cstring>

namespace gebe {

namespace {

constexpr std::string_view kModelsPrefix = "/v2/models/";
bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
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

bool DecodeBinaryInfer(const InferHeader& header, const uint8_t* binary, size_t binary_bytes, DecodedRequest* out) {
  *out = DecodedRequest();
  if (header.inputs.empty()) return false;
  uint64_t offset = 0;
  out->inputs.resize(header.inputs.size());
  for (size_t i = 0; i < header.inputs.size(); ++i) {
    const HeaderInput& in = header.inputs[i];
    if (!in.has_binary_data_size) return false;  // JSON `data`: the JS codec decodes it
    if (in.binary_data_size > binary_bytes - offset) return false;
    DecodedInput& d = out->inputs[i];
    d.name = in.name;
    d.datatype = in.datatype;
    d.shape = in.shape;
    d.bytes = {binary + offset, static_cast<size_t>(in.binary_data_size)};
    offset += in.binary_data_size;
  }
  if (offset != binary_bytes) return false;
  out->has_id = header.has_id;
  out->id = header.id;
  out->has_outputs = header.has_outputs;
  for (const HeaderOutput& o : header.outputs) {
    DecodedOutput d;
    d.name = o.name;
    if (o.binary_data != -1) d.binary_data = ParameterValue::Bool(o.binary_data == 1);
    out->outputs.push_back(std::move(d));
  }
  if (header.binary_data_output != -1) out->binary_data_output = ParameterValue::Bool(header.binary_data_output == 1);
  if (header.has_priority) out->priority = ParameterValue::Uint64(header.priority);
  if (header.has_timeout) out->timeout_us = ParameterValue::Uint64(header.timeout);
  return true;
}

bool NativeRouteAnswers(const NormalizedRequest& request, const RequestContract& contract) {
  if (request.outputs.empty()) return false;  // no outputs: the JS path answers plain JSON
  for (size_t k = 0; k < request.outputs.size(); ++k) {
    if (!request.binary[k] || request.class_count[k] != 0) return false;
    if (!NativeRouteDatatype(contract.outputs[request.outputs[k]].dtype)) return false;
  }
  return true;
}

}  // namespace gebe
