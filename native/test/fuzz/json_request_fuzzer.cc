// libFuzzer target: an HTTP infer request body as the native front end sees it, decoded as JSON
// (simdjson) and checked by Normalize against a two-input model. The input is the JSON text, then
// optionally a NUL byte and the binary-extension bytes. Decoding and checking must never crash,
// read outside the body or keep a view outside it; a refusal is an ordinary outcome.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "../fast_infer/contract_fixture.h"
#include "http/json_infer_request.h"

using namespace gebe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const RequestContract contract = TwoInputContract();
  const void* nul = std::memchr(data, 0, size);
  const size_t json_size = nul ? size_t(static_cast<const uint8_t*>(nul) - data) : size;
  const size_t binary_size = nul ? size - json_size - 1 : 0;
  // Exact-size heap copies, so that ASan sees any read past either end.
  std::unique_ptr<uint8_t[]> json(new uint8_t[json_size]);
  std::unique_ptr<uint8_t[]> binary(new uint8_t[binary_size]);
  if (json_size) std::memcpy(json.get(), data, json_size);
  if (binary_size) std::memcpy(binary.get(), data + json_size + 1, binary_size);
  DecodedHttpInfer decoded;
  if (!DecodeHttpInferJson(json.get(), json_size, binary.get(), binary_size, &decoded)) return 0;
  for (const DecodedInput& in : decoded.request.inputs) {
    if (in.bytes.size == 0) continue;
    const bool in_binary = in.bytes.data >= binary.get() && in.bytes.data + in.bytes.size <= binary.get() + binary_size;
    // JSON `data` is converted into buffers the decoded request owns; no view may stray elsewhere.
    bool in_owned = false;
    for (const std::vector<uint8_t>& o : decoded.owned) {
      in_owned = in_owned || (in.bytes.data >= o.data() && in.bytes.data + in.bytes.size <= o.data() + o.size());
    }
    if (!in_binary && !in_owned) std::abort();
  }
  NormalizedRequest out;
  Normalize(contract, decoded.request, &out);
  return 0;
}
