// Deterministic mutation fuzzing of the ModelInferRequest decoder and the typed-contents
// conversion (run under ASan+UBSan by .ci/run): damaged copies of valid requests (bit flips, byte
// edits, insertions, deletions, truncations, splices) never crash or read out of bounds, and what
// decodes keeps its views inside the message.
#include <cstdlib>
#include <string>
#include <vector>

#include "check.h"
#include "fuzz_rng.h"
#include "grpc/infer_message.h"
#include "request_builder.h"

using namespace gebe;
using namespace grpc_test;

namespace {

bool Inside(ByteView v, const std::vector<uint8_t>& msg) {
  if (v.size == 0) return true;
  return v.data >= msg.data() && v.data + v.size <= msg.data() + msg.size();
}

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {SimpleRequest()};
  std::string typed = Field(1, "t") + Field(5, Input("A", "INT16", {2, 2}, Field(2, PackedVarints({1, -2, 300, -32768}))));
  typed += Field(5, Input("B", "FP64", {1}, Field(7, std::string(8, '\x01'))));
  typed += Field(5, Input("C", "BOOL", {3}, VarintField(1, 1) + VarintField(1, 0) + VarintField(1, 1)));
  typed += Field(6, Field(1, "Y") + Field(2, Field(1, "classification") + Field(2, VarintField(2, 3))));
  seeds.push_back(typed);
  return seeds;
}

}  // namespace

TEST(fuzz_damaged_requests_never_crash) {
  const std::vector<std::string> seeds = Seeds();
  const char* env = std::getenv("FUZZ_ROUNDS");
  const int rounds = env ? std::atoi(env) : 300000;
  gebe_test::FuzzRng rng(0x2545F4914F6CDD1Dull);
  int decoded = 0;
  for (int round = 0; round < rounds; ++round) {
    std::string text = seeds[rng.Below(seeds.size())];
    const int edits = 1 + int(rng.Below(4));
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng.Below(text.size());
      switch (rng.Below(6)) {
        case 0: text[at] = char(uint8_t(text[at]) ^ uint8_t(1u << rng.Below(8))); break;
        case 1: text[at] = char(rng.Next()); break;
        case 2: text.insert(at, 1, char(rng.Next())); break;
        case 3: text.erase(at, 1 + rng.Below(4)); break;
        case 4: text.resize(at); break;
        case 5: {
          const std::string& other = seeds[rng.Below(seeds.size())];
          const size_t from = rng.Below(other.size());
          text.insert(at, other.substr(from, 1 + rng.Below(16)));
          break;
        }
      }
    }
    // An exact-size heap copy, so that ASan sees any read past the end.
    std::vector<uint8_t> msg(text.begin(), text.end());
    GrpcInferRequest req;
    if (!DecodeModelInferRequest(msg.data(), msg.size(), &req)) continue;
    ++decoded;
    CHECK(Inside(req.model_name, msg) && Inside(req.model_version, msg) && Inside(req.id, msg));
    for (const ByteView& raw : req.raw_input_contents) CHECK(Inside(raw, msg));
    for (const GrpcInferInput& in : req.inputs) {
      CHECK(Inside(in.name, msg) && Inside(in.datatype, msg) && Inside(in.contents, msg));
      if (!in.has_contents) continue;
      uint64_t count = 1;
      bool ok = true;
      for (int64_t d : in.shape) {
        if (d < 0 || (d > 0 && count > (uint64_t(1) << 40) / uint64_t(d))) ok = false;
        else count *= uint64_t(d);
      }
      const DataType dtype = DataTypeFromName(Str(in.datatype));
      std::vector<uint8_t> bytes;
      if (ok && TypedContentsToBytes(in.contents, dtype, count, &bytes)) CHECK_EQ(bytes.size(), size_t(count) * ElementSize(dtype));
    }
  }
  std::printf("fuzz: %d rounds, %d still decoded\n", rounds, decoded);
  CHECK(decoded > 0);
}
