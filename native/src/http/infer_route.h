// What the native infer route reads of a request before its body: the URL and the headers. What
// the JS router or codec would treat specially is declined here (the functions return false), so
// that the JS handler answers it with its own wording. The body is json_infer_request.h's, the
// check against the model Normalize's. No N-API: unit-tested in native/test/fast_infer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gebe {

// /v2/models/{model}/infer or /v2/models/{model}/versions/{version}/infer. Refuses anything the
// JS router would treat specially (percent-escapes, a query, a trailing slash, empty or extra
// segments, a non-numeric version, bytes outside printable ASCII).
struct InferUrl {
  std::string_view model;
  std::string_view version;  // empty when the URL names none
  bool versioned = false;
};
bool MatchInferUrl(std::string_view url, InferUrl* out);

// Whether the request may take the native route by its headers: no Content-Encoding header at all,
// at most one Inference-Header-Content-Length, plain digits. `binary`: there is one (its value in
// `length`); without it the whole body is JSON.
bool InferHeaderLength(const std::vector<std::pair<std::string, std::string>>& headers, bool* binary, size_t* length);

}  // namespace gebe
