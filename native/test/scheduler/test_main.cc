// Runs every registered case (or those whose name contains argv[1]); exit 1 on any failure.
#include <cstring>

#include "check.h"

int main(int argc, char** argv) {
  int ran = 0;
  for (const auto& c : testing::Cases()) {
    if (argc > 1 && std::strstr(c.name, argv[1]) == nullptr) continue;
    const int before = testing::Failures();
    c.body();
    ++ran;
    std::printf("%s %s\n", testing::Failures() == before ? "ok  " : "FAIL", c.name);
  }
  std::printf("%d cases, %d failed checks\n", ran, testing::Failures());
  return testing::Failures() == 0 && ran > 0 ? 0 : 1;
}
