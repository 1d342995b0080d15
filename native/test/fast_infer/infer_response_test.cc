// The response JSON the infer route writes: what JSON.stringify and the JS codec write for the
// same values (expected strings taken from Node: JSON.stringify(Buffer.from(bytes).toString())).
#include <string>

#include "check.h"
#include "http/infer_response.h"

using namespace gebe;

namespace {

std::string Quote(const std::string& text) {
  std::string out;
  AppendJsonString(text, &out);
  return out;
}

}  // namespace

TEST(json_string_escapes_as_json_stringify) {
  CHECK_EQ(Quote(""), std::string("\"\""));
  CHECK_EQ(Quote("plain text/1"), std::string("\"plain text/1\""));
  CHECK_EQ(Quote(std::string("\x01\x1f\x7f\"\\\b\f\n\r\t/", 11)), std::string("\"\\u0001\\u001f\x7f\\\"\\\\\\b\\f\\n\\r\\t/\""));
  CHECK_EQ(Quote(std::string("a\0b", 3)), std::string("\"a\\u0000b\""));
  CHECK_EQ(Quote("\xE2\x80\xA8\xE2\x82\xAC\xF0\x9F\x98\x80"), std::string("\"\xE2\x80\xA8\xE2\x82\xAC\xF0\x9F\x98\x80\""));
}

TEST(json_string_replaces_malformed_utf8_as_v8_decodes_it) {
  const std::string r = "\xEF\xBF\xBD";  // U+FFFD
  CHECK_EQ(Quote("\xE0\x80"), "\"" + r + r + "\"");
  CHECK_EQ(Quote("\xF0\x9F\x98"), "\"" + r + "\"");
  CHECK_EQ(Quote("\xF0\x9F\x41"), "\"" + r + "A\"");
  CHECK_EQ(Quote("\xC0\xAF"), "\"" + r + r + "\"");
  CHECK_EQ(Quote("\xED\xA0\x80"), "\"" + r + r + r + "\"");
  CHECK_EQ(Quote("\xF4\x90\x80\x80"), "\"" + r + r + r + r + "\"");
  CHECK_EQ(Quote("\xFF"), "\"" + r + "\"");
  CHECK_EQ(Quote("a\xE2\x82"), "\"a" + r + "\"");
  CHECK_EQ(Quote("\xE2\x82\xAC"), std::string("\"\xE2\x82\xAC\""));
  CHECK_EQ(Quote("\xC3\x22"), "\"" + r + "\\\"\"");  // a quote ends the sequence and is escaped
}

TEST(infer_response_header_layout) {
  const std::string logits = "logits", other = "o\"2";
  const std::vector<int64_t> s1 = {2, 10}, s2 = {};
  const std::string id = "req\n1";
  CHECK_EQ(EncodeInferResponseHeader("mnist", "1", &id, {{&logits, "FP32", &s1, 80}, {&other, "INT64", &s2, 8}}),
           std::string("{\"model_name\":\"mnist\",\"model_version\":\"1\",\"id\":\"req\\n1\",\"outputs\":["
                       "{\"name\":\"logits\",\"datatype\":\"FP32\",\"shape\":[2,10],\"parameters\":{\"binary_data_size\":80}},"
                       "{\"name\":\"o\\\"2\",\"datatype\":\"INT64\",\"shape\":[],\"parameters\":{\"binary_data_size\":8}}]}"));
  const std::string empty_id;
  CHECK_EQ(EncodeInferResponseHeader("m", "12", nullptr, {{&logits, "UINT8", &s1, 0}}),
           std::string("{\"model_name\":\"m\",\"model_version\":\"12\",\"outputs\":[{\"name\":\"logits\",\"datatype\":\"UINT8\","
                       "\"shape\":[2,10],\"parameters\":{\"binary_data_size\":0}}]}"));
  CHECK_EQ(EncodeInferResponseHeader("m", "1", &empty_id, {}), std::string("{\"model_name\":\"m\",\"model_version\":\"1\",\"id\":\"\",\"outputs\":[]}"));
}

TEST(error_body_layout) {
  CHECK_EQ(EncodeErrorBody("Request timeout expired"), std::string("{\"error\":\"Request timeout expired\"}"));
  CHECK_EQ(EncodeErrorBody("model 'a\"b' failed:\n\xFF"), std::string("{\"error\":\"model 'a\\\"b' failed:\\n\xEF\xBF\xBD\"}"));
}
