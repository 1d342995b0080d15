#include "http/infer_header.h"

#include <cstring>

#include "http/utf8.h"

namespace gebe {

namespace {

constexpr uint64_t kMaxSafeInteger = (uint64_t(1) << 53) - 1;

class Reader {
 public:
  Reader(const char* data, size_t size) : p_(reinterpret_cast<const unsigned char*>(data)), end_(p_ + size) {}

  void SkipWhitespace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool AtEnd() {
    SkipWhitespace();
    return p_ == end_;
  }
  bool Consume(char c) {
    SkipWhitespace();
    if (p_ == end_ || *p_ != static_cast<unsigned char>(c)) return false;
    ++p_;
    return true;
  }
  bool Peek(char c) {
    SkipWhitespace();
    return p_ < end_ && *p_ == static_cast<unsigned char>(c);
  }

  // A JSON string, decoded to UTF-8. Lone surrogate escapes and invalid UTF-8 are refused.
  bool String(std::string* out) {
    if (!Consume('"')) return false;
    out->clear();
    for (;;) {
      if (p_ == end_) return false;
      const unsigned char c = *p_;
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        if (!Escape(out)) return false;
        continue;
      }
      if (c < 0x80) {
        out->push_back(static_cast<char>(c));
        ++p_;
        continue;
      }
      const size_t n = Utf8SequenceLength(p_, end_);
      if (n == 0) return false;
      out->append(reinterpret_cast<const char*>(p_), n);
      p_ += n;
    }
  }

