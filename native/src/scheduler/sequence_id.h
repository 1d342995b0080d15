// A request's sequence id (Triton's correlation id): an unsigned 64-bit number or a string.
// 0 and "" mean "no sequence id".
#pragma once

#include <cstdint>
#include <string>

namespace gebe {

struct SequenceId {
  bool is_string = false;
  uint64_t number = 0;
  std::string text;

  bool present() const { return is_string ? !text.empty() : number != 0; }
  // How Triton prints the id in its messages.
  std::string ToString() const { return is_string ? text : std::to_string(number); }
  // A map key that keeps 7 and "7" apart.
  std::string Key() const { return (is_string ? "s:" : "u:") + ToString(); }
};

constexpr uint8_t kSequenceStart = 1;
constexpr uint8_t kSequenceEnd = 2;

}  // namespace gebe
