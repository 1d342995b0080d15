// Random damage to a valid request (deterministic seed): the JSON decoder and Normalize never
// crash or read out of bounds (the ASan run checks: every text is an exact-size heap copy), and
// whatever they take stays within the body.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "check.h"
#include "fuzz_rng.h"
#include "contract_fixture.h"
#include "http/json_infer_request.h"

using namespace gebe;

namespace {

// B (INT64, 3 rows of 2x5) as JSON data, A (FP32, 3 rows of 4) binary: 48 bytes after the JSON.
const std::string kValid =
    R"({"id":"q","inputs":[{"name":"B","datatype":"INT64","shape":[3,2,5],"data":[[[1,2,3,4,5],[6,7,8,9,10]],)"
    R"([[1,2,3,4,5],[6,7,8,9,10]],[[1,2,3,4,5],[6,7,8,9,10]]]},)"
    R"({"name":"A","datatype":"FP32","shape":[3,4],"parameters":{"binary_data_size":48}}],)"
    R"("outputs":[{"name":"X","parameters":{"binary_data":true}},{"name":"Y"}],"parameters":{"binary_data_output":false,"priority":1}})";
constexpr size_t kBinary = 48;

// Bytes that make interesting damage in JSON.
const char kAlphabet[] = "{}[]\",:\\ 0123456789-.eEtrufalsn\x00\x01\x7f\x80\xc3\xa9\xed\xf0\xff/u";

bool Run(const std::string& text, const RequestContract& contract, int* normalized) {
  // One exact-size heap block: JSON then binary, so reading one byte past the end is an ASan error.
  const size_t total = text.size() + kBinary;
  std::unique_ptr<uint8_t[]> exact(new uint8_t[total]);
  std::copy(text.begin(), text.end(), exact.get());
  std::fill(exact.get() + text.size(), exact.get() + total, uint8_t(0x3f));
  DecodedHttpInfer decoded;
  if (!DecodeHttpInferJson(exact.get(), text.size(), exact.get() + text.size(), kBinary, &decoded)) return false;
  size_t binary_views = 0;
  for (const DecodedInput& in : decoded.request.inputs) {
    const bool in_body = in.bytes.data >= exact.get() + text.size() && in.bytes.data + in.bytes.size <= exact.get() + total;
    if (in_body) binary_views += in.bytes.size;
  }
  CHECK_EQ(binary_views, kBinary);  // the binary part, input by input, exactly
  NormalizedRequest out;
  if (Normalize(contract, decoded.request, &out).ok()) ++*normalized;
  return true;
}

}  // namespace

TEST(fuzz_damaged_requests_never_crash) {
  const RequestContract contract = TwoInputContract();
  int normalized = 0;
  CHECK(Run(kValid, contract, &normalized));
  CHECK_EQ(normalized, 1);
  gebe_test::FuzzRng rng(0x9E3779B97F4A7C15ull);
  int accepted = 0;
  for (int round = 0; round < 100000; ++round) {
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
    if (Run(text, contract, &normalized)) ++accepted;
  }
  CHECK(accepted > 0);  // some damage is harmless (whitespace, the id's text, a number's digits)
  CHECK(normalized > 1);
}
