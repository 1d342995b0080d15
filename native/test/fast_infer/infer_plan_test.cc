// The infer route's URL and header checks and the request plan: taken exactly when the JS path
// would answer with a plain all-binary response, declined otherwise.
#include <string>

#include "check.h"
#include "contract_fixture.h"
#include "http/infer_plan.h"

using namespace gebe;

namespace {

bool Url(std::string_view url, InferUrl* out = nullptr) {  // views into `url`, a literal
  InferUrl tmp;
  return MatchInferUrl(url, out ? out : &tmp);
}


HeaderInput In(const std::string& name, const std::string& dt, std::vector<int64_t> shape, uint64_t size) {
  HeaderInput in;
  in.name = name;
  in.datatype = dt;
  in.shape = std::move(shape);
  in.has_binary_data_size = true;
  in.binary_data_size = size;
  return in;
}

// Inputs B (3 rows of 2x5 INT64 = 240 bytes) then A (3 rows of 4 FP32 = 48 bytes); all outputs binary.
InferHeader Valid() {
  InferHeader h;
  h.has_inputs = true;
  h.inputs = {In("B", "INT64", {3, 2, 5}, 240), In("A", "FP32", {3, 4}, 48)};
  h.binary_data_output = 1;
  return h;
}


}  // namespace

TEST(url_matches_infer_paths_only) {
  InferUrl u;
  CHECK(Url("/v2/models/mnist/infer", &u));
  CHECK_EQ(std::string(u.model), std::string("mnist"));
  CHECK(!u.versioned);
  CHECK(Url("/v2/models/m.x-1_2/versions/12/infer", &u));
  CHECK_EQ(std::string(u.model), std::string("m.x-1_2"));
  CHECK_EQ(std::string(u.version), std::string("12"));
  CHECK(u.versioned);
  CHECK(Url("/v2/models/versions/infer", &u));  // a model named "versions"
  CHECK_EQ(std::string(u.model), std::string("versions"));
  for (const char* url : {"/v2/models/mnist/infer/", "/v2/models/mnist/infer?x", "/v2/models/mnist/infer#f", "/v2/models/mn%69st/infer",
                          "/v2/models//infer", "/v2/models/mnist//infer", "/v2/models/mnist/versions/1a/infer",
                          "/v2/models/mnist/versions//infer", "/v2/models/mnist/versions/infer", "/v2/models/mnist/versions/1/infer/x",
                          "/v2/models/mnist/ready", "/v2/models/mnist", "/v2/models/", "/v2/models", "/v2//models/mnist/infer",
                          "/V2/models/mnist/infer", "v2/models/mnist/infer", "http://h/v2/models/mnist/infer", "",
                          "/v2/models/mnist/versions/1/x/infer", "/v2/models/a/b/infer", "/v2/models/mnist/inferx",
                          "/v2/models/caf\xC3\xA9/infer", "/v2/models/a b/infer", "/v2/models/a\tb/infer", "/v2/models/a\x7f/infer"}) {
    CHECK_EQ_CTX(Url(url), false, url);
  }
}

TEST(binary_header_length_rules) {
  size_t n = 0;
  CHECK(BinaryHeaderLength({{"content-type", "x"}, {"inference-header-content-length", "120"}}, &n));
  CHECK_EQ(n, size_t(120));
  CHECK(BinaryHeaderLength({{"inference-header-content-length", "0"}}, &n));
  CHECK_EQ(n, size_t(0));
  using Headers = std::vector<std::pair<std::string, std::string>>;
  for (const Headers& headers : {
           Headers{},
           Headers{{"inference-header-content-length", ""}},
           Headers{{"inference-header-content-length", " 12"}},
           Headers{{"inference-header-content-length", "12 "}},
           Headers{{"inference-header-content-length", "-1"}},
           Headers{{"inference-header-content-length", "1e2"}},
           Headers{{"inference-header-content-length", "1234567890123456"}},
           Headers{{"inference-header-content-length", "1"}, {"inference-header-content-length", "1"}},
           Headers{{"inference-header-content-length", "1"}, {"content-encoding", "identity"}},
           Headers{{"content-encoding", "gzip"}, {"inference-header-content-length", "1"}},
       }) {
    CHECK(!BinaryHeaderLength(headers, &n));
  }
}

