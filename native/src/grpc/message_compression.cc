#include "grpc/message_compression.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

namespace gebe {

GrpcEncoding ParseGrpcEncoding(std::string_view value) {
  if (value.empty() || value == "identity") return GrpcEncoding::kIdentity;
  if (value == "gzip") return GrpcEncoding::kGzip;
  if (value == "deflate") return GrpcEncoding::kDeflate;
  return GrpcEncoding::kUnsupported;
}

InflateStatus InflateMessage(std::string_view in, GrpcEncoding encoding, size_t max_bytes, std::string* out, std::string* error) {
  out->clear();
  z_stream z{};
  // 15: the largest window; +16: a gzip header and trailer instead of zlib's.
  if (inflateInit2(&z, encoding == GrpcEncoding::kGzip ? 15 + 16 : 15) != Z_OK) {
    *error = "zlib could not start";
    return InflateStatus::kCorrupt;
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = uInt(std::min<size_t>(in.size(), UINT_MAX));
  // Grows as output comes: a first guess from the input, doubled while the limit allows.
  size_t capacity = std::min(max_bytes, std::max<size_t>(in.size() * 4, 4096));
  InflateStatus status = InflateStatus::kOk;
  for (;;) {
    if (out->size() == capacity) {
      if (capacity == max_bytes) {
        // Full at the limit: anything more is too large (a last byte of output tells).
        char probe;
        z.next_out = reinterpret_cast<Bytef*>(&probe);
        z.avail_out = 1;
        const int r = inflate(&z, Z_NO_FLUSH);
        if (r == Z_STREAM_END && z.avail_out == 1) break;
        status = (r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR) && z.avail_out == 0 ? InflateStatus::kTooLarge : InflateStatus::kCorrupt;
        if (status == InflateStatus::kCorrupt) *error = z.msg != nullptr ? z.msg : "the data ends early";
        break;
      }
      capacity = std::min(max_bytes, capacity * 2);
    }
    const size_t had = out->size();
    out->resize(capacity);
    z.next_out = reinterpret_cast<Bytef*>(out->data() + had);
    z.avail_out = uInt(std::min<size_t>(capacity - had, UINT_MAX));
    const int r = inflate(&z, Z_NO_FLUSH);
    out->resize(capacity - z.avail_out);
    if (r == Z_STREAM_END) {
      if (z.avail_in != 0) {
        *error = "bytes follow the end of the compressed data";
        status = InflateStatus::kCorrupt;
      }
      break;
    }
    if (r == Z_BUF_ERROR && z.avail_in == 0) {
      *error = "the data ends early";
      status = InflateStatus::kCorrupt;
      break;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) {
      *error = z.msg != nullptr ? z.msg : "the data is not " + std::string(encoding == GrpcEncoding::kGzip ? "gzip" : "deflate");
      status = InflateStatus::kCorrupt;
      break;
    }
  }
  inflateEnd(&z);
  if (status != InflateStatus::kOk) out->clear();
  return status;
}

GrpcEncoding ResponseEncoding(ResponseCompression level, std::string_view accept_encoding) {
  if (level == ResponseCompression::kNone) return GrpcEncoding::kIdentity;
  bool accepts[2] = {false, false};  // gzip, deflate: gRPC core's ranking
  size_t start = 0;
  while (start <= accept_encoding.size()) {
    size_t end = accept_encoding.find(',', start);
    if (end == std::string_view::npos) end = accept_encoding.size();
    std::string_view name = accept_encoding.substr(start, end - start);
    while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    if (name == "gzip") accepts[0] = true;
    if (name == "deflate") accepts[1] = true;
    start = end + 1;
  }
  const GrpcEncoding ranked[2] = {GrpcEncoding::kGzip, GrpcEncoding::kDeflate};
  if (!accepts[0] && !accepts[1]) return GrpcEncoding::kIdentity;
  if (accepts[0] && accepts[1]) return level == ResponseCompression::kLow ? ranked[0] : ranked[1];
  return accepts[0] ? ranked[0] : ranked[1];
}

std::string DeflateFrame(std::string_view message, GrpcEncoding encoding) {
  z_stream z{};
  // 15: the largest window; +16: a gzip header and trailer instead of zlib's. Level and memory: zlib's defaults.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, encoding == GrpcEncoding::kGzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::string();
  }
  const uLong bound = deflateBound(&z, uLong(message.size())) + 18;  // + a gzip header and trailer beyond zlib's
  std::string frame(5 + bound, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(message.data()));
  z.avail_in = uInt(message.size());
  z.next_out = reinterpret_cast<Bytef*>(frame.data() + 5);
  z.avail_out = uInt(bound);
  const int r = deflate(&z, Z_FINISH);
  const size_t written = bound - z.avail_out;
  deflateEnd(&z);
  if (r != Z_STREAM_END) return std::string();
  frame.resize(5 + written);
  frame[0] = 1;
  for (int i = 0; i < 4; ++i) frame[1 + i] = char((written >> (8 * (3 - i))) & 0xff);
  return frame;
}

}  // namespace gebe
