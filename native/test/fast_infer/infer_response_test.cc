// The response JSON the infer route writes: what JSON.stringify and the JS codec write for the
// same values (expected strings taken from Node: JSON.stringify(Buffer.from(bytes).toString())).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

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

static std::string Header(const std::string& model, const std::string& version, const std::string* id, const std::vector<ResponseOutput>& outputs) {
  std::string json;
  CHECK(EncodeInferResponseJson(model, version, id, outputs, &json));
  return json;
}

TEST(infer_response_header_layout) {
  const std::string logits = "logits", other = "o\"2";
  const std::vector<int64_t> s1 = {2, 10}, s2 = {};
  const std::string id = "req\n1";
  CHECK_EQ(Header("mnist", "1", &id, {{&logits, DataType::kFloat32, &s1, 80}, {&other, DataType::kInt64, &s2, 8}}),
           std::string("{\"model_name\":\"mnist\",\"model_version\":\"1\",\"id\":\"req\\n1\",\"outputs\":["
                       "{\"name\":\"logits\",\"datatype\":\"FP32\",\"shape\":[2,10],\"parameters\":{\"binary_data_size\":80}},"
                       "{\"name\":\"o\\\"2\",\"datatype\":\"INT64\",\"shape\":[],\"parameters\":{\"binary_data_size\":8}}]}"));
  const std::string empty_id;
  CHECK_EQ(Header("m", "12", nullptr, {{&logits, DataType::kUInt8, &s1, 0}}),
           std::string("{\"model_name\":\"m\",\"model_version\":\"12\",\"outputs\":[{\"name\":\"logits\",\"datatype\":\"UINT8\","
                       "\"shape\":[2,10],\"parameters\":{\"binary_data_size\":0}}]}"));
  CHECK_EQ(Header("m", "1", &empty_id, {}), std::string("{\"model_name\":\"m\",\"model_version\":\"1\",\"id\":\"\",\"outputs\":[]}"));
}

static std::string Number(double v) {
  std::string out;
  AppendJsNumber(v, &out);
  return out;
}

// Expected strings from Node: String(v), and String(Math.fround(x)) for floats.
TEST(numbers_as_js_writes_them) {
  CHECK_EQ(Number(0), std::string("0"));
  CHECK_EQ(Number(-0.0), std::string("0"));
  CHECK_EQ(Number(1), std::string("1"));
  CHECK_EQ(Number(-42), std::string("-42"));
  CHECK_EQ(Number(0.5), std::string("0.5"));
  CHECK_EQ(Number(double(0.1f)), std::string("0.10000000149011612"));
  CHECK_EQ(Number(double(-3.4028234663852886e38f)), std::string("-3.4028234663852886e+38"));
  CHECK_EQ(Number(123456789012345680000.0), std::string("123456789012345680000"));
  CHECK_EQ(Number(1e21), std::string("1e+21"));
  CHECK_EQ(Number(1.5e21), std::string("1.5e+21"));
  CHECK_EQ(Number(0.000001), std::string("0.000001"));
  CHECK_EQ(Number(0.0000012345), std::string("0.0000012345"));
  CHECK_EQ(Number(1e-7), std::string("1e-7"));
  CHECK_EQ(Number(-1.25e-7), std::string("-1.25e-7"));
  CHECK_EQ(Number(5e-324), std::string("5e-324"));
  CHECK_EQ(Number(1.7976931348623157e308), std::string("1.7976931348623157e+308"));
  CHECK_EQ(Number(double(1e-45f)), std::string("1.401298464324817e-45"));
  CHECK_EQ(Number(100), std::string("100"));
  CHECK_EQ(Number(123.456), std::string("123.456"));
  CHECK_EQ(Number(std::nan("")), std::string("NaN"));
  CHECK_EQ(Number(HUGE_VAL), std::string("Infinity"));
  CHECK_EQ(Number(-HUGE_VAL), std::string("-Infinity"));
}

template <typename T>
static std::string Data(DataType dtype, std::vector<T> values) {
  std::string out;
  CHECK(AppendJsonData(dtype, reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T), &out));
  return out;
}

TEST(json_data_as_bytes_to_json_text_writes_it) {
  CHECK_EQ(Data<float>(DataType::kFloat32, {1.5f, -0.0f, 0.1f, float(HUGE_VAL), std::nanf("")}),
           std::string("[1.5,0,0.10000000149011612,Infinity,NaN]"));
  CHECK_EQ(Data<double>(DataType::kFloat64, {0.1, -1e300}), std::string("[0.1,-1e+300]"));
  CHECK_EQ(Data<int64_t>(DataType::kInt64, {INT64_MIN, INT64_MAX}), std::string("[-9223372036854775808,9223372036854775807]"));
  CHECK_EQ(Data<uint64_t>(DataType::kUInt64, {UINT64_MAX}), std::string("[18446744073709551615]"));
  CHECK_EQ(Data<int8_t>(DataType::kInt8, {-128, 127}), std::string("[-128,127]"));
  CHECK_EQ(Data<uint8_t>(DataType::kUInt8, {0, 255}), std::string("[0,255]"));
  CHECK_EQ(Data<uint8_t>(DataType::kBool, {1, 0, 2}), std::string("[true,false,true]"));
  CHECK_EQ(Data<int32_t>(DataType::kInt32, {}), std::string("[]"));
  const std::string bytes("\x02\x00\x00\x00hi\x03\x00\x00\x00\"\n\xFF\x00\x00\x00\x00", 17);
  std::string out;
  CHECK(AppendJsonData(DataType::kString, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &out));
  CHECK_EQ(out, std::string("[\"hi\",\"\\\"\\n\xEF\xBF\xBD\",\"\"]"));
  out.clear();
  CHECK(!AppendJsonData(DataType::kString, reinterpret_cast<const uint8_t*>(bytes.data()), 7, &out));  // cut inside an element
  CHECK(!AppendJsonData(DataType::kFloat16, reinterpret_cast<const uint8_t*>(bytes.data()), 2, &out));
  CHECK(!AppendJsonData(DataType::kInt32, reinterpret_cast<const uint8_t*>(bytes.data()), 3, &out));
}

TEST(json_outputs_mix_with_binary_ones) {
  const std::string x = "X", y = "Y";
  const std::vector<int64_t> s = {2};
  const float xs[] = {1, 2.5f};
  const int32_t ys[] = {7, -7};
  CHECK_EQ(Header("m", "1", nullptr, {{&x, DataType::kFloat32, &s, 8, reinterpret_cast<const uint8_t*>(xs), false},
                                      {&y, DataType::kInt32, &s, 8, reinterpret_cast<const uint8_t*>(ys), true}}),
           std::string("{\"model_name\":\"m\",\"model_version\":\"1\",\"outputs\":[{\"name\":\"X\",\"datatype\":\"FP32\",\"shape\":[2],"
                       "\"data\":[1,2.5]},{\"name\":\"Y\",\"datatype\":\"INT32\",\"shape\":[2],\"parameters\":{\"binary_data_size\":8}}]}"));
}

TEST(error_body_layout) {
  CHECK_EQ(EncodeErrorBody("Request timeout expired"), std::string("{\"error\":\"Request timeout expired\"}"));
  CHECK_EQ(EncodeErrorBody("model 'a\"b' failed:\n\xFF"), std::string("{\"error\":\"model 'a\\\"b' failed:\\n\xEF\xBF\xBD\"}"));
}