// The binary part the header describes: B's 240 bytes, then A's 48.
alignas(64) uint8_t g_binary[1 << 12];

TEST(decode_views_inputs_in_body_order_and_carries_parameters) {
  InferHeader h = Valid();
  h.has_id = true;
  h.id = "x";
  h.has_priority = true;
  h.priority = 3;
  DecodedRequest d;
  CHECK(DecodeBinaryInfer(h, g_binary, 288, &d));
  CHECK_EQ(d.inputs.size(), size_t(2));
  CHECK_EQ(d.inputs[0].name, std::string("B"));
  CHECK(d.inputs[0].bytes.data == g_binary);
  CHECK_EQ(d.inputs[0].bytes.size, size_t(240));
  CHECK(d.inputs[1].bytes.data == g_binary + 240);
  CHECK_EQ(d.inputs[1].shape, (std::vector<int64_t>{3, 4}));
  CHECK(d.has_id && d.id == "x");
  CHECK(d.priority.kind == ParameterValue::Kind::kUint64 && d.priority.uint64_value == 3);
  CHECK(d.binary_data_output.kind == ParameterValue::Kind::kBool && d.binary_data_output.bool_value);
  NormalizedRequest n;
  CHECK(Normalize(TwoInputContract(), d, &n).ok());
  CHECK(NativeRouteAnswers(n, TwoInputContract()));
  CHECK_EQ(n.request->inputs[0].name, std::string("A"));  // the model's order
  CHECK_EQ(n.request->info.rows, int64_t(3));
  CHECK_EQ(n.priority, uint32_t(3));
}

TEST(decode_declines_what_the_route_does_not_decode) {
  DecodedRequest d;
  CHECK(!DecodeBinaryInfer(Valid(), g_binary, 287, &d));  // bytes missing
  CHECK(!DecodeBinaryInfer(Valid(), g_binary, 289, &d));  // bytes left over
  InferHeader h = Valid();
  h.inputs.clear();
  CHECK(!DecodeBinaryInfer(h, g_binary, 0, &d));  // no inputs: the codec words it
  h = Valid();
  h.inputs[1].has_binary_data_size = false;  // JSON data
  CHECK(!DecodeBinaryInfer(h, g_binary, 240, &d));
  h = Valid();
  h.inputs[0].binary_data_size = 9007199254740991ull;  // past the body, without overflow
  CHECK(!DecodeBinaryInfer(h, g_binary, 288, &d));
}

TEST(route_answers_only_all_binary_plain_outputs) {
  auto answers = [](const InferHeader& h, const RequestContract& c) {
    DecodedRequest d;
    NormalizedRequest n;
    CHECK(DecodeBinaryInfer(h, g_binary, 288, &d));
    CHECK(Normalize(c, d, &n).ok());
    return NativeRouteAnswers(n, c);
  };
  const RequestContract c = TwoInputContract();
  CHECK(answers(Valid(), c));
  InferHeader h = Valid();
  h.binary_data_output = -1;
  CHECK(!answers(h, c));  // JSON outputs
  h.has_outputs = true;
  h.outputs = {{"Y", 1}, {"X", -1}};
  CHECK(!answers(h, c));  // X falls back to binary_data_output, which is unset: JSON
  h.outputs = {{"Y", 1}};
  CHECK(answers(h, c));
  h.outputs.clear();
  CHECK(!answers(h, c));  // an empty list: the JS path answers plain JSON
  RequestContract half = c;
  half.outputs[1].dtype = DataType::kFloat16;
  CHECK(!answers(Valid(), half));
  h = Valid();
  h.has_outputs = true;
  h.outputs = {{"X", 1}};
  CHECK(answers(h, half));  // the FP16 output is not asked for
}

TEST(contract_failures_are_normalized_not_declined) {
  InferHeader h = Valid();
  h.inputs[1].name = "C";
  DecodedRequest d;
  CHECK(DecodeBinaryInfer(h, g_binary, 288, &d));
  NormalizedRequest n;
  RequestFailure f = Normalize(TwoInputContract(), d, &n);
  CHECK(f.reason == FailureReason::kInvalidArgument);
  CHECK_EQ(f.message, std::string("unexpected inference input 'C' for model 'simple'; its inputs are 'A', 'B'"));
}
