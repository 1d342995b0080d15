// The strict JSON-subset reader of binary infer request headers: what it reads, and that
// everything outside the subset (and every malformed text) is refused without crashing.
#include <string>

#include "check.h"
#include "http/infer_header.h"

using gebe::InferHeader;
using gebe::ReadInferHeader;

namespace {

bool Read(const std::string& text, InferHeader* h) { return ReadInferHeader(text.data(), text.size(), h); }
bool Reads(const std::string& text) {
  InferHeader h;
  return Read(text, &h);
}

const std::string kInput = R"({"name":"image","datatype":"FP32","shape":[2,1,28,28],"parameters":{"binary_data_size":12544}})";
const std::string kFull = R"({"id":"r-1","inputs":[)" + kInput +
                          R"(],"outputs":[{"name":"logits","parameters":{"binary_data":true}}],"parameters":{"binary_data_output":false,"priority":3,"timeout":250}})";

// kFull with `from` replaced by `to` (once).
std::string Edit(const std::string& from, const std::string& to) {
  std::string s = kFull;
  const size_t at = s.find(from);
  CHECK(at != std::string::npos);
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

}  // namespace

TEST(header_reads_every_field) {
  InferHeader h;
  CHECK(Read(kFull, &h));
  CHECK(h.has_id);
  CHECK_EQ(h.id, std::string("r-1"));
  CHECK_EQ(h.inputs.size(), size_t(1));
  CHECK_EQ(h.inputs[0].name, std::string("image"));
  CHECK_EQ(h.inputs[0].datatype, std::string("FP32"));
  CHECK_EQ(h.inputs[0].shape, (std::vector<int64_t>{2, 1, 28, 28}));
  CHECK(h.inputs[0].has_binary_data_size);
  CHECK_EQ(h.inputs[0].binary_data_size, uint64_t(12544));
  CHECK(h.has_outputs);
  CHECK_EQ(h.outputs.size(), size_t(1));
  CHECK_EQ(h.outputs[0].name, std::string("logits"));
  CHECK_EQ(h.outputs[0].binary_data, 1);
  CHECK_EQ(h.binary_data_output, 0);
  CHECK(h.has_priority);
  CHECK_EQ(h.priority, uint64_t(3));
  CHECK(h.has_timeout);
  CHECK_EQ(h.timeout, uint64_t(250));
}

TEST(header_optional_parts_and_whitespace) {
  InferHeader h;
  CHECK(Read(" \t\r\n{ \"inputs\" : [ { \"shape\" : [ ] , \"datatype\" : \"INT8\" , \"name\" : \"x\" } ] } \n", &h));
  CHECK(!h.has_id);
  CHECK(!h.has_outputs);
  CHECK(!h.has_parameters);
  CHECK_EQ(h.binary_data_output, -1);
  CHECK(h.inputs[0].shape.empty());
  CHECK(!h.inputs[0].has_binary_data_size);
  CHECK(Read("{}", &h));
  CHECK(!h.has_inputs);
  CHECK(Read(R"({"inputs":[],"outputs":[],"parameters":{}})", &h));
  CHECK(h.has_outputs && h.outputs.empty() && h.has_parameters);
  CHECK(Read(R"({"outputs":[{"name":"o","parameters":{}}]})", &h));
  CHECK_EQ(h.outputs[0].binary_data, -1);
}

TEST(header_string_escapes_decode_to_utf8) {
  InferHeader h;
  CHECK(Read(R"({"id":"a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac\ud83d\ude00\u0000"})", &h));
  CHECK_EQ(h.id, std::string("a\"b\\c/d\b\f\n\r\t\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") + std::string(1, '\0'));
  CHECK(Read("{\"id\":\"\xC3\xA9\xF0\x9F\x98\x80\"}", &h));  // raw UTF-8
  CHECK_EQ(h.id, std::string("\xC3\xA9\xF0\x9F\x98\x80"));
  // Keys are compared after decoding, as JSON.parse does.
  CHECK(Read(R"({"i\u0064":"x"})", &h));
  CHECK(h.has_id);
}

TEST(header_refuses_bad_strings) {
  for (const char* text : {
           R"({"id":"\ud800"})",           // lone high surrogate
           R"({"id":"\udc00"})",           // lone low surrogate
           R"({"id":"\ud800\u0041"})",     // high surrogate, then no low one
           R"({"id":"\ud800x"})",
           R"({"id":"\u00G0"})",
           R"({"id":"\u00"})",
           R"({"id":"\x"})",
           R"({"id":"\'"})",
           "{\"id\":\"a\tb\"}",             // raw control character
           "{\"id\":\"\xC0\x80\"}",         // overlong
           "{\"id\":\"\xED\xA0\x80\"}",     // encoded surrogate
           "{\"id\":\"\xF4\x90\x80\x80\"}", // past U+10FFFF
           "{\"id\":\"\xF5\x80\x80\x80\"}",
           "{\"id\":\"\xE2\x82\"}",         // truncated sequence
           "{\"id\":\"\x80\"}",             // lone continuation byte
           "{\"id\":\"\xFF\"}",
           "{\"id\":'x'}",
           "{\"id\":\"x}",
       }) {
    CHECK_EQ(Reads(text), false);
  }
  // A NUL byte inside a string or between tokens.
  CHECK(!Reads(std::string("{\"id\":\"a\0b\"}", 11)));
  CHECK(!Reads(std::string("{\"id\":\"ab\"}\0", 12)));
  CHECK(!Reads(std::string("{\0\"id\":\"ab\"}", 12)));
}

TEST(header_numbers_are_plain_safe_integers) {
  InferHeader h;
  CHECK(Read(R"({"parameters":{"priority":0,"timeout":9007199254740991}})", &h));
  CHECK_EQ(h.timeout, uint64_t(9007199254740991));
  for (const char* number : {"9007199254740992", "99999999999999999999999999", "-1", "-0", "01", "1.0", "1e3", "1E3", "0.5",
                             "+1", "0x10", "Infinity", "NaN", "\"1\"", "true", "null", "[1]", "", "1 2"}) {
    CHECK_EQ_CTX(Reads(std::string(R"({"parameters":{"priority":)") + number + "}}"), false, number);
    if (*number == '\0') continue;  // "shape":[] is a valid (scalar) shape
    CHECK_EQ_CTX(Reads(std::string(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[)") + number + "]}]}"), false, number);
  }
}