  // A non-negative integer written as plain digits, at most 2^53 - 1.
  bool Uint(uint64_t* out) {
    SkipWhitespace();
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0') {
      ++p_;
      *out = 0;
    } else {
      uint64_t v = 0;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
        v = v * 10 + uint64_t(*p_ - '0');
        if (v > kMaxSafeInteger) return false;
        ++p_;
      }
      *out = v;
    }
    // A fraction, an exponent or a leading zero ("01") is not a plain integer.
    return p_ == end_ || (*p_ != '.' && *p_ != 'e' && *p_ != 'E' && (*p_ < '0' || *p_ > '9'));
  }

  bool Bool(int* out) {
    SkipWhitespace();
    if (Literal("true")) {
      *out = 1;
      return true;
    }
    if (Literal("false")) {
      *out = 0;
      return true;
    }
    return false;
  }

  // {"key": value, ...}: `member(key)` reads each value; false from it stops the read.
  // Duplicate keys are refused by the callers (JSON.parse would keep the last).
  template <class Member>
  bool Object(Member&& member) {
    if (!Consume('{')) return false;
    if (Consume('}')) return true;
    std::string key;
    for (;;) {
      if (!String(&key) || !Consume(':') || !member(key)) return false;
      if (Consume(',')) continue;
      return Consume('}');
    }
  }

  // [value, ...]: `element()` reads each value.
  template <class Element>
  bool Array(Element&& element) {
    if (!Consume('[')) return false;
    if (Consume(']')) return true;
    for (;;) {
      if (!element()) return false;
      if (Consume(',')) continue;
      return Consume(']');
    }
  }

 private:
  bool Literal(const char* word) {
    const size_t n = std::strlen(word);
    if (size_t(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }

  static int Hex(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool Hex4(uint32_t* out) {
    if (end_ - p_ < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = Hex(p_[i]);
      if (h < 0) return false;
      v = v * 16 + uint32_t(h);
    }
    p_ += 4;
    *out = v;
    return true;
  }

  bool Escape(std::string* out) {
    ++p_;  // the backslash
    if (p_ == end_) return false;
    const unsigned char c = *p_++;
    switch (c) {
      case '"': out->push_back('"'); return true;
      case '\\': out->push_back('\\'); return true;
      case '/': out->push_back('/'); return true;
      case 'b': out->push_back('\b'); return true;
      case 'f': out->push_back('\f'); return true;
      case 'n': out->push_back('\n'); return true;
      case 'r': out->push_back('\r'); return true;
      case 't': out->push_back('\t'); return true;
      case 'u': break;
      default: return false;
    }
    uint32_t cp;
    if (!Hex4(&cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a lone low surrogate
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t low;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      if (!Hex4(&low) || low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(cp, out);
    return true;
  }

  // Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates,
  // nothing past U+10FFFF), or 0.
  static size_t Utf8SequenceLength(const unsigned char* p, const unsigned char* end) {
    const unsigned char c = p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return 0;
    }
    if (size_t(end - p) < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; ++i) {
      if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    }
    return n;
  }

  const unsigned char* p_;
  const unsigned char* end_;
};

// Marks `bit` in `seen`; false when it was already there (a duplicate key).
bool First(unsigned* seen, unsigned bit) {
  if (*seen & bit) return false;
  *seen |= bit;
  return true;
}

bool ReadNonEmptyName(Reader& r, std::string* out) { return r.String(out) && !out->empty(); }

bool ReadInput(Reader& r, HeaderInput* in) {
  unsigned seen = 0;
  const bool ok = r.Object([&](const std::string& key) {
    if (key == "name") return First(&seen, 1) && ReadNonEmptyName(r, &in->name);
    if (key == "datatype") return First(&seen, 2) && r.String(&in->datatype);
    if (key == "shape") {
      return First(&seen, 4) && r.Array([&] {
        uint64_t d;
        if (!r.Uint(&d)) return false;
        in->shape.push_back(static_cast<int64_t>(d));
        return true;
      });
    }
    if (key == "parameters") {
      unsigned pseen = 0;
      return First(&seen, 8) && r.Object([&](const std::string& pkey) {
        if (pkey != "binary_data_size" || !First(&pseen, 1)) return false;
        in->has_binary_data_size = true;
        return r.Uint(&in->binary_data_size);
      });
    }
    return false;
  });
  // name, datatype and shape are required (the JS codec refuses requests without them).
  return ok && (seen & 7) == 7;
}

bool ReadOutput(Reader& r, HeaderOutput* out) {
  unsigned seen = 0;
  const bool ok = r.Object([&](const std::string& key) {
    if (key == "name") return First(&seen, 1) && ReadNonEmptyName(r, &out->name);
    if (key == "parameters") {
      unsigned pseen = 0;
      return First(&seen, 2) && r.Object([&](const std::string& pkey) {
        if (pkey != "binary_data" || !First(&pseen, 1)) return false;
        return r.Bool(&out->binary_data);
      });
    }
    return false;
  });
  return ok && (seen & 1) == 1;
}

bool ReadRequestParameters(Reader& r, InferHeader* h) {
  unsigned seen = 0;
  return r.Object([&](const std::string& key) {
    if (key == "binary_data_output") return First(&seen, 1) && r.Bool(&h->binary_data_output);
    if (key == "priority") return First(&seen, 2) && (h->has_priority = true) && r.Uint(&h->priority);
    if (key == "timeout") return First(&seen, 4) && (h->has_timeout = true) && r.Uint(&h->timeout);
    return false;
  });
}

}  // namespace

bool ReadInferHeader(const char* data, size_t size, InferHeader* out) {
  *out = InferHeader();
  Reader r(data, size);
  unsigned seen = 0;
  const bool ok = r.Object([&](const std::string& key) {
    if (key == "id") return First(&seen, 1) && (out->has_id = true) && r.String(&out->id);
    if (key == "inputs") {
      return First(&seen, 2) && (out->has_inputs = true) && r.Array([&] {
        out->inputs.emplace_back();
        return ReadInput(r, &out->inputs.back());
      });
    }
    if (key == "outputs") {
      return First(&seen, 4) && (out->has_outputs = true) && r.Array([&] {
        out->outputs.emplace_back();
        return ReadOutput(r, &out->outputs.back());
      });
    }
    if (key == "parameters") return First(&seen, 8) && (out->has_parameters = true) && ReadRequestParameters(r, out);
    return false;
  });
  return ok && r.AtEnd();
}

}  // namespace gebe
