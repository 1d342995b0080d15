// gRPC message compression (grpc-encoding gzip or deflate), with the zlib Node.js exports
// (native/third_party/zlib holds its header). Requests: a message with the compressed flag is
// inflated. Responses: with Triton's --grpc-infer-response-compression-level, an infer response
// is deflated in the algorithm the level picks among those the client accepts. Inflating, memory
// follows the bytes inflated, never a size the sender declares: inflating stops once the output
// would pass the server's message limit, so a small message that inflates to gigabytes (a
// decompression bomb) costs at most that limit.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gebe {

// The grpc-encoding values a request may carry: identity (or none) and the two compressions
// every gRPC implementation ships.
enum class GrpcEncoding { kIdentity, kGzip, kDeflate, kUnsupported };
GrpcEncoding ParseGrpcEncoding(std::string_view value);
// What the server answers in grpc-accept-encoding.
inline constexpr std::string_view kGrpcAcceptEncoding = "identity,deflate,gzip";

enum class InflateStatus { kOk, kTooLarge, kCorrupt };

// Inflates `in` (gzip: RFC 1952; deflate: gRPC's, the zlib format of RFC 1950) into *out, at most
// `max_bytes`. kCorrupt with *error set when the data is not what the encoding says (or has bytes
// after its end).
InflateStatus InflateMessage(std::string_view in, GrpcEncoding encoding, size_t max_bytes, std::string* out, std::string* error);

// Triton's --grpc-infer-response-compression-level.
enum class ResponseCompression { kNone, kLow, kMedium, kHigh };

// The encoding an infer response goes in: none without a level; else, as gRPC core picks for a
// level among the algorithms the client lists in grpc-accept-encoding (ranked gzip, deflate), low
// takes the first it accepts and medium and high the last; identity when it accepts neither.
GrpcEncoding ResponseEncoding(ResponseCompression level, std::string_view accept_encoding);

// `message` deflated (gzip: RFC 1952; deflate: the zlib format of RFC 1950, as gRPC means it), at
// zlib's default level, as a gRPC frame: the compressed flag, the length, the data.
std::string DeflateFrame(std::string_view message, GrpcEncoding encoding);

}  // namespace gebe
