// The pieces of gRPC's wire protocol that are not HTTP/2: status codes, the 5-byte message
// prefix, grpc-timeout and grpc-message's percent-encoding, and a non-throwing protobuf wire
// reader/writer for the messages the native route decodes. No nghttp2, no N-API: unit-tested and
// fuzzed on their own (native/test/grpc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "executor/decoded_request.h"
#include "net/recycled_buffers.h"

namespace gebe {

// gRPC status codes (grpc/status.h).
enum class GrpcCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
};

// grpc-message is percent-encoded: bytes outside printable ASCII, and '%', become %XX.
inline std::string PercentEncodeGrpcMessage(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c <= 0x7E && c != '%') {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// grpc-timeout: 1 to 8 ASCII digits and a unit (H, M, S, m, u, n). Microseconds, rounded up;
// false when malformed.
inline bool ParseGrpcTimeout(std::string_view value, uint64_t* micros) {
  if (value.size() < 2 || value.size() > 9) return false;
  uint64_t n = 0;
  for (size_t i = 0; i + 1 < value.size(); ++i) {
    const char c = value[i];
    if (c < '0' || c > '9') return false;
    n = n * 10 + uint64_t(c - '0');
  }
  switch (value.back()) {
    case 'H': *micros = n * 3600ull * 1000000ull; return true;
    case 'M': *micros = n * 60ull * 1000000ull; return true;
    case 'S': *micros = n * 1000000ull; return true;
    case 'm': *micros = n * 1000ull; return true;
    case 'u': *micros = n; return true;
    case 'n': *micros = (n + 999) / 1000; return true;
    default: return false;
  }
}

// Splits a stream's DATA bytes into gRPC messages (a flag byte, a 4-byte big-endian length, the
// message). Bytes are copied into `message` as they arrive: memory follows bytes received, never
// the declared length. A message with the compressed flag is framed as any other; compressed()
// tells the caller to inflate it (message_compression.h).
class MessageFramer {
 public:
  enum class Event { kNeedMore, kMessage, kTooLarge };

  // `recycled` (may be null): where a message's buffer comes from when one of its size is kept.
  explicit MessageFramer(size_t max_message_bytes, RecycledBuffers<std::string>* recycled = nullptr)
      : max_(max_message_bytes), recycled_(recycled) {}

  // Consumes bytes from data[*pos..size); stops at the first event other than kNeedMore.
  // After kMessage the message is in message(); call Reset() before feeding more.
  Event Feed(const uint8_t* data, size_t size, size_t* pos) {
    while (*pos < size) {
      if (prefix_got_ < 5) {
        prefix_[prefix_got_++] = data[(*pos)++];
        if (prefix_got_ < 5) continue;
        declared_ = (uint32_t(prefix_[1]) << 24) | (uint32_t(prefix_[2]) << 16) | (uint32_t(prefix_[3]) << 8) | uint32_t(prefix_[4]);
        if (declared_ > max_) return Event::kTooLarge;
        if (declared_ == 0) return Event::kMessage;
        if (recycled_ != nullptr) recycled_->Take(declared_, &message_);  // memory already held, not the declared size
        continue;
      }
      const size_t take = std::min(size - *pos, size_t(declared_) - message_.size());
      message_.append(reinterpret_cast<const char*>(data + *pos), take);
      *pos += take;
      if (message_.size() == declared_) return Event::kMessage;
    }
    return Event::kNeedMore;
  }

  // True between messages (nothing of a next message received yet).
  bool idle() const { return prefix_got_ == 0; }
  uint32_t declared() const { return declared_; }
  // The message (after kMessage, before Reset) has the compressed flag set.
  bool compressed() const { return prefix_got_ == 5 && prefix_[0] != 0; }
  std::string& message() { return message_; }
  // Bytes held for the message being received (its capacity grows with what arrived).
  size_t held() const { return message_.empty() ? 0 : message_.capacity(); }
  void Reset() {
    prefix_got_ = 0;
    declared_ = 0;
    message_ = std::string();
  }

 private:
  size_t max_;
  RecycledBuffers<std::string>* recycled_;
  uint8_t prefix_[5] = {};
  size_t prefix_got_ = 0;
  uint32_t declared_ = 0;
  std::string message_;
};

// The gRPC prefix of an uncompressed message of `length` bytes.
inline void AppendMessagePrefix(std::string* out, size_t length) {
  const char prefix[5] = {0, char((length >> 24) & 0xff), char((length >> 16) & 0xff), char((length >> 8) & 0xff), char(length & 0xff)};
  out->append(prefix, 5);
}

// A view of bytes inside a received message (the core's ByteView) as text.
inline std::string_view Str(ByteView v) { return std::string_view(reinterpret_cast<const char*>(v.data), v.size); }

enum class ProtoWire : int { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// A bounds-checked protobuf reader that never throws: any malformed input sets `bad` and ends
// the read (every accessor then returns zeros), so a caller checks ok() once at the end.
class ProtoReader {
 public:
  ProtoReader() = default;
  ProtoReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  explicit ProtoReader(ByteView v) : ProtoReader(v.data, v.size) {}

  bool ok() const { return !bad_; }
  // The next field's number and wire type; false at the end (or once bad).
  bool Next(uint32_t* field, ProtoWire* wire) {
    if (bad_ || p_ >= end_) return false;
    const uint64_t key = Varint();
    const uint32_t type = uint32_t(key & 7);
    if (bad_ || (key >> 3) == 0 || (key >> 3) > 0x1fffffff || (type != 0 && type != 1 && type != 2 && type != 5)) return Fail();
    *field = uint32_t(key >> 3);
    *wire = ProtoWire(type);
    return true;
  }
  uint64_t Varint() {
    uint64_t result = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ >= end_) return Fail(), 0;
      const uint8_t byte = *p_++;
      if (shift == 63 && byte > 1) return Fail(), 0;
      result |= uint64_t(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return result;
    }
    return Fail(), 0;
  }
  uint64_t Fixed64() {
    if (size_t(end_ - p_) < 8 || bad_) return Fail(), 0;
    uint64_t v;
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }
  uint32_t Fixed32() {
    if (size_t(end_ - p_) < 4 || bad_) return Fail(), 0;
    uint32_t v;
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  ByteView Bytes() {
    const uint64_t len = Varint();
    if (bad_ || len > uint64_t(end_ - p_)) return Fail(), ByteView();
    ByteView v{p_, size_t(len)};
    p_ += len;
    return v;
  }
  void Skip(ProtoWire wire) {
    switch (wire) {
      case ProtoWire::kVarint: Varint(); return;
      case ProtoWire::kFixed64: Fixed64(); return;
      case ProtoWire::kFixed32: Fixed32(); return;
      case ProtoWire::kLen: Bytes(); return;
    }
  }
  bool Fail() {
    bad_ = true;
    p_ = end_;
    return false;
  }

 private:
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  bool bad_ = false;
};

// Protobuf writing into a std::string (sizes first, then bytes: no second pass over nested messages
// beyond what the caller computes).
inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out->push_back(char(v));
}
inline void PutKey(std::string* out, uint32_t field, ProtoWire wire) { PutVarint(out, (uint64_t(field) << 3) | uint32_t(wire)); }
inline size_t LenFieldSize(uint32_t field, size_t length) { return VarintSize(uint64_t(field) << 3) + VarintSize(length) + length; }
inline void PutLenHeader(std::string* out, uint32_t field, size_t length) {
  PutKey(out, field, ProtoWire::kLen);
  PutVarint(out, length);
}
inline void PutBytesField(std::string* out, uint32_t field, std::string_view bytes) {
  PutLenHeader(out, field, bytes.size());
  out->append(bytes.data(), bytes.size());
}

}  // namespace gebe
