// Normalize (normalize.h): the one check of an infer request. The order of the checks follows
// Triton's (names and datatypes, then shapes, then sizes, then missing inputs and batch size),
// so the first fault a client sees is the one Triton would report.
#include "executor/normalize.h"

#include <cstring>

#include "executor/request_wording.h"

namespace gebe {

namespace {

// The largest element count one tensor may declare (sizes are bounded again by the bytes sent).
constexpr uint64_t kMaxElements = uint64_t(1) << 31;

RequestFailure Invalid(std::string message) { return RequestFailure::Of(FailureReason::kInvalidArgument, std::move(message)); }

bool ShapeMatches(const std::vector<int64_t>& expected, const std::vector<int64_t>& got) {
  if (expected.size() != got.size()) return false;
  for (size_t d = 0; d < got.size(); ++d) {
    if (got[d] < 0 || (expected[d] != -1 && expected[d] != got[d])) return false;
  }
  return true;
}

std::vector<std::string> NamesOf(const std::vector<ContractTensor>& tensors) {
  std::vector<std::string> names;
  names.reserve(tensors.size());
  for (const ContractTensor& t : tensors) names.push_back(t.name);
  return names;
}

size_t IndexByName(const std::vector<ContractTensor>& tensors, const std::string& name) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return i;
  }
  return tensors.size();
}

// Checks the KServe BYTES layout (4-byte little-endian length, then the bytes, per element).
RequestFailure CheckBytesLayout(const std::string& model, const DecodedInput& in, uint64_t elements) {
  const uint8_t* p = in.bytes.data;
  const size_t size = in.bytes.size;
  size_t offset = 0;
  uint64_t count = 0;
  while (offset < size) {
    if (size - offset < 4) return Invalid(wording::IncompleteStringLength(model, in.name, size - offset));
    uint32_t length;
    std::memcpy(&length, p + offset, 4);  // little-endian hosts only (x86-64, aarch64)
    offset += 4;
    if (length > size - offset) return Invalid(wording::IncompleteString(model, in.name, length, size - offset));
    offset += length;
    ++count;
  }
  if (count != elements) return Invalid(wording::StringCountMismatch(model, in.name, elements, count));
  return RequestFailure::None();
}

// A parameter that must be a whole number >= 0 (JS numbers arrive as doubles when fractional).
bool NonNegativeInteger(const ParameterValue& v, uint64_t* out) {
  switch (v.kind) {
    case ParameterValue::Kind::kUint64: *out = v.uint64_value; return true;
    case ParameterValue::Kind::kInt64:
      if (v.int64_value < 0) return false;
      *out = static_cast<uint64_t>(v.int64_value);
      return true;
    default: return false;
  }
}

RequestFailure CheckInputs(const RequestContract& contract, const DecodedRequest& decoded, ScheduledRequest* request,
                           int64_t* rows) {
  const std::string& model = contract.model_name;
  const size_t n = contract.inputs.size();
  std::vector<const DecodedInput*> given(n, nullptr);
  int64_t batch = -1;
  for (const DecodedInput& in : decoded.inputs) {
    const size_t index = IndexByName(contract.inputs, in.name);
    if (index == n) return Invalid(wording::UnknownInput(model, in.name, NamesOf(contract.inputs)));
    if (given[index] != nullptr) return Invalid(wording::DuplicateInput(model, in.name));
    const ContractTensor& meta = contract.inputs[index];
    const char* expected_type = DataTypeName(meta.dtype);
    if (in.datatype != expected_type) return Invalid(wording::WrongDatatype(model, in.name, in.datatype, expected_type));
    if (!ShapeMatches(meta.shape, in.shape)) {
      const bool missing_batch = contract.batched && in.shape.size() + 1 == meta.shape.size();
      return Invalid(wording::WrongShape(model, in.name, meta.shape, in.shape, missing_batch));
    }
    uint64_t elements = 1;
    for (int64_t d : in.shape) {
      elements *= static_cast<uint64_t>(d);
      if (elements > kMaxElements) return Invalid(wording::TooManyElements(model, in.name, in.shape, kMaxElements));
    }
    if (contract.batched) {
      if (batch == -1) batch = in.shape[0];
      else if (in.shape[0] != batch) return Invalid(wording::BatchMismatch(model, in.name));
    }
    const size_t element_size = ElementSize(meta.dtype);
    if (element_size > 0) {
      if (in.bytes.size != elements * element_size) {
        return Invalid(wording::ByteSizeMismatch(model, in.name, elements * element_size, in.bytes.size));
      }
    } else {
      RequestFailure bad = CheckBytesLayout(model, in, elements);
      if (!bad.ok()) return bad;
    }
    given[index] = &in;
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < n; ++i) {
    if (given[i] == nullptr && !contract.inputs[i].optional) missing.push_back(contract.inputs[i].name);
  }
  if (!missing.empty()) {
    std::vector<std::string> got;
    for (const DecodedInput& in : decoded.inputs) got.push_back(in.name);
    return Invalid(wording::MissingInputs(model, n, got, missing));
  }
  if (contract.batched) {
    if (batch < 1) return Invalid(wording::BatchTooSmall(model));
    if (batch > contract.max_request_batch) return Invalid(wording::BatchTooLarge(model, contract.max_request_batch));
  }
  *rows = contract.batched ? batch : 1;

  request->inputs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const ContractTensor& meta = contract.inputs[i];
    TensorView& view = request->inputs[i];
    view.name = meta.name;
    view.dtype = meta.dtype;
    const DecodedInput* in = given[i];
    if (in == nullptr) {
      // An optional input the client left out still needs a tensor for the engine: an empty one.
      view.shape.assign(meta.shape.size(), 0);
      if (contract.batched && !view.shape.empty()) view.shape[0] = batch;
      continue;
    }
    view.shape = in->shape;
    view.byte_size = in->bytes.size;
    view.data = in->bytes.data;  // maybe misaligned for its type: the batch gather copies it (batch_io.h)
  }
  return RequestFailure::None();
}

