#include "scheduler/sequence_inputs.h"

#include <cstring>

#include "executor/request_wording.h"

namespace gebe {

namespace {

template <class T>
std::vector<uint8_t> Scalar(T value) {
  std::vector<uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

std::vector<uint8_t> FlagBytes(DataType dtype, double value) {
  switch (dtype) {
    case DataType::kFloat32: return Scalar<float>(static_cast<float>(value));
    case DataType::kBool: return Scalar<uint8_t>(value != 0 ? 1 : 0);
    default: return Scalar<int32_t>(static_cast<int32_t>(value));
  }
}

// The CORRID tensor's bytes, or an empty vector with `error` set.
std::vector<uint8_t> CorrIdBytes(DataType dtype, const SequenceId& id, std::string& error) {
  if (dtype == DataType::kString) {
    const std::string text = SequenceIdText(id);
    std::vector<uint8_t> bytes(4 + text.size());
    const auto len = static_cast<uint32_t>(text.size());
    std::memcpy(bytes.data(), &len, 4);
    std::memcpy(bytes.data() + 4, text.data(), text.size());
    return bytes;
  }
  if (id.kind == SequenceId::Kind::kText) {
    error = wording::SequenceIdNotNumeric(id.text, DataTypeName(dtype));
    return {};
  }
  switch (dtype) {
    case DataType::kUInt64: return Scalar<uint64_t>(id.number);
    case DataType::kInt64: return Scalar<int64_t>(static_cast<int64_t>(id.number));
    case DataType::kUInt32: return Scalar<uint32_t>(static_cast<uint32_t>(id.number));
    default: return Scalar<int32_t>(static_cast<int32_t>(id.number));
  }
}

}  // namespace

SequenceStateBytes InitialStates(const SequenceConfig& config) {
  SequenceStateBytes out;
  out.reserve(config.states.size());
  for (const auto& s : config.states) {
    out.push_back(s.initial.size() == s.byte_size ? s.initial : std::vector<uint8_t>(s.byte_size, 0));
  }
  return out;
}

std::string FillSequenceInputs(const SequenceConfig& config, bool batched, const SequenceId& id,
                               const SequenceStateBytes& state, ScheduledRequest& request) {
  const bool start = (request.sequence_flags & kSequenceStart) != 0;
  const bool end = (request.sequence_flags & kSequenceEnd) != 0;
  std::string error;
  auto place = [&](size_t index, DataType dtype, std::vector<int64_t> shape, const std::vector<uint8_t>& bytes) {
    if (batched) shape.insert(shape.begin(), 1);
    request.owned_inputs.emplace_back(bytes.size());
    AlignedBuffer& held = request.owned_inputs.back();
    if (!bytes.empty()) std::memcpy(held.data(), bytes.data(), bytes.size());
    TensorView& view = request.inputs[index];
    view.dtype = dtype;
    view.shape = std::move(shape);
    view.data = static_cast<const uint8_t*>(held.data());
    view.byte_size = bytes.size();
  };
  for (const auto& c : config.controls) {
    std::vector<uint8_t> bytes;
    switch (c.kind) {
      case ControlKind::kStart: bytes = FlagBytes(c.dtype, start ? c.true_value : c.false_value); break;
      case ControlKind::kEnd: bytes = FlagBytes(c.dtype, end ? c.true_value : c.false_value); break;
      case ControlKind::kReady: bytes = FlagBytes(c.dtype, c.true_value); break;
      case ControlKind::kCorrId: bytes = CorrIdBytes(c.dtype, id, error); break;
    }
    if (!error.empty()) return error;
    place(c.engine_index, c.dtype, {1}, bytes);
  }
  for (size_t i = 0; i < config.states.size(); ++i) {
    const SequenceState& s = config.states[i];
    place(s.engine_input, s.dtype, s.dims, state[i]);
  }
  return "";
}

}  // namespace gebe
