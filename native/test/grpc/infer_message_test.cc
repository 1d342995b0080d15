// The ModelInferRequest decoder, the typed-contents conversion, the response encoder and the gRPC
// wire helpers (framing, grpc-timeout, grpc-message).
#include <string>
#include <vector>

#include "check.h"
#include "grpc/infer_message.h"
#include "request_builder.h"

using namespace gebe;
using namespace grpc_test;

namespace {

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

}  // namespace

TEST(decodes_a_raw_request) {
  const std::string msg = SimpleRequest();
  GrpcInferRequest req;
  CHECK(DecodeModelInferRequest(Bytes(msg), msg.size(), &req));
  CHECK_EQ(std::string(Str(req.model_name)), std::string("simple"));
  CHECK_EQ(std::string(Str(req.model_version)), std::string("1"));
  CHECK_EQ(std::string(Str(req.id)), std::string("req-7"));
  CHECK_EQ(req.parameters.size(), size_t(1));
  CHECK_EQ(std::string(Str(req.parameters[0].key)), std::string("priority"));
  CHECK(req.parameters[0].value.kind == GrpcParameter::Kind::kInt64);
  CHECK_EQ(req.parameters[0].value.int64_value, int64_t(2));
  CHECK_EQ(req.inputs.size(), size_t(2));
  CHECK_EQ(std::string(Str(req.inputs[1].name)), std::string("INPUT1"));
  CHECK_EQ(std::string(Str(req.inputs[1].datatype)), std::string("FP32"));
  CHECK_EQ(req.inputs[1].shape, (std::vector<int64_t>{1, 4}));
  CHECK_EQ(req.outputs.size(), size_t(1));
  CHECK_EQ(std::string(Str(req.outputs[0].name)), std::string("OUTPUT0"));
  CHECK_EQ(req.raw_input_contents.size(), size_t(2));
  CHECK_EQ(req.raw_input_contents[1].size, size_t(16));
  float second[4];
  std::memcpy(second, req.raw_input_contents[1].data, 16);
  CHECK_EQ(second[3], 8.0f);
  // The views point into the message: nothing was copied.
  CHECK(req.raw_input_contents[0].data >= Bytes(msg) && req.raw_input_contents[0].data < Bytes(msg) + msg.size());
}

TEST(reads_unpacked_shapes_and_skips_unknown_fields) {
  std::string input = Field(1, "x") + Field(2, "INT64") + VarintField(3, 2) + VarintField(3, 3) + VarintField(99, 5) + Field(98, "zz");
  std::string msg = Field(1, "m") + Field(5, input) + VarintField(50, 1);
  GrpcInferRequest req;
  CHECK(DecodeModelInferRequest(Bytes(msg), msg.size(), &req));
  CHECK_EQ(req.inputs.size(), size_t(1));
  CHECK_EQ(req.inputs[0].shape, (std::vector<int64_t>{2, 3}));
}

TEST(refuses_malformed_messages) {
  const std::string msg = SimpleRequest();
  GrpcInferRequest req;
  // Every truncation is either a valid prefix at a field boundary or refused, never read past.
  int refused = 0;
  for (size_t n = 0; n < msg.size(); ++n) {
    std::vector<uint8_t> copy(msg.begin(), msg.begin() + long(n));
    if (!DecodeModelInferRequest(copy.data(), copy.size(), &req)) ++refused;
  }
  CHECK(refused > int(msg.size()) / 2);
  // A known field with the wrong wire type.
  const std::string wrong = VarintField(1, 5);
  CHECK(!DecodeModelInferRequest(Bytes(wrong), wrong.size(), &req));
  // Field number 0, and a length past the end.
  const std::string zero = std::string("\x02\x01", 2) + "a";
  CHECK(!DecodeModelInferRequest(Bytes(zero), zero.size(), &req));
  const std::string past = std::string("\x0a\x7f", 2) + "abc";
  CHECK(!DecodeModelInferRequest(Bytes(past), past.size(), &req));
  // A varint of 11 bytes; a group wire type.
  const std::string long_varint = std::string("\x08") + std::string(10, '\xff') + "\x01";
  CHECK(!DecodeModelInferRequest(Bytes(long_varint), long_varint.size(), &req));
  const std::string group = "\x0b";
  CHECK(!DecodeModelInferRequest(Bytes(group), group.size(), &req));
}

