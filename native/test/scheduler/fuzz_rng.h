// A small deterministic generator (xorshift64) for the mutation fuzz tests: the same seed gives the
// same damaged inputs on every machine, so a failure found in CI reproduces locally.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gebe_test {

struct FuzzRng {
  uint64_t state;
  explicit FuzzRng(uint64_t seed) : state(seed) {}
  uint64_t Next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  size_t Below(size_t n) { return n == 0 ? 0 : size_t(Next() % n); }
};

}  // namespace gebe_test