RequestFailure CheckOutputs(const RequestContract& contract, const DecodedRequest& decoded, NormalizedRequest* out) {
  const std::string& model = contract.model_name;
  const ParameterValue& by_default = decoded.binary_data_output;
  if (by_default.present() && by_default.kind != ParameterValue::Kind::kBool) {
    return Invalid(wording::NotBoolean("binary_data_output", by_default));
  }
  const bool binary_default = by_default.present() && by_default.bool_value;
  const size_t n = contract.outputs.size();
  if (!decoded.has_outputs) {
    for (size_t o = 0; o < n; ++o) out->outputs.push_back(o);
    out->binary.assign(n, binary_default);
    out->class_count.assign(n, 0);
    out->request->output_mask = ~uint64_t(0);
    return RequestFailure::None();
  }
  std::vector<bool> asked(n, false);
  uint64_t mask = 0;
  out->outputs.reserve(decoded.outputs.size());
  out->binary.reserve(decoded.outputs.size());
  out->class_count.reserve(decoded.outputs.size());
  for (const DecodedOutput& requested : decoded.outputs) {
    const size_t index = IndexByName(contract.outputs, requested.name);
    if (index == n) return Invalid(wording::UnknownOutput(model, requested.name, NamesOf(contract.outputs)));
    if (asked[index]) return Invalid(wording::DuplicateOutput(model, requested.name));
    asked[index] = true;
    bool binary = binary_default;
    if (requested.binary_data.present()) {
      if (requested.binary_data.kind != ParameterValue::Kind::kBool) {
        return Invalid(wording::OutputNotBoolean("binary_data", requested.name, requested.binary_data));
      }
      binary = requested.binary_data.bool_value;
    }
    uint64_t classes = 0;
    if (requested.class_count.present() && (!NonNegativeInteger(requested.class_count, &classes) || classes < 1 ||
                                            classes > uint64_t(INT64_MAX))) {
      return Invalid(wording::NotPositiveInteger("classification", requested.name, requested.class_count));
    }
    out->outputs.push_back(index);
    out->binary.push_back(binary);
    out->class_count.push_back(static_cast<int64_t>(classes));
    if (index < 64) mask |= uint64_t(1) << index;  // outputs past 64 always return (scheduled_request.h)
  }
  out->request->output_mask = mask;
  return RequestFailure::None();
}

RequestFailure CheckScheduling(const DecodedRequest& decoded, NormalizedRequest* out) {
  if (decoded.priority.present()) {
    uint64_t priority = 0;
    if (!NonNegativeInteger(decoded.priority, &priority)) return Invalid(wording::NotNonNegativeInteger("priority", decoded.priority));
    if (priority > 0xffffffffull) return Invalid(wording::PriorityTooLarge(decoded.priority));
    out->priority = static_cast<uint32_t>(priority);
  }
  if (decoded.timeout_us.present()) {
    uint64_t timeout = 0;
    if (!NonNegativeInteger(decoded.timeout_us, &timeout)) return Invalid(wording::NotNonNegativeInteger("timeout", decoded.timeout_us));
    out->timeout_us = timeout;
  }
  return RequestFailure::None();
}

}  // namespace

RequestFailure Normalize(const RequestContract& contract, const DecodedRequest& decoded, NormalizedRequest* out) {
  *out = NormalizedRequest();
  out->request = std::make_unique<ScheduledRequest>();
  int64_t rows = 1;
  // Request parameters first: Triton's front ends refuse a bad one while decoding, before the core
  // looks at the tensors.
  RequestFailure failure = ReadSequenceParameters(decoded, &out->sequence);
  if (failure.ok()) failure = CheckInputs(contract, decoded, out->request.get(), &rows);
  if (failure.ok()) failure = CheckOutputs(contract, decoded, out);
  if (failure.ok()) failure = CheckScheduling(decoded, out);
  if (!failure.ok()) return failure;
  out->request->info.rows = rows;
  return failure;
}

}  // namespace gebe
