#include "http/infer_response.h"

#include "http/utf8.h"

namespace gebe {

namespace {

void AppendCodePoint(uint32_t cp, std::string* out) {
  switch (cp) {
    case '"': out->append("\\\""); return;
    case '\\': out->append("\\\\"); return;
    case '\b': out->append("\\b"); return;
    case '\f': out->append("\\f"); return;
    case '\n': out->append("\\n"); return;
    case '\r': out->append("\\r"); return;
    case '\t': out->append("\\t"); return;
    default: break;
  }
  if (cp < 0x20) {
    static const char kHex[] = "0123456789abcdef";
    out->append("\\u00");
    out->push_back(kHex[cp >> 4]);
    out->push_back(kHex[cp & 0xF]);
  } else {
    AppendUtf8(cp, out);
  }
}

void AppendInt(int64_t v, std::string* out) { out->append(std::to_string(v)); }

}  // namespace

void AppendJsonString(const std::string& text, std::string* out) {
  constexpr uint32_t kReplacement = 0xFFFD;
  out->push_back('"');
  // The WHATWG UTF-8 decoder (what V8 does): each maximal malformed subpart becomes one U+FFFD.
  uint32_t cp = 0;
  int needed = 0, seen = 0;
  unsigned char lower = 0x80, upper = 0xBF;
  for (size_t i = 0; i < text.size();) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (needed == 0) {
      ++i;
      if (b < 0x80) {
        AppendCodePoint(b, out);
      } else if (b >= 0xC2 && b <= 0xDF) {
        needed = 1;
        cp = b & 0x1F;
      } else if (b >= 0xE0 && b <= 0xEF) {
        if (b == 0xE0) lower = 0xA0;
        if (b == 0xED) upper = 0x9F;
        needed = 2;
        cp = b & 0xF;
      } else if (b >= 0xF0 && b <= 0xF4) {
        if (b == 0xF0) lower = 0x90;
        if (b == 0xF4) upper = 0x8F;
        needed = 3;
        cp = b & 0x7;
      } else {
        AppendCodePoint(kReplacement, out);
      }
      continue;
    }
    if (b < lower || b > upper) {
      // The sequence ends early: one replacement, then this byte starts afresh.
      needed = seen = 0;
      cp = 0;
      lower = 0x80;
      upper = 0xBF;
      AppendCodePoint(kReplacement, out);
      continue;
    }
    ++i;
    lower = 0x80;
    upper = 0xBF;
    cp = (cp << 6) | (b & 0x3F);
    if (++seen == needed) {
      AppendCodePoint(cp, out);
      needed = seen = 0;
      cp = 0;
    }
  }
  if (needed != 0) AppendCodePoint(kReplacement, out);
  out->push_back('"');
}

std::string EncodeInferResponseHeader(const std::string& model_name, const std::string& version, const std::string* id,
                                      const std::vector<ResponseOutput>& outputs) {
  std::string json;
  json.reserve(128 + outputs.size() * 96);
  json.append("{\"model_name\":");
  AppendJsonString(model_name, &json);
  json.append(",\"model_version\":");
  AppendJsonString(version, &json);
  if (id != nullptr) {
    json.append(",\"id\":");
    AppendJsonString(*id, &json);
  }
  json.append(",\"outputs\":[");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const ResponseOutput& o = outputs[i];
    if (i > 0) json.push_back(',');
    json.append("{\"name\":");
    AppendJsonString(*o.name, &json);
    json.append(",\"datatype\":\"");
    json.append(o.datatype);
    json.append("\",\"shape\":[");
    for (size_t d = 0; d < o.shape->size(); ++d) {
      if (d > 0) json.push_back(',');
      AppendInt((*o.shape)[d], &json);
    }
    json.append("],\"parameters\":{\"binary_data_size\":");
    json.append(std::to_string(o.byte_size));
    json.append("}}");
  }
  json.append("]}");
  return json;
}

std::string EncodeErrorBody(const std::string& message) {
  std::string json = "{\"error\":";
  AppendJsonString(message, &json);
  json.push_back('}');
  return json;
}

}  // namespace gebe
