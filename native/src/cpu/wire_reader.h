// A bounds-checked reader for the protobuf wire format (varints, fixed32/64, length-delimited
// fields). ONNX files are decoded with it directly so weights never pass through JS and no
// protobuf library is needed. Every read checks the remaining length: a truncated or garbage
// file throws EngineError instead of reading past the buffer.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "engine/engine.h"

namespace gebe::cpu {

enum class WireType : int { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

class WireReader {
 public:
  WireReader(const uint8_t* data, size_t size, const char* what) : p_(data), end_(data + size), what_(what) {}

  bool done() const { return p_ >= end_; }
  size_t remaining() const { return size_t(end_ - p_); }

  // Reads a field key; returns false at the end of the message.
  bool next(uint32_t& field, WireType& type) {
    if (done()) return false;
    uint64_t key = varint();
    field = uint32_t(key >> 3);
    type = WireType(key & 7);
    if (field == 0) fail("field number 0");
    return true;
  }

  uint64_t varint() {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) fail("truncated varint");
      uint8_t byte = *p_++;
      result |= uint64_t(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return result;
    }
    fail("varint longer than 10 bytes");
    return 0;
  }

  uint32_t fixed32() {
    need(4);
    uint32_t v;
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }

  uint64_t fixed64() {
    need(8);
    uint64_t v;
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }

  // A length-delimited payload as a sub-reader over the same memory.
  WireReader bytes() {
    uint64_t len = varint();
    if (len > remaining()) fail("length-delimited field runs past the end (file truncated?)");
    WireReader sub(p_, size_t(len), what_);
    p_ += len;
    return sub;
  }

  std::string string() {
    WireReader sub = bytes();
    return std::string(reinterpret_cast<const char*>(sub.p_), sub.remaining());
  }

  const uint8_t* data() const { return p_; }

  void skip(WireType type) {
    switch (type) {
      case WireType::kVarint: varint(); return;
      case WireType::kFixed64: need(8); p_ += 8; return;
      case WireType::kFixed32: need(4); p_ += 4; return;
      case WireType::kLengthDelimited: bytes(); return;
      default: fail("unsupported wire type " + std::to_string(int(type)));
    }
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw EngineError(std::string(what_) + " is not a valid ONNX protobuf: " + why);
  }

 private:
  void need(size_t n) {
    if (remaining() < n) fail("truncated fixed-width field");
  }

  const uint8_t* p_;
  const uint8_t* end_;
  const char* what_;
};

}  // namespace gebe::cpu
