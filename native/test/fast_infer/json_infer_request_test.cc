// The JSON decoder of the infer route: what it takes it decodes exactly as the JS codec does
// (http-infer-request.ts, json-tensor.ts); what the JS codec would refuse or read differently it
// declines.
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "contract_fixture.h"
#include "http/json_infer_request.h"

using namespace gebe;

namespace {

bool Decode(const std::string& json, DecodedHttpInfer* out, const std::string& binary = "") {
  std::string body = json + binary;
  return DecodeHttpInferJson(reinterpret_cast<const uint8_t*>(body.data()), json.size(),
                             reinterpret_cast<const uint8_t*>(body.data()) + json.size(), binary.size(), out) &&
         // the views must not point into `body`, which goes now, unless binary
         true;
}

bool Takes(const std::string& json, const std::string& binary = "") {
  DecodedHttpInfer d;
  return Decode(json, &d, binary);
}

template <typename T>
std::vector<T> Elements(const DecodedInput& in) {
  std::vector<T> out(in.bytes.size / sizeof(T));
  std::memcpy(out.data(), in.bytes.data, in.bytes.size);
  return out;
}

std::string In(const std::string& name, const std::string& dt, const std::string& shape, const std::string& rest) {
  return "{\"name\":\"" + name + "\",\"datatype\":\"" + dt + "\",\"shape\":" + shape + "," + rest + "}";
}

std::string Req(const std::string& inputs, const std::string& extra = "") { return "{\"inputs\":[" + inputs + "]" + extra + "}"; }

}  // namespace

TEST(json_decodes_every_json_datatype_flat_or_nested) {
  DecodedHttpInfer d;
  CHECK(Decode(Req(In("A", "FP32", "[1,4]", "\"data\":[[1, 2.5, -0.0, 1e39]]") + "," + In("B", "INT64", "[1,2,1]", "\"data\":[[9007199254740991],[-9007199254740991]]") + "," +
                   In("C", "BOOL", "[3]", "\"data\":[true,false,true]") + "," + In("D", "BYTES", "[2]", "\"data\":[\"h\\u00e9\",\"\"]") + "," +
                   In("E", "UINT8", "[2]", "\"data\":[255, 1.0]") + "," + In("F", "FP64", "[1]", "\"data\":[0.1]")),
               &d));
  CHECK_EQ(d.request.inputs.size(), size_t(6));
  std::vector<float> a = Elements<float>(d.request.inputs[0]);
  CHECK_EQ(a[0], 1.0f);
  CHECK_EQ(a[1], 2.5f);
  CHECK(a[2] == 0 && std::signbit(a[2]));  // -0 stays -0, as a Float32Array store keeps it
  CHECK(std::isinf(a[3]));                   // past FLT_MAX: Infinity, as Math.fround
  CHECK_EQ(Elements<int64_t>(d.request.inputs[1]), (std::vector<int64_t>{9007199254740991, -9007199254740991}));
  CHECK_EQ(Elements<uint8_t>(d.request.inputs[2]), (std::vector<uint8_t>{1, 0, 1}));
  const DecodedInput& bytes = d.request.inputs[3];
  CHECK_EQ(std::string(reinterpret_cast<const char*>(bytes.bytes.data), bytes.bytes.size), std::string("\x03\0\0\0h\xC3\xA9\0\0\0\0", 11));
  CHECK_EQ(Elements<uint8_t>(d.request.inputs[4]), (std::vector<uint8_t>{255, 1}));
  CHECK_EQ(Elements<double>(d.request.inputs[5]), (std::vector<double>{0.1}));
  CHECK_EQ(d.request.inputs[0].shape, (std::vector<int64_t>{1, 4}));
  CHECK_EQ(d.request.inputs[3].datatype, std::string("BYTES"));
  CHECK(!d.request.has_outputs);
}

