#include "executor/sequence_parameters.h"

#include "executor/request_wording.h"

namespace gebe {

namespace {

RequestFailure Invalid(std::string message) { return RequestFailure::Of(FailureReason::kInvalidArgument, std::move(message)); }

RequestFailure ReadId(const ParameterValue& value, SequenceId* id) {
  switch (value.kind) {
    case ParameterValue::Kind::kAbsent: return RequestFailure::None();
    case ParameterValue::Kind::kString:
      if (value.string_value.size() > kMaxSequenceIdBytes) {
        return Invalid(wording::SequenceIdTooLong(value.string_value.size(), kMaxSequenceIdBytes));
      }
      *id = {SequenceId::Kind::kText, 0, value.string_value};
      return RequestFailure::None();
    case ParameterValue::Kind::kUint64:
      *id = {SequenceId::Kind::kNumber, value.uint64_value, ""};
      return RequestFailure::None();
    case ParameterValue::Kind::kInt64:
      if (value.int64_value < 0) break;
      *id = {SequenceId::Kind::kNumber, uint64_t(value.int64_value), ""};
      return RequestFailure::None();
    default:
      break;  // booleans, fractions and whole numbers past 2^53 (JSON and JS round them), others
  }
  return Invalid(wording::SequenceIdNotAnId(value));
}

RequestFailure ReadFlag(const char* name, const ParameterValue& value, uint8_t bit, uint8_t* flags) {
  if (!value.present()) return RequestFailure::None();
  if (value.kind != ParameterValue::Kind::kBool) return Invalid(wording::NotBoolean(name, value));
  if (value.bool_value) *flags |= bit;
  return RequestFailure::None();
}

}  // namespace

RequestFailure ReadSequenceParameters(const DecodedRequest& decoded, SequenceParameters* out) {
  *out = SequenceParameters();
  RequestFailure failure = ReadId(decoded.sequence_id, &out->id);
  if (failure.ok()) failure = ReadFlag("sequence_start", decoded.sequence_start, kSequenceStart, &out->flags);
  if (failure.ok()) failure = ReadFlag("sequence_end", decoded.sequence_end, kSequenceEnd, &out->flags);
  return failure;
}

RequestFailure CheckSequenceRequest(const std::string& model, bool batched, int64_t rows, const SequenceId& id) {
  if (batched && rows != 1) return Invalid(wording::SequenceBatchSizeNotOne(model));
  if (!SequenceIdPresent(id)) return Invalid(wording::SequenceIdMissing(model));
  return RequestFailure::None();
}

}  // namespace gebe
