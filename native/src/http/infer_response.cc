#include "http/infer_response.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

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

void AppendJsNumber(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (v == 0) {
    out->push_back('0');
    return;
  }
  // The shortest digits that read back as `v`, then ECMAScript's Number::toString layout.
  char sci[64];
  auto result = std::to_chars(sci, sci + sizeof(sci) - 1, v, std::chars_format::scientific);
  *result.ptr = '\0';
  const char* p = sci;
  const char* end = result.ptr;
  if (*p == '-') {
    out->push_back('-');
    ++p;
  }
  char digits[32];
  int k = 0;
  for (; p < end && *p != 'e'; ++p) {
    if (*p != '.') digits[k++] = *p;
  }
  const int n = std::atoi(p + 1) + 1;  // the decimal point sits after n digits
  if (k <= n && n <= 21) {
    out->append(digits, size_t(k));
    out->append(size_t(n - k), '0');
  } else if (0 < n && n <= 21) {
    out->append(digits, size_t(n));
    out->push_back('.');
    out->append(digits + n, size_t(k - n));
  } else if (-6 < n && n <= 0) {
    out->append("0.");
    out->append(size_t(-n), '0');
    out->append(digits, size_t(k));
  } else {
    out->push_back(digits[0]);
    if (k > 1) {
      out->push_back('.');
      out->append(digits + 1, size_t(k - 1));
    }
    out->push_back('e');
    out->push_back(n - 1 >= 0 ? '+' : '-');
    out->append(std::to_string(n - 1 >= 0 ? n - 1 : 1 - n));
  }
}

namespace {

template <typename T, typename F>
void AppendEach(const uint8_t* data, size_t count, std::string* out, F write) {
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out->push_back(',');
    T v;
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    write(v);
  }
}

}  // namespace

bool AppendJsonData(DataType dtype, const uint8_t* data, size_t byte_size, std::string* out) {
  const size_t element = ElementSize(dtype);
  if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16 || dtype == DataType::kInvalid) return false;
  if (element > 0 && byte_size % element != 0) return false;
  const size_t count = element > 0 ? byte_size / element : 0;
  auto integer = [out](auto v) { out->append(std::to_string(v)); };
  auto number = [out](auto v) { AppendJsNumber(double(v), out); };
  out->push_back('[');
  switch (dtype) {
    case DataType::kBool: AppendEach<uint8_t>(data, count, out, [out](uint8_t v) { out->append(v != 0 ? "true" : "false"); }); break;
    case DataType::kUInt8: AppendEach<uint8_t>(data, count, out, [out](uint8_t v) { out->append(std::to_string(unsigned(v))); }); break;
    case DataType::kUInt16: AppendEach<uint16_t>(data, count, out, integer); break;
    case DataType::kUInt32: AppendEach<uint32_t>(data, count, out, integer); break;
    case DataType::kUInt64: AppendEach<uint64_t>(data, count, out, integer); break;
    case DataType::kInt8: AppendEach<int8_t>(data, count, out, [out](int8_t v) { out->append(std::to_string(int(v))); }); break;
    case DataType::kInt16: AppendEach<int16_t>(data, count, out, integer); break;
    case DataType::kInt32: AppendEach<int32_t>(data, count, out, integer); break;
    case DataType::kInt64: AppendEach<int64_t>(data, count, out, integer); break;
    case DataType::kFloat32: AppendEach<float>(data, count, out, number); break;
    case DataType::kFloat64: AppendEach<double>(data, count, out, number); break;
    case DataType::kString: {
      // KServe's layout: a 4-byte little-endian length, then the bytes, per element.
      size_t offset = 0;
      for (bool first = true; offset < byte_size; first = false) {
        uint32_t length;
        if (byte_size - offset < 4) return false;
        std::memcpy(&length, data + offset, 4);
        offset += 4;
        if (length > byte_size - offset) return false;
        if (!first) out->push_back(',');
        AppendJsonString(std::string(reinterpret_cast<const char*>(data + offset), length), out);
        offset += length;
      }
      break;
    }
    default: return false;
  }
  out->push_back(']');
  return true;
}

bool EncodeInferResponseJson(const std::string& model_name, const std::string& version, const std::string* id,
                             const std::vector<ResponseOutput>& outputs, std::string* out) {
  std::string& json = *out;
  json.clear();
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
    json.append(DataTypeName(o.dtype));
    json.append("\",\"shape\":[");
    for (size_t d = 0; d < o.shape->size(); ++d) {
      if (d > 0) json.push_back(',');
      AppendInt((*o.shape)[d], &json);
    }
    if (o.binary) {
      json.append("],\"parameters\":{\"binary_data_size\":");
      json.append(std::to_string(o.byte_size));
      json.append("}}");
    } else {
      json.append("],\"data\":");
      if (!AppendJsonData(o.dtype, o.data, o.byte_size, &json)) return false;
      json.push_back('}');
    }
  }
  json.append("]}");
  return true;
}

std::string EncodeErrorBody(const std::string& message) {
  std::string json = "{\"error\":";
  AppendJsonString(message, &json);
  json.push_back('}');
  return json;
}

}  // namespace gebe