TEST(json_mixes_binary_and_json_inputs_in_order) {
  DecodedHttpInfer d;
  std::string binary(16, '\0');
  const float four[] = {1, 2, 3, 4};
  std::memcpy(&binary[0], four, 16);
  std::string body = Req(In("B", "INT64", "[1,2,1]", "\"data\":[1,2]") + "," + In("A", "FP32", "[1,4]", "\"parameters\":{\"binary_data_size\":16}"),
                         ",\"id\":\"q\",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"binary_data\":false}},{\"name\":\"Y\"}],"
                         "\"parameters\":{\"binary_data_output\":true,\"priority\":2,\"timeout\":100,\"other\":[1]}");
  std::string all = body + binary;
  CHECK(DecodeHttpInferJson(reinterpret_cast<const uint8_t*>(all.data()), body.size(), reinterpret_cast<const uint8_t*>(all.data()) + body.size(), 16, &d));
  CHECK(d.request.inputs[1].bytes.data == reinterpret_cast<const uint8_t*>(all.data()) + body.size());  // a view, not a copy
  CHECK_EQ(Elements<float>(d.request.inputs[1]), (std::vector<float>{1, 2, 3, 4}));
  CHECK(d.request.has_id && d.request.id == "q");
  CHECK(d.request.has_outputs && d.request.outputs.size() == 2);
  CHECK(d.request.outputs[0].binary_data.present() && !d.request.outputs[0].binary_data.bool_value);
  CHECK(!d.request.outputs[1].binary_data.present());
  CHECK(d.request.binary_data_output.bool_value);
  CHECK_EQ(d.request.priority.uint64_value, uint64_t(2));
  CHECK_EQ(d.request.timeout_us.uint64_value, uint64_t(100));
  // The binary sizes must add up to the binary part exactly.
  CHECK(!DecodeHttpInferJson(reinterpret_cast<const uint8_t*>(all.data()), body.size(), reinterpret_cast<const uint8_t*>(all.data()) + body.size(), 15, &d));
  all += "x";
  CHECK(!DecodeHttpInferJson(reinterpret_cast<const uint8_t*>(all.data()), body.size(), reinterpret_cast<const uint8_t*>(all.data()) + body.size(), 17, &d));
}

TEST(json_reads_the_classification_k_as_the_js_codec_takes_it) {
  const std::string ok = In("A", "FP32", "[1,2]", "\"data\":[1,2]");
  for (const auto& [text, k] : std::vector<std::pair<std::string, uint64_t>>{{"2", 2}, {"3.0", 3}, {"1e2", 100}, {"9007199254740991", 9007199254740991}}) {
    DecodedHttpInfer d;
    const std::string body = Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"binary_data\":true,\"classification\":" + text + "}},{\"name\":\"Y\"}]");
    CHECK_EQ_CTX(DecodeHttpInferJson(reinterpret_cast<const uint8_t*>(body.data()), body.size(), nullptr, 0, &d), true, text);
    CHECK(d.request.outputs.size() == 2 && d.request.outputs[0].class_count.kind == ParameterValue::Kind::kUint64);
    CHECK_EQ_CTX(d.request.outputs[0].class_count.uint64_value, k, text);
    CHECK(d.request.outputs[0].binary_data.bool_value);
    CHECK(!d.request.outputs[1].class_count.present());
  }
}