TEST(header_refuses_null_and_wrong_types) {
  for (const std::string& text : {
           Edit(R"("id":"r-1")", R"("id":null)"),
           Edit(R"("id":"r-1")", R"("id":7)"),
           Edit(R"("binary_data":true)", R"("binary_data":null)"),
           Edit(R"("binary_data":true)", R"("binary_data":1)"),
           Edit(R"("binary_data":true)", R"("binary_data":"true")"),
           Edit(R"("binary_data_output":false)", R"("binary_data_output":0)"),
           Edit(R"("outputs":[)", R"("outputs":null,"x":[)"),
           Edit(R"("parameters":{"binary_data_output")", R"("parameters":[{"binary_data_output")"),
           Edit(R"("shape":[2,1,28,28])", R"("shape":{"0":2})"),
           Edit(R"("shape":[2,1,28,28])", R"("shape":[2,[1],28,28])"),
           Edit(R"("name":"image")", R"("name":"")"),
           Edit(R"("name":"logits")", R"("name":"")"),
           Edit(R"("name":"image")", R"("name":5)"),
           Edit(R"("datatype":"FP32")", R"("datatype":11)"),
       }) {
    CHECK_EQ_CTX(Reads(text), false, text);
  }
}

TEST(header_refuses_unknown_and_duplicate_keys) {
  for (const std::string& text : {
           Edit(R"("id":"r-1")", R"("id":"r-1","id":"r-2")"),
           Edit(R"("id":"r-1")", R"("id":"r-1","sequence_id":1)"),
           Edit(R"("name":"image")", R"("name":"image","name":"image")"),
           Edit(R"("name":"image")", R"("name":"image","data":[1])"),
           Edit(R"("binary_data_size":12544)", R"("binary_data_size":12544,"binary_data_size":12544)"),
           Edit(R"("binary_data_size":12544)", R"("binary_data_size":12544,"shared_memory_region":"r")"),
           Edit(R"("binary_data":true)", R"("binary_data":true,"binary_data":true)"),
           Edit(R"("binary_data":true)", R"("binary_data":true,"classification":2)"),
           Edit(R"("name":"logits")", R"("name":"logits","extra":1)"),
           Edit(R"("priority":3)", R"("priority":3,"priority":3)"),
           Edit(R"("priority":3)", R"("priority":3,"sequence_start":true)"),
           Edit(R"("inputs":[)", R"("inputs":[],"inputs":[)"),
       }) {
    CHECK_EQ_CTX(Reads(text), false, text);
  }
}

TEST(header_refuses_structural_oddities) {
  for (const std::string& text : {
           std::string(""), std::string(" "), std::string("[]"), std::string("\"x\""), std::string("null"),
           std::string("{"), std::string("}"), std::string("{,}"), std::string("{\"id\":\"a\",}"),
           std::string(R"({"inputs":[)") + kInput + ",]}", std::string(R"({"inputs":[,)") + kInput + "]}",
           std::string("{\"id\" \"a\"}"), std::string("{\"id\":\"a\" \"b\"}"), std::string("{id:\"a\"}"),
           kFull + "x", kFull + "{}", kFull + ",", std::string("\xEF\xBB\xBF") + kFull,  // a byte order mark
           std::string("{\"id\":\"a\"}/*c*/"), std::string("{\"id\":\"a\"\v}"),
       }) {
    CHECK_EQ_CTX(Reads(text), false, text);
  }
  CHECK(Reads(kFull + " \r\n\t"));
}

TEST(header_every_truncation_is_refused) {
  // Every proper prefix of a valid header is incomplete JSON.
  for (size_t n = 0; n < kFull.size(); ++n) CHECK_EQ_CTX(Reads(kFull.substr(0, n)), false, kFull.substr(0, n));
  CHECK(Reads(kFull));
}

TEST(header_deep_nesting_costs_nothing) {
  // No recursion outside the fixed schema: a million brackets are refused at the first one.
  const std::string deep = R"({"parameters":{"priority":)" + std::string(1000000, '[') + std::string(1000000, ']') + "}}";
  CHECK(!Reads(deep));
  const std::string deep_objects = R"({"inputs":[)" + std::string(1000000, '{') + "}";
  CHECK(!Reads(deep_objects));
}

TEST(header_missing_required_input_keys) {
  CHECK(!Reads(R"({"inputs":[{"datatype":"FP32","shape":[1]}]})"));
  CHECK(!Reads(R"({"inputs":[{"name":"x","shape":[1]}]})"));
  CHECK(!Reads(R"({"inputs":[{"name":"x","datatype":"FP32"}]})"));
  CHECK(!Reads(R"({"outputs":[{"parameters":{"binary_data":true}}]})"));
  CHECK(Reads(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1]}]})"));
}
