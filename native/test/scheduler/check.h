// A minimal test harness for the native scheduler tests (no framework dependency, so the
// sanitizer builds need nothing but g++). TEST(name) registers a case; CHECK* record failures.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace testing {

struct Case {
  const char* name;
  std::function<void()> body;
};

inline std::vector<Case>& Cases() {
  static std::vector<Case> cases;
  return cases;
}
inline int& Failures() {
  static int failures = 0;
  return failures;
}
struct Registrar {
  Registrar(const char* name, std::function<void()> body) { Cases().push_back({name, std::move(body)}); }
};

inline void Fail(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: FAILED %s\n", file, line, what.c_str());
  ++Failures();
}

template <class T>
std::ostream& operator<<(std::ostream& out, const std::vector<T>& v) {
  out << "[";
  for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
  return out << "]";
}

template <class A, class B>
void CheckEq(const A& a, const B& b, const char* as, const char* bs, const char* file, int line, const std::string& ctx) {
  if (!(a == b)) {
    std::ostringstream out;
    out << as << " == " << bs << " (" << a << " vs " << b << ")" << (ctx.empty() ? "" : " [" + ctx + "]");
    Fail(file, line, out.str());
  }
}

}  // namespace testing

#define TEST_CONCAT2(a, b) a##b
#define TEST_CONCAT(a, b) TEST_CONCAT2(a, b)
#define TEST(name)                                                                             \
  static void name();                                                                          \
  static ::testing::Registrar TEST_CONCAT(registrar_, name)(#name, name);                      \
  static void name()
#define CHECK(cond) \
  do { if (!(cond)) ::testing::Fail(__FILE__, __LINE__, #cond); } while (0)
#define CHECK_EQ(a, b) ::testing::CheckEq((a), (b), #a, #b, __FILE__, __LINE__, "")
#define CHECK_EQ_CTX(a, b, ctx) ::testing::CheckEq((a), (b), #a, #b, __FILE__, __LINE__, (ctx))