TEST(converts_typed_contents) {
  // fp32_contents packed, INT8 in int_contents (one negative, varint sign-extended), BOOL.
  std::string fp = Field(6, Floats({1.5f, -2.0f}));
  std::vector<uint8_t> out;
  CHECK(TypedContentsToBytes(ByteView{Bytes(fp), fp.size()}, DataType::kFloat32, 2, &out));
  float got[2];
  std::memcpy(got, out.data(), 8);
  CHECK_EQ(got[1], -2.0f);
  std::string ints = Field(2, PackedVarints({-3, 127}));
  CHECK(TypedContentsToBytes(ByteView{Bytes(ints), ints.size()}, DataType::kInt8, 2, &out));
  CHECK_EQ(int(int8_t(out[0])), -3);
  CHECK_EQ(int(out[1]), 127);
  // Out of range for INT8, the wrong count, another datatype's field: refused (JS words them).
  std::string big = Field(2, PackedVarints({128}));
  CHECK(!TypedContentsToBytes(ByteView{Bytes(big), big.size()}, DataType::kInt8, 1, &out));
  CHECK(!TypedContentsToBytes(ByteView{Bytes(ints), ints.size()}, DataType::kInt8, 3, &out));
  CHECK(!TypedContentsToBytes(ByteView{Bytes(fp), fp.size()}, DataType::kInt32, 2, &out));
  std::string bools = VarintField(1, 1) + VarintField(1, 0);
  CHECK(TypedContentsToBytes(ByteView{Bytes(bools), bools.size()}, DataType::kBool, 2, &out));
  CHECK_EQ(int(out[0]), 1);
  // A count no message of this size could hold is refused before anything is allocated.
  CHECK(!TypedContentsToBytes(ByteView{Bytes(bools), bools.size()}, DataType::kBool, uint64_t(1) << 40, &out));
  // BYTES and FP16 never convert here.
  CHECK(!TypedContentsToBytes(ByteView{Bytes(fp), fp.size()}, DataType::kString, 2, &out));
  CHECK(!TypedContentsToBytes(ByteView{Bytes(fp), fp.size()}, DataType::kFloat16, 2, &out));
}

// The bool_param of a ModelInferResponse's `triton_final_response` parameter: 0 or 1, -1 when absent.
int FinalFlagOf(ByteView response) {
  ProtoReader r(response);
  uint32_t field;
  ProtoWire wire;
  int flag = -1;
  while (r.Next(&field, &wire)) {
    if (wire != ProtoWire::kLen) {
      r.Skip(wire);
      continue;
    }
    ByteView v = r.Bytes();
    if (field != 4) continue;
    ProtoReader entry(v);
    std::string key;
    while (entry.Next(&field, &wire)) {
      ByteView ev = entry.Bytes();
      if (field == 1) key = std::string(Str(ev));
      if (field != 2 || key != "triton_final_response") continue;
      ProtoReader value(ev);
      CHECK(value.Next(&field, &wire));
      CHECK_EQ(field, uint32_t(1));
      flag = int(value.Varint());
    }
  }
  return flag;
}

TEST(encodes_a_response_protobuf_decoders_read) {
  const std::string name = "OUTPUT0";
  const std::vector<int64_t> shape = {1, 4};
  const std::string data = Floats({1, 2, 3, 4});
  std::vector<GrpcResponseOutput> outputs = {{&name, "FP32", &shape, Bytes(data), data.size()}};
  const std::string framed = EncodeModelInferResponse("simple", "1", "", outputs, false);
  CHECK_EQ(size_t(uint8_t(framed[0])), size_t(0));
  const size_t length = (size_t(uint8_t(framed[1])) << 24) | (size_t(uint8_t(framed[2])) << 16) | (size_t(uint8_t(framed[3])) << 8) | uint8_t(framed[4]);
  CHECK_EQ(length, framed.size() - 5);
  // Read it back field by field.
  ProtoReader r(Bytes(framed) + 5, length);
  uint32_t field;
  ProtoWire wire;
  std::vector<uint32_t> fields;
  ByteView raw;
  while (r.Next(&field, &wire)) {
    fields.push_back(field);
    ByteView v = r.Bytes();
    if (field == 6) raw = v;
  }
  CHECK(r.ok());
  CHECK_EQ(fields, (std::vector<uint32_t>{1, 2, 5, 6}));  // no empty id
  CHECK_EQ(raw.size, size_t(16));
  CHECK(std::memcmp(raw.data, data.data(), 16) == 0);
  // Streamed: wrapped in ModelStreamInferResponse.infer_response (field 2).
  const std::string streamed = EncodeModelInferResponse("simple", "1", "id", outputs, true);
  ProtoReader s(Bytes(streamed) + 5, streamed.size() - 5);
  CHECK(s.Next(&field, &wire));
  CHECK_EQ(field, uint32_t(2));
  CHECK(FinalFlagOf(s.Bytes()) == 1);
  const std::string error = EncodeStreamError("bad input", "m", "", "q");
  ProtoReader e(Bytes(error) + 5, error.size() - 5);
  CHECK(e.Next(&field, &wire));
  CHECK_EQ(std::string(Str(e.Bytes())), std::string("bad input"));
  CHECK(e.Next(&field, &wire));
  CHECK_EQ(field, uint32_t(2));
  CHECK(FinalFlagOf(e.Bytes()) == 1);
  // A unary response carries no parameters.
  CHECK(FinalFlagOf(ByteView{Bytes(framed) + 5, length}) == -1);
}

