// The one assertion of the cpu engine's native tests (no framework, so the sanitizer builds need
// nothing but g++): a failed check prints what failed (up to print_limit lines) and is counted;
// main() reports the count and exits non-zero.
#pragma once

#include <cstdio>
#include <limits>
#include <string>

namespace cpu_test {

inline int failures = 0;
inline int print_limit = std::numeric_limits<int>::max();

inline void Check(bool ok, const std::string& what) {
  if (!ok && failures++ < print_limit) std::fprintf(stderr, "FAIL: %s\n", what.c_str());
}

}  // namespace cpu_test

using cpu_test::Check;
using cpu_test::failures;
