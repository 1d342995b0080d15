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

bool Plans(const InferHeader& h, const InferContract& c = TwoInputContract(), size_t binary = 288) {
  InferPlan plan;
  return PlanInfer(h, c, binary, &plan);
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

TEST(plan_orders_inputs_by_model_and_offsets_by_body) {
  InferPlan plan;
  CHECK(PlanInfer(Valid(), TwoInputContract(), 288, &plan));
  CHECK_EQ(plan.inputs.size(), size_t(2));
  CHECK_EQ(plan.inputs[0].model_index, size_t(0));
  CHECK_EQ(plan.inputs[0].body_offset, size_t(240));  // A's bytes follow B's
  CHECK_EQ(plan.inputs[0].byte_size, size_t(48));
  CHECK_EQ(plan.inputs[0].shape, (std::vector<int64_t>{3, 4}));
  CHECK_EQ(plan.inputs[1].body_offset, size_t(0));
  CHECK_EQ(plan.inputs[1].byte_size, size_t(240));
  CHECK_EQ(plan.rows, int64_t(3));
  CHECK_EQ(plan.outputs, (std::vector<size_t>{0, 1}));
  CHECK_EQ(plan.output_mask, ~uint64_t(0));
  CHECK_EQ(plan.priority, uint32_t(0));
  CHECK_EQ(plan.timeout_us, uint64_t(0));
}

TEST(plan_requested_outputs_and_parameters) {
  InferHeader h = Valid();
  h.binary_data_output = -1;
  h.has_outputs = true;
  h.outputs = {{"Y", 1}, {"X", -1}};
  CHECK(!Plans(h));  // X falls back to binary_data_output, which is unset: JSON
  h.binary_data_output = 1;
  h.has_priority = true;
  h.priority = 0xffffffffull;
  h.has_timeout = true;
  h.timeout = 9007199254740991ull;
  InferPlan plan;
  CHECK(PlanInfer(h, TwoInputContract(), 288, &plan));
  CHECK_EQ(plan.outputs, (std::vector<size_t>{1, 0}));
  CHECK_EQ(plan.output_mask, uint64_t(3));
  CHECK_EQ(plan.priority, uint32_t(0xffffffffu));
  CHECK_EQ(plan.timeout_us, uint64_t(9007199254740991ull));
  h.outputs = {{"Y", 1}};
  CHECK(PlanInfer(h, TwoInputContract(), 288, &plan));
  CHECK_EQ(plan.output_mask, uint64_t(2));
  h.priority = 0x100000000ull;
  CHECK(!Plans(h));
}

TEST(plan_wide_models_ask_for_every_output) {
  InferContract c = TwoInputContract();
  for (int i = 0; i < 40; ++i) c.outputs.push_back({"O" + std::to_string(i), DataType::kFloat32, {-1}});
  InferHeader h = Valid();
  h.has_outputs = true;
  h.outputs = {{"O35", 1}};
  InferPlan plan;
  CHECK(PlanInfer(h, c, 288, &plan));
  CHECK_EQ(plan.output_mask, ~uint64_t(0));
  CHECK_EQ(plan.outputs, (std::vector<size_t>{37}));
}

TEST(plan_declines_what_the_js_path_refuses) {
  auto edit = [](auto fn) {
    InferHeader h = Valid();
    fn(h);
    return h;
  };
  CHECK(Plans(Valid()));
  CHECK(!Plans(Valid(), TwoInputContract(), 287));  // bytes missing
  CHECK(!Plans(Valid(), TwoInputContract(), 289));  // bytes left over
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs.clear(); })));
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs.pop_back(); }), TwoInputContract(), 240));  // A missing
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs.push_back(h.inputs[1]); }), TwoInputContract(), 336));  // A twice
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].name = "C"; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].has_binary_data_size = false; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].datatype = "FP64"; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].datatype = "fp32"; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].shape = {3, 5}; h.inputs[1].binary_data_size = 60; }), TwoInputContract(), 300));
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].shape = {12}; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].shape = {3, 4, 1}; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].shape = {2, 4}; h.inputs[1].binary_data_size = 32; }), TwoInputContract(), 272));  // rows differ
  CHECK(!Plans(edit([](InferHeader& h) { h.inputs[1].binary_data_size = 44; }), TwoInputContract(), 284));
  CHECK(!Plans(edit([](InferHeader& h) {  // zero rows
          h.inputs[0].shape[0] = 0; h.inputs[0].binary_data_size = 0;
          h.inputs[1].shape[0] = 0; h.inputs[1].binary_data_size = 0; }), TwoInputContract(), 0));
  CHECK(!Plans(edit([](InferHeader& h) {  // more rows than max_batch_size
          h.inputs[0].shape[0] = 9; h.inputs[0].binary_data_size = 720;
          h.inputs[1].shape[0] = 9; h.inputs[1].binary_data_size = 144; }), TwoInputContract(), 864));
  CHECK(!Plans(edit([](InferHeader& h) { h.binary_data_output = 0; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.binary_data_output = -1; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.has_outputs = true; })));  // an empty outputs list
  CHECK(!Plans(edit([](InferHeader& h) { h.has_outputs = true; h.outputs = {{"Z", 1}}; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.has_outputs = true; h.outputs = {{"X", 1}, {"X", 1}}; })));
  CHECK(!Plans(edit([](InferHeader& h) { h.has_outputs = true; h.outputs = {{"X", 0}}; })));
}

TEST(plan_declines_special_datatypes) {
  InferContract c = TwoInputContract();
  c.outputs[1].dtype = DataType::kFloat16;
  CHECK(!Plans(Valid(), c));
  InferHeader h = Valid();
  h.has_outputs = true;
  h.outputs = {{"X", 1}};
  CHECK(Plans(h, c));  // the FP16 output is not asked for
  c = TwoInputContract();
  c.inputs[1].dtype = DataType::kString;
  InferHeader bytes = Valid();
  bytes.inputs[1].datatype = "BYTES";
  CHECK(!Plans(bytes, c));
  c.inputs[1].dtype = DataType::kBFloat16;
  bytes.inputs[1].datatype = "BF16";
  bytes.inputs[1].binary_data_size = 24;
  CHECK(!Plans(bytes, c, 264));
}

TEST(plan_unbatched_models_and_huge_shapes) {
  InferContract c;
  c.model_name = "id";
  c.version = "1";
  c.inputs = {{"IN", DataType::kUInt8, {-1, -1}}};
  c.outputs = {{"OUT", DataType::kUInt8, {-1, -1}}};
  InferHeader h;
  h.has_inputs = true;
  h.binary_data_output = 1;
  h.inputs = {In("IN", "UINT8", {0, 9007199254740991}, 0)};  // zero elements, as the JS codec counts them
  InferPlan plan;
  CHECK(PlanInfer(h, c, 0, &plan));
  CHECK_EQ(plan.rows, int64_t(1));
  h.inputs = {In("IN", "UINT8", {65536, 32768}, uint64_t(1) << 31)};  // exactly 2^31 elements
  CHECK(PlanInfer(h, c, size_t(1) << 31, &plan));
  h.inputs = {In("IN", "UINT8", {65536, 32769}, 0)};  // over 2^31 elements
  CHECK(!PlanInfer(h, c, 0, &plan));
  h.inputs = {In("IN", "UINT8", {9007199254740991, 9007199254740991}, 0)};  // products past 64 bits
  CHECK(!PlanInfer(h, c, 0, &plan));
}
