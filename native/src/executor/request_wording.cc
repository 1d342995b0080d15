#include "executor/request_wording.h"

#include <charconv>
#include <cmath>

namespace gebe {
namespace wording {

namespace {

std::string Q(std::string_view text) { return "'" + Quoted(text) + "'"; }

}  // namespace

std::string Quoted(std::string_view text) {
  if (text.size() <= kMaxQuotedBytes) return std::string(text);
  size_t cut = kMaxQuotedBytes;
  // Step back over UTF-8 continuation bytes, so the cut never splits a character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "… (" + std::to_string(text.size()) + " bytes)";
}

std::string Shape(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size() && i < 16; ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  if (shape.size() > 16) out += ",… (" + std::to_string(shape.size()) + " dimensions)";
  return out + "]";
}

std::string NameList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < kMaxListedNames; ++i) out += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > kMaxListedNames) out += ", … (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::string BracketList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size() && i < kMaxListedNames; ++i) out += (i ? ",'" : "'") + Quoted(names[i]) + "'";
  if (names.size() > kMaxListedNames) out += ",… (" + std::to_string(names.size()) + " in all)";
  return out + "]";
}

std::string Value(const ParameterValue& value) {
  switch (value.kind) {
    case ParameterValue::Kind::kAbsent: return "none";
    case ParameterValue::Kind::kBool: return value.bool_value ? "true" : "false";
    case ParameterValue::Kind::kInt64: return std::to_string(value.int64_value);
    case ParameterValue::Kind::kUint64: return std::to_string(value.uint64_value);
    case ParameterValue::Kind::kString: return "\"" + Quoted(value.string_value) + "\"";
    case ParameterValue::Kind::kOther: return value.string_value;
    case ParameterValue::Kind::kDouble: {
      const double v = value.double_value;
      if (std::isnan(v)) return "NaN";
      if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
      char buffer[32];
      auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
      return std::string(buffer, result.ptr);
    }
  }
  return "none";
}

std::string UnknownInput(const std::string& model, std::string_view input, const std::vector<std::string>& inputs) {
  return "unexpected inference input " + Q(input) + " for model '" + model + "'; its inputs are " + NameList(inputs);
}

std::string DuplicateInput(const std::string& model, std::string_view input) {
  return "input " + Q(input) + " appears more than once in the request for model '" + model + "'";
}

std::string WrongDatatype(const std::string& model, std::string_view input, std::string_view got, const char* expected) {
  return "inference input " + Q(input) + " data-type is " + Q(got) + ", but model '" + model + "' expects '" + expected + "'";
}

std::string WrongShape(const std::string& model, std::string_view input, const std::vector<int64_t>& expected,
                       const std::vector<int64_t>& got, bool missing_batch_dimension) {
  std::string out = "unexpected shape for input " + Q(input) + " for model '" + model + "'. Expected " + Shape(expected) +
                    ", got " + Shape(got) + ".";
  if (missing_batch_dimension) {
    out +=
        " NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to be prepended to each "
        "input shape. If you want to specify the full shape including the batch dim in your input dims config, try setting "
        "max_batch_size to zero. See the model configuration docs for more info on max_batch_size.";
  }
  return out;
}

std::string TooManyElements(const std::string& model, std::string_view input, const std::vector<int64_t>& shape, uint64_t limit) {
  return "input " + Q(input) + " for model '" + model + "' declares shape " + Shape(shape) + ", more than " +
         std::to_string(limit) + " elements";
}

std::string BatchMismatch(const std::string& model, std::string_view input) {
  return "input " + Q(input) + " batch size does not match other inputs for '" + model + "'";
}

std::string ByteSizeMismatch(const std::string& model, std::string_view input, uint64_t expected, uint64_t got) {
  return "input byte size mismatch for input " + Q(input) + " for model '" + model + "'. Expected " + std::to_string(expected) +
         ", got " + std::to_string(got);
}

std::string StringCountMismatch(const std::string& model, std::string_view input, uint64_t expected, uint64_t got) {
  return "unexpected number of string elements for input " + Q(input) + " for model '" + model + "'. Expected " +
         std::to_string(expected) + ", got " + std::to_string(got);
}

std::string IncompleteStringLength(const std::string& model, std::string_view input, size_t available) {
  return "incomplete string length indicator for inference input " + Q(input) + " for model '" + model +
         "', expecting 4 bytes but only " + std::to_string(available) +
         " bytes available; each BYTES element is a 4-byte little-endian length, then its bytes";
}

