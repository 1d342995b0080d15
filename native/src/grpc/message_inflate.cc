#include "grpc/message_inflate.h"

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

}  // namespace gebe