TEST(frames_messages_as_bytes_arrive) {
  MessageFramer framer(100);
  std::string stream;
  AppendMessagePrefix(&stream, 3);
  stream += "abc";
  AppendMessagePrefix(&stream, 0);
  // Byte by byte: one message, then an empty one.
  size_t pos = 0;
  int messages = 0;
  for (size_t i = 0; i < stream.size(); ++i) {
    size_t p = 0;
    const auto event = framer.Feed(Bytes(stream) + i, 1, &p);
    if (event == MessageFramer::Event::kMessage) {
      CHECK_EQ(framer.message(), std::string(messages == 0 ? "abc" : ""));
      ++messages;
      framer.Reset();
    }
    pos += p;
  }
  CHECK_EQ(messages, 2);
  // A declared length over the limit is refused before any of it is held.
  std::string big;
  AppendMessagePrefix(&big, 101);
  size_t p = 0;
  CHECK(framer.Feed(Bytes(big), big.size(), &p) == MessageFramer::Event::kTooLarge);
  CHECK_EQ(framer.held(), size_t(0));
  framer.Reset();
  // A compressed message is framed as any other, and says so.
  const std::string compressed = std::string("\x01\x00\x00\x00\x01x", 6);
  p = 0;
  CHECK(framer.Feed(Bytes(compressed), compressed.size(), &p) == MessageFramer::Event::kMessage);
  CHECK(framer.compressed());
  CHECK_EQ(framer.message(), std::string("x"));
  framer.Reset();
  CHECK(!framer.compressed());
}

TEST(frames_messages_into_buffers_a_finished_message_gave_back) {
  RecycledBuffers<std::string> recycled;
  MessageFramer framer(1 << 20, &recycled);
  std::string stream;
  AppendMessagePrefix(&stream, 20000);
  stream += std::string(20000, 'x');
  size_t p = 0;
  CHECK(framer.Feed(Bytes(stream), stream.size(), &p) == MessageFramer::Event::kMessage);
  std::string first = std::move(framer.message());
  framer.Reset();
  const char* memory = first.data();
  recycled.Give(first);
  // The next message of that size is received into the same memory.
  p = 0;
  CHECK(framer.Feed(Bytes(stream), stream.size(), &p) == MessageFramer::Event::kMessage);
  CHECK(framer.message().data() == memory);
  CHECK_EQ(framer.message(), std::string(20000, 'x'));
  // A much smaller message does not take a kept buffer far larger than itself.
  std::string second = std::move(framer.message());
  framer.Reset();
  recycled.Give(second);
  std::string small;
  AppendMessagePrefix(&small, 10);
  small += std::string(10, 'y');
  p = 0;
  CHECK(framer.Feed(Bytes(small), small.size(), &p) == MessageFramer::Event::kMessage);
  CHECK(framer.message().data() != memory);
  std::string out;
  CHECK(recycled.Take(20000, &out));
  CHECK(out.data() == memory && out.empty());
  out = std::string();
  CHECK(!recycled.Take(20000, &out));
}

TEST(recycled_buffers_keep_a_bounded_number_of_bounded_buffers) {
  RecycledBuffers<std::vector<uint8_t>> recycled;
  std::vector<uint8_t> huge(RecycledBuffers<std::vector<uint8_t>>::kMaxBytes + 1);
  recycled.Give(huge);
  CHECK_EQ(huge.size(), huge.capacity());  // not kept: the caller still holds it
  std::vector<uint8_t> out;
  CHECK(!recycled.Take(huge.size(), &out));
  for (size_t i = 0; i < RecycledBuffers<std::vector<uint8_t>>::kKeep + 5; ++i) {
    std::vector<uint8_t> b(4096);
    recycled.Give(b);
  }
  size_t taken = 0;
  while (recycled.Take(4096, &out)) {
    CHECK(out.empty() && out.capacity() >= 4096);
    out = std::vector<uint8_t>();
    ++taken;
  }
  CHECK_EQ(taken, RecycledBuffers<std::vector<uint8_t>>::kKeep);
}

TEST(reads_grpc_timeouts_and_encodes_grpc_messages) {
  uint64_t us = 0;
  CHECK(ParseGrpcTimeout("5S", &us));
  CHECK_EQ(us, uint64_t(5000000));
  CHECK(ParseGrpcTimeout("100m", &us));
  CHECK_EQ(us, uint64_t(100000));
  CHECK(ParseGrpcTimeout("1500n", &us));
  CHECK_EQ(us, uint64_t(2));
  CHECK(ParseGrpcTimeout("99999999H", &us));
  CHECK(!ParseGrpcTimeout("123456789S", &us));  // more than 8 digits
  CHECK(!ParseGrpcTimeout("S", &us));
  CHECK(!ParseGrpcTimeout("1x", &us));
  CHECK(!ParseGrpcTimeout("-1S", &us));
  CHECK_EQ(PercentEncodeGrpcMessage("100% sure: caf\xc3\xa9\n"), std::string("100%25 sure: caf%C3%A9%0A"));
}
