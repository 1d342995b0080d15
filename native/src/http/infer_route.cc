#include "http/infer_route.h"

#include <cstring>

namespace gebe {

namespace {

constexpr std::string_view kModelsPrefix = "/v2/models/";
bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

bool MatchInferUrl(std::string_view url, InferUrl* out) {
  if (url.substr(0, kModelsPrefix.size()) != kModelsPrefix) return false;
  std::string_view rest = url.substr(kModelsPrefix.size());
  // Percent-escapes, queries and fragments: the JS router decodes or strips them; leave them to it.
  if (rest.find_first_of("%?#") != std::string_view::npos) return false;
  // Node reads request targets as latin1, so bytes past ASCII name another model there.
  for (char c : rest) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7F) return false;
  }
  std::vector<std::string_view> segments;
  size_t start = 0;
  for (;;) {
    const size_t slash = rest.find('/', start);
    segments.push_back(rest.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (segments.size() > 4) return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  for (std::string_view s : segments) {
    if (s.empty()) return false;  // also a trailing slash
  }
  *out = InferUrl();
  if (segments.size() == 2 && segments[1] == "infer") {
    out->model = segments[0];
    return true;
  }
  if (segments.size() == 4 && segments[1] == "versions" && segments[3] == "infer" && AllDigits(segments[2])) {
    out->model = segments[0];
    out->version = segments[2];
    out->versioned = true;
    return true;
  }
  return false;
}

bool InferHeaderLength(const std::vector<std::pair<std::string, std::string>>& headers, bool* binary, size_t* length) {
  const std::string* found = nullptr;
  for (const auto& h : headers) {
    if (h.first == "content-encoding") return false;
    if (h.first == "inference-header-content-length") {
      if (found != nullptr) return false;  // Node joins repeated values, which the JS path refuses
      found = &h.second;
    }
  }
  *binary = found != nullptr;
  if (found == nullptr) return true;  // a JSON-only body
  // Plain digits, short enough to be a safe integer.
  if (!AllDigits(*found) || found->size() > 15) return false;
  size_t v = 0;
  for (char c : *found) v = v * 10 + size_t(c - '0');
  *length = v;
  return true;
}

}  // namespace gebe