TEST(json_declines_what_the_js_codec_refuses_or_reads_differently) {
  const std::string ok = In("A", "FP32", "[1,2]", "\"data\":[1,2]");
  CHECK(Takes(Req(ok)));
  for (const std::string& bad : {
           std::string("[]"), std::string("null"), std::string("{}"), std::string("{\"inputs\":[]}"), Req(ok) + "x", std::string("{\"inputs\":[") + ok,
           Req(ok, ",\"inputs\":[]"),                                         // duplicate key (JSON.parse keeps the last)
           Req(ok, ",\"id\":1"), Req(ok, ",\"outputs\":[]"), Req(ok, ",\"outputs\":{}"), Req(ok, ",\"outputs\":[{}]"),
           Req(ok, ",\"outputs\":[{\"name\":\"\"}]"), Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"binary_data\":1}}]"),
           // A classification k the JS codec refuses: not a positive safe integer, or given twice.
           Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"classification\":0}}]"),
           Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"classification\":-1}}]"),
           Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"classification\":1.5}}]"),
           Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"classification\":\"2\"}}]"),
           Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"classification\":true}}]"),
           Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"classification\":null}}]"),
           Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"classification\":9007199254740992}}]"),
           Req(ok, ",\"outputs\":[{\"name\":\"X\",\"parameters\":{\"classification\":2,\"classification\":3}}]"),
           Req(ok, ",\"parameters\":{\"priority\":-1}"), Req(ok, ",\"parameters\":{\"priority\":1.5}"), Req(ok, ",\"parameters\":{\"timeout\":\"1\"}"),
           Req(ok, ",\"parameters\":{\"binary_data_output\":1}"), Req(ok, ",\"parameters\":[]"),
           Req(In("A", "FP32", "[1,2]", "\"data\":[1,NaN]")),                // NaN/Infinity tokens: the JS reader's
           Req(In("A", "FP32", "[1,2]", "\"data\":[1]")), Req(In("A", "FP32", "[1,2]", "\"data\":[1,2,3]")),
           Req(In("A", "FP32", "[1,2]", "\"data\":[1,\"2\"]")), Req(In("A", "FP32", "[1,2]", "\"data\":[1,null]")),
           Req(In("A", "FP32", "[1,2]", "\"data\":1")), Req(In("A", "FP32", "[1,2]", "\"data\":null")),
           Req(In("A", "INT8", "[1]", "\"data\":[128]")), Req(In("A", "UINT8", "[1]", "\"data\":[-1]")), Req(In("A", "INT32", "[1]", "\"data\":[0.5]")),
           Req(In("A", "INT64", "[1]", "\"data\":[9007199254740992]")), Req(In("A", "UINT64", "[1]", "\"data\":[18446744073709551615]")),
           Req(In("A", "BOOL", "[1]", "\"data\":[1]")), Req(In("A", "BYTES", "[1]", "\"data\":[1]")),
           Req(In("A", "FP16", "[1]", "\"data\":[1]")), Req(In("A", "BF16", "[1]", "\"data\":[1]")),
           Req(In("A", "fp32", "[1]", "\"data\":[1]")), Req(In("A", "FP32", "[-1]", "\"data\":[1]")), Req(In("A", "FP32", "[1.5]", "\"data\":[1]")),
           Req(In("A", "FP32", "1", "\"data\":[1]")), Req(In("", "FP32", "[1]", "\"data\":[1]")),
           Req(In("A", "FP32", "[1]", "\"data\":[1],\"parameters\":{\"binary_data_size\":4}")),  // both ways
           Req(In("A", "FP32", "[1]", "\"parameters\":{\"binary_data_size\":4}")),                // bytes missing
           Req(In("A", "FP32", "[1]", "\"parameters\":{}")),                                       // neither way
           Req(In("A", "FP32", "[1000]", "\"data\":[]")),                                          // more elements than the body has bytes
           Req(In("A", "FP32", "[1]", "\"data\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]")),  // 34 levels
           std::string("{\"inputs\":[{\"name\":\"A\",\"name\":\"B\",\"datatype\":\"FP32\",\"shape\":[1],\"data\":[1]}]}"),
           std::string("{\"inputs\":[") + ok + "]}\xFF",
           std::string("{\"id\":\"\xC3\"}"),  // invalid UTF-8
           Req(In("A", "FP32", "[1,2]", "\"data\":[1,-0]")),  // -0: simdjson reads 0, JSON.parse -0
       }) {
    CHECK_EQ_CTX(Takes(bad), false, bad);
  }
  CHECK(Takes(Req(In("A", "FP32", "[1]", "\"data\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"))));  // 32 levels
  CHECK(Takes(Req(ok, ",\"unknown\":{\"x\":null}")));  // unknown keys are ignored, as the JS codec ignores them
}
