// InflateMessage (gRPC's gzip and deflate request compression): round trips through zlib's own
// compressor, the output limit (a decompression bomb stops at the limit, having held no more),
// damaged and truncated data, bytes after the end, and a mutation fuzz run over compressed
// messages (under ASan+UBSan in .ci/run). Responses: the encoding each compression level picks
// from what a client accepts (gRPC core's rule), and DeflateFrame's frames, inflated back.
#include <zlib.h>

#include <cstdlib>
#include <string>

#include "check.h"
#include "fuzz_rng.h"
#include "grpc/message_compression.h"

using namespace gebe;

namespace {

std::string Compress(const std::string& in, GrpcEncoding encoding) {
  z_stream z{};
  CHECK(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, encoding == GrpcEncoding::kGzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, uLong(in.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = uInt(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = char((i * 7 + i / 13) & 0xff);
  return s;
}

}  // namespace

TEST(inflate_parses_encodings) {
  CHECK(ParseGrpcEncoding("") == GrpcEncoding::kIdentity);
  CHECK(ParseGrpcEncoding("identity") == GrpcEncoding::kIdentity);
  CHECK(ParseGrpcEncoding("gzip") == GrpcEncoding::kGzip);
  CHECK(ParseGrpcEncoding("deflate") == GrpcEncoding::kDeflate);
  CHECK(ParseGrpcEncoding("snappy") == GrpcEncoding::kUnsupported);
  CHECK(ParseGrpcEncoding("GZIP") == GrpcEncoding::kUnsupported);
}

TEST(inflate_round_trips_gzip_and_deflate) {
  for (GrpcEncoding e : {GrpcEncoding::kGzip, GrpcEncoding::kDeflate}) {
    for (size_t n : {size_t(0), size_t(1), size_t(5000), size_t(1) << 20}) {
      const std::string plain = Pattern(n);
      std::string out, error;
      CHECK(InflateMessage(Compress(plain, e), e, size_t(4) << 20, &out, &error) == InflateStatus::kOk);
      CHECK(out == plain);
      // Exactly at the limit is allowed.
      CHECK(InflateMessage(Compress(plain, e), e, n, &out, &error) == InflateStatus::kOk);
      CHECK_EQ(out.size(), n);
    }
  }
}

TEST(inflate_stops_at_the_limit) {
  // 64 MiB of zeros compress to a few hundred KB: inflating stops at the 1 MiB limit.
  const std::string bomb = Compress(std::string(size_t(64) << 20, '\0'), GrpcEncoding::kGzip);
  CHECK(bomb.size() < (size_t(1) << 20));
  std::string out = "previous", error;
  CHECK(InflateMessage(bomb, GrpcEncoding::kGzip, size_t(1) << 20, &out, &error) == InflateStatus::kTooLarge);
  CHECK(out.empty());
  CHECK(out.capacity() <= (size_t(1) << 20) + 64);
  CHECK(InflateMessage(Compress("12345", GrpcEncoding::kDeflate), GrpcEncoding::kDeflate, 4, &out, &error) == InflateStatus::kTooLarge);
}

TEST(inflate_refuses_damaged_data) {
  std::string out, error;
  const std::string gz = Compress(Pattern(10000), GrpcEncoding::kGzip);
  // The wrong format, garbage, a truncated stream, bytes after the end, nothing at all.
  CHECK(InflateMessage(gz, GrpcEncoding::kDeflate, 1 << 20, &out, &error) == InflateStatus::kCorrupt);
  CHECK(!error.empty());
  CHECK(InflateMessage("not compressed at all", GrpcEncoding::kGzip, 1 << 20, &out, &error) == InflateStatus::kCorrupt);
  CHECK(InflateMessage(gz.substr(0, gz.size() / 2), GrpcEncoding::kGzip, 1 << 20, &out, &error) == InflateStatus::kCorrupt);
  CHECK_EQ(error, std::string("the data ends early"));
  CHECK(InflateMessage(gz + "x", GrpcEncoding::kGzip, 1 << 20, &out, &error) == InflateStatus::kCorrupt);
  CHECK_EQ(error, std::string("bytes follow the end of the compressed data"));
  CHECK(InflateMessage("", GrpcEncoding::kGzip, 1 << 20, &out, &error) == InflateStatus::kCorrupt);
  CHECK(out.empty());
}

TEST(response_encoding_follows_grpc_cores_choice_for_the_level) {
  using L = ResponseCompression;
  const std::string both = "identity,deflate,gzip";
  CHECK(ResponseEncoding(L::kNone, both) == GrpcEncoding::kIdentity);
  CHECK(ResponseEncoding(L::kLow, both) == GrpcEncoding::kGzip);
  CHECK(ResponseEncoding(L::kMedium, both) == GrpcEncoding::kDeflate);
  CHECK(ResponseEncoding(L::kHigh, " gzip , deflate ") == GrpcEncoding::kDeflate);
  // Only one accepted: every level takes it; none accepted (or no header): identity.
  CHECK(ResponseEncoding(L::kHigh, "identity,gzip") == GrpcEncoding::kGzip);
  CHECK(ResponseEncoding(L::kLow, "deflate") == GrpcEncoding::kDeflate);
  CHECK(ResponseEncoding(L::kLow, "identity") == GrpcEncoding::kIdentity);
  CHECK(ResponseEncoding(L::kLow, "") == GrpcEncoding::kIdentity);
  CHECK(ResponseEncoding(L::kLow, "snappy,gzipx") == GrpcEncoding::kIdentity);
}

TEST(deflate_frames_inflate_back) {
  for (GrpcEncoding encoding : {GrpcEncoding::kGzip, GrpcEncoding::kDeflate}) {
    for (size_t n : {size_t(0), size_t(1), size_t(5000), size_t(1) << 20}) {
      const std::string message = Pattern(n);
      const std::string frame = DeflateFrame(message, encoding);
      CHECK(frame.size() >= 5);
      CHECK_EQ(int(frame[0]), 1);
      const size_t length = (size_t(uint8_t(frame[1])) << 24) | (size_t(uint8_t(frame[2])) << 16) | (size_t(uint8_t(frame[3])) << 8) | uint8_t(frame[4]);
      CHECK_EQ(length, frame.size() - 5);
      std::string out, error;
      CHECK(InflateMessage(std::string_view(frame).substr(5), encoding, n + 1, &out, &error) == InflateStatus::kOk);
      CHECK(out == message);
    }
  }
}

TEST(fuzz_damaged_compressed_messages_never_crash) {
  const char* env = std::getenv("FUZZ_ROUNDS");
  const int rounds = (env ? std::atoi(env) : 300000) / 10;
  gebe_test::FuzzRng rng(0x9E3779B97F4A7C15ull);
  const std::string seeds[] = {Compress(Pattern(3000), GrpcEncoding::kGzip), Compress(Pattern(3000), GrpcEncoding::kDeflate),
                               Compress(std::string(100000, 'a'), GrpcEncoding::kGzip)};
  int inflated = 0;
  for (int round = 0; round < rounds; ++round) {
    const size_t which = rng.Below(3);
    std::string text = seeds[which];
    for (int e = 1 + int(rng.Below(3)); e > 0 && !text.empty(); --e) {
      const size_t at = rng.Below(text.size());
      switch (rng.Below(4)) {
        case 0: text[at] = char(uint8_t(text[at]) ^ uint8_t(1u << rng.Below(8))); break;
        case 1: text[at] = char(rng.Next()); break;
        case 2: text.erase(at, 1 + rng.Below(8)); break;
        case 3: text.resize(at); break;
      }
    }
    const std::string exact(text);  // an exact-size heap copy, for ASan
    std::string out, error;
    const InflateStatus s = InflateMessage(exact, which == 1 ? GrpcEncoding::kDeflate : GrpcEncoding::kGzip, 50000, &out, &error);
    if (s == InflateStatus::kOk) {
      ++inflated;
      CHECK(out.size() <= 50000);
    } else {
      CHECK(out.empty());
    }
  }
  std::printf("inflate fuzz: %d rounds, %d still inflated\n", rounds, inflated);
}
