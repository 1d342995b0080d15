// A request's sequence id (Triton's correlation id): an unsigned 64-bit number or a string.
// kNone, 0 and "" mean "no sequence id". The one definition: front ends decode it into
// DecodedRequest (executor/decoded_request.h) and the sequence batcher keys sequences by it.
#pragma once

#include <cstdint>
#include <string>

namespace gebe {

struct SequenceId {
  enum class Kind : uint8_t { kNone, kNumber, kText };
  Kind kind = Kind::kNone;
  uint64_t number = 0;
  std::string text;
};

inline bool SequenceIdPresent(const SequenceId& id) {
  return id.kind == SequenceId::Kind::kText ? !id.text.empty() : id.kind == SequenceId::Kind::kNumber && id.number != 0;
}
// How Triton prints the id in its messages.
inline std::string SequenceIdText(const SequenceId& id) {
  return id.kind == SequenceId::Kind::kText ? id.text : std::to_string(id.number);
}
// A map key that keeps 7 and "7" apart.
inline std::string SequenceIdKey(const SequenceId& id) {
  return (id.kind == SequenceId::Kind::kText ? "s:" : "u:") + SequenceIdText(id);
}

constexpr uint8_t kSequenceStart = 1;
constexpr uint8_t kSequenceEnd = 2;

}  // namespace gebe
