// Random damage to a valid request header (deterministic seed): the reader and the plan never
// crash or read out of bounds (the ASan run checks), and whatever they take stays consistent.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "check.h"
#include "contract_fixture.h"
#include "http/infer_header.h"
#include "http/infer_plan.h"

using namespace gebe;

namespace {

struct Rng {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  uint64_t Next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  size_t Below(size_t n) { return n == 0 ? 0 : size_t(Next() % n); }
};

const std::string kValid =
    R"({"id":"q","inputs":[{"name":"B","datatype":"INT64","shape":[3,2,5],"parameters":{"binary_data_size":240}},)"
    R"({"name":"A","datatype":"FP32","shape":[3,4],"parameters":{"binary_data_size":48}}],)"
    R"("outputs":[{"name":"X","parameters":{"binary_data":true}},{"name":"Y"}],"parameters":{"binary_data_output":true,"priority":1}})";


// Bytes that make interesting damage in JSON.
const char kAlphabet[] = "{}[]\",:\\ 0123456789-.eEtrufalsn\x00\x01\x7f\x80\xc3\xa9\xed\xf0\xff/u";

}  // namespace

TEST(fuzz_damaged_headers_never_crash) {
  const RequestContract contract = TwoInputContract();
  static uint8_t binary[288];
  InferHeader header;
  DecodedRequest decoded;
  NormalizedRequest plan;
  CHECK(ReadInferHeader(kValid.data(), kValid.size(), &header));
  CHECK(DecodeBinaryInfer(header, binary, 288, &decoded));
  CHECK(Normalize(contract, decoded, &plan).ok());
  Rng rng;
  int accepted = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string text = kValid;
    const int edits = 1 + int(rng.Below(3));
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng.Below(text.size());
      const char c = kAlphabet[rng.Below(sizeof(kAlphabet) - 1)];
      switch (rng.Below(4)) {
        case 0: text.erase(at, 1); break;
        case 1: text.insert(text.begin() + long(at), c); break;
        case 2: text[at] = c; break;
        default: text.resize(at); break;
      }
    }
    // An exact-size heap copy, so reading one byte past the end is an ASan error.
    std::unique_ptr<char[]> exact(new char[text.size() ? text.size() : 1]);
    std::copy(text.begin(), text.end(), exact.get());
    if (!ReadInferHeader(exact.get(), text.size(), &header)) continue;
    if (!DecodeBinaryInfer(header, binary, 288, &decoded)) continue;
    if (!Normalize(contract, decoded, &plan).ok()) continue;
    ++accepted;
    // Whatever is taken describes the whole binary part, input by input, within bounds.
    size_t total = 0;
    for (const auto& in : plan.request->inputs) {
      const auto* at = static_cast<const uint8_t*>(in.data);
      CHECK(at >= binary && at + in.byte_size <= binary + 288);
      total += in.byte_size;
    }
    CHECK_EQ(total, size_t(288));
  }
  CHECK(accepted > 0);  // some damage is harmless (whitespace, the id's text)
}