std::string IncompleteString(const std::string& model, std::string_view input, uint64_t expected, size_t available) {
  return "incomplete string for inference input " + Q(input) + " for model '" + model + "', expecting " +
         std::to_string(expected) + " bytes but only " + std::to_string(available) + " bytes available";
}

std::string MissingInputs(const std::string& model, size_t expected_count, const std::vector<std::string>& got,
                          const std::vector<std::string>& missing) {
  return "expected " + std::to_string(expected_count) + " inputs but got " + std::to_string(got.size()) +
         " inputs for model '" + model + "'. Got input(s) " + BracketList(got) + ", but missing required input(s) " +
         BracketList(missing) + ". Please provide all required input(s).";
}

std::string BatchTooSmall(const std::string& model) { return "inference request batch-size must be >= 1 for '" + model + "'"; }

std::string BatchTooLarge(const std::string& model, int64_t max) {
  return "inference request batch-size must be <= " + std::to_string(max) + " for '" + model + "'";
}

std::string UnknownOutput(const std::string& model, std::string_view output, const std::vector<std::string>& outputs) {
  return "unexpected inference output " + Q(output) + " for model '" + model + "'; its outputs are " + NameList(outputs);
}

std::string DuplicateOutput(const std::string& model, std::string_view output) {
  return "output " + Q(output) + " is requested more than once in the request for model '" + model + "'";
}

std::string NotBoolean(std::string_view parameter, const ParameterValue& value) {
  return "request parameter '" + std::string(parameter) + "' must be a boolean, got " + Value(value);
}

std::string OutputNotBoolean(std::string_view parameter, std::string_view output, const ParameterValue& value) {
  return "parameter '" + std::string(parameter) + "' of output " + Q(output) + " must be a boolean, got " + Value(value);
}

std::string NotPositiveInteger(std::string_view parameter, std::string_view output, const ParameterValue& value) {
  return "parameter '" + std::string(parameter) + "' of output " + Q(output) + " must be a positive integer, got " + Value(value);
}

std::string NotNonNegativeInteger(std::string_view parameter, const ParameterValue& value) {
  return "request parameter '" + std::string(parameter) + "' must be a non-negative integer, got " + Value(value);
}

std::string PriorityTooLarge(const ParameterValue& value) {
  return "request parameter 'priority' must be at most 4294967295, got " + Value(value);
}

std::string SequenceIdNotAnId(const ParameterValue& value) {
  std::string message = "request parameter 'sequence_id' must be an unsigned 64-bit integer or a string, got " + Value(value);
  // A whole number past 2^53 was a JSON or JS number, already rounded: say how to send it exactly.
  const double v = value.double_value;
  if (value.kind == ParameterValue::Kind::kDouble && std::isfinite(v) && v > 0 && std::floor(v) == v) {
    message += " (ids above 2^53 cannot be taken exactly: use smaller ids or string ids)";
  }
  return message;
}

std::string SequenceIdTooLong(size_t bytes, size_t limit) {
  return "request parameter 'sequence_id' is a string of " + std::to_string(bytes) + " bytes, over the limit of " +
         std::to_string(limit) + "; use a shorter id";
}

std::string ModelUnloading(const std::string& model) {
  return "model '" + model + "' is unloading; the request was not run";
}

std::string SequenceBatchSizeNotOne(const std::string& model) {
  return "inference request to model '" + model + "' must specify batch-size 1 due to requirements of sequence batcher";
}

std::string SequenceIdMissing(const std::string& model) {
  return "inference request to model '" + model +
         "' must specify a non-zero or non-empty correlation ID (request parameter sequence_id)";
}

std::string SequenceStartMissing(const std::string& model, const std::string& sequence) {
  return "inference request for sequence " + sequence + " to model '" + model +
         "' must specify the START flag on the first request of the sequence";
}

std::string SequenceBacklogFull(const std::string& model, size_t limit) {
  return "model '" + model + "' has " + std::to_string(limit) +
         " sequences waiting for a sequence slot; end sequences (sequence_end) or retry later";
}

std::string SequenceQueueFull(const std::string& model, const std::string& sequence, size_t limit) {
  return "sequence " + sequence + " of model '" + model + "' already has " + std::to_string(limit) +
         " requests waiting; wait for answers before sending more";
}

std::string SequenceReleased(const std::string& model, const std::string& sequence) {
  return "sequence " + sequence + " of model '" + model + "' was released before this request ran";
}

std::string SequenceIdNotNumeric(const std::string& sequence, const char* corrid_datatype) {
  return "sequence id '" + sequence + "' is a string, but the model's CONTROL_SEQUENCE_CORRID input is " +
         std::string(corrid_datatype) + "; send a numeric sequence_id";
}

}  // namespace wording
}  // namespace gebe
