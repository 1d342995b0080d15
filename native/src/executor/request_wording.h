// Triton's wording of every request-contract failure, written once. Normalize is the only
// caller; front ends never word a contract failure themselves, so a bad request reads the same
// over HTTP JSON, HTTP binary, gRPC and in process.
//
// Text a client sent (names, datatypes) is quoted through Quoted(), which bounds it: a message
// travels as a gRPC metadata entry and a log line, and must stay small whatever the client sent.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "executor/decoded_request.h"

namespace gebe {
namespace wording {

// The longest client text quoted (bytes; cut on a UTF-8 boundary) and the most names listed.
constexpr size_t kMaxQuotedBytes = 120;
constexpr size_t kMaxListedNames = 16;

std::string Quoted(std::string_view client_text);
// [1,28,28]; past 16 dimensions: [1,2,…,16,… (N dimensions)].
std::string Shape(const std::vector<int64_t>& shape);
// 'a', 'b' (model-declared names: not cut, but at most kMaxListedNames of them).
std::string NameList(const std::vector<std::string>& names);
// ['a','b'] (Triton's list form in the missing-inputs message; client names are quoted).
std::string BracketList(const std::vector<std::string>& names);
// A parameter value as the client sent it, for "got ..." (JSON-like: 1, -2, 1.5, true, "text").
std::string Value(const ParameterValue& value);

std::string UnknownInput(const std::string& model, std::string_view input, const std::vector<std::string>& inputs);
std::string DuplicateInput(const std::string& model, std::string_view input);
std::string WrongDatatype(const std::string& model, std::string_view input, std::string_view got, const char* expected);
std::string WrongShape(const std::string& model, std::string_view input, const std::vector<int64_t>& expected,
                       const std::vector<int64_t>& got, bool missing_batch_dimension);
std::string TooManyElements(const std::string& model, std::string_view input, const std::vector<int64_t>& shape, uint64_t limit);
std::string BatchMismatch(const std::string& model, std::string_view input);
std::string ByteSizeMismatch(const std::string& model, std::string_view input, uint64_t expected, uint64_t got);
std::string StringCountMismatch(const std::string& model, std::string_view input, uint64_t expected, uint64_t got);
std::string IncompleteStringLength(const std::string& model, std::string_view input, size_t available);
std::string IncompleteString(const std::string& model, std::string_view input, uint64_t expected, size_t available);
std::string MissingInputs(const std::string& model, size_t expected_count, const std::vector<std::string>& got,
                          const std::vector<std::string>& missing);
std::string BatchTooSmall(const std::string& model);
std::string BatchTooLarge(const std::string& model, int64_t max);
std::string UnknownOutput(const std::string& model, std::string_view output, const std::vector<std::string>& outputs);
std::string DuplicateOutput(const std::string& model, std::string_view output);
std::string NotBoolean(std::string_view parameter, const ParameterValue& value);
std::string OutputNotBoolean(std::string_view parameter, std::string_view output, const ParameterValue& value);
std::string NotPositiveInteger(std::string_view parameter, std::string_view output, const ParameterValue& value);
std::string NotNonNegativeInteger(std::string_view parameter, const ParameterValue& value);
std::string PriorityTooLarge(const ParameterValue& value);
// sequence_id of another type than an unsigned 64-bit integer or a string (sequence_parameters.cc).
std::string SequenceIdNotAnId(const ParameterValue& value);
std::string SequenceIdTooLong(size_t bytes, size_t limit);

// The scheduler's refusals.
std::string ModelUnloading(const std::string& model);

// The sequence batcher's refusals (scheduler/sequence_batcher.cc); `sequence` is the id as
// Triton prints it (SequenceIdText).
std::string SequenceBatchSizeNotOne(const std::string& model);
std::string SequenceIdMissing(const std::string& model);
std::string SequenceStartMissing(const std::string& model, const std::string& sequence);
std::string SequenceBacklogFull(const std::string& model, size_t limit);
std::string SequenceQueueFull(const std::string& model, const std::string& sequence, size_t limit);
std::string SequenceReleased(const std::string& model, const std::string& sequence);
std::string SequenceIdNotNumeric(const std::string& sequence, const char* corrid_datatype);

}  // namespace wording
}  // namespace gebe
