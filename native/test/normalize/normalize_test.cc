// Normalize: every contract check, its order, and Triton's wording (the texts every front end
// now answers with). The model: mnist-like, batched (max 16), inputs image FP32 [-1,1,28,28] and
// scale INT64 [-1,1], outputs logits and probs FP32 [-1,10].
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "executor/normalize.h"

using namespace gebe;

namespace {

RequestContract Mnist() {
  RequestContract c;
  c.model_name = "mnist";
  c.version = "1";
  c.batched = true;
  c.max_request_batch = 16;
  c.inputs = {{"image", DataType::kFloat32, {-1, 1, 28, 28}}, {"scale", DataType::kInt64, {-1, 1}}};
  c.outputs = {{"logits", DataType::kFloat32, {-1, 10}}, {"probs", DataType::kFloat32, {-1, 10}}};
  return c;
}

// Backing bytes for the views; 64-byte aligned so that only the misalignment test misaligns.
alignas(64) uint8_t g_bytes[64 * 1024];

DecodedInput In(std::string name, std::string datatype, std::vector<int64_t> shape, size_t bytes, size_t offset = 0) {
  DecodedInput in;
  in.name = std::move(name);
  in.datatype = std::move(datatype);
  in.shape = std::move(shape);
  in.bytes = {g_bytes + offset, bytes};
  return in;
}
DecodedInput Image(std::vector<int64_t> shape) {
  size_t n = 4;
  for (int64_t d : shape) n *= size_t(d);
  return In("image", "FP32", std::move(shape), n);
}
DecodedInput Scale(int64_t rows) { return In("scale", "INT64", {rows, 1}, size_t(rows) * 8); }

DecodedRequest Valid(int64_t rows = 1) {
  DecodedRequest r;
  r.inputs = {Image({rows, 1, 28, 28}), Scale(rows)};
  return r;
}

std::string Fails(const DecodedRequest& r, const RequestContract& c = Mnist(), FailureReason reason = FailureReason::kInvalidArgument) {
  NormalizedRequest out;
  RequestFailure f = Normalize(c, r, &out);
  CHECK(!f.ok());
  CHECK(f.reason == reason);
  return f.message;
}

DecodedOutput Out(std::string name) {
  DecodedOutput o;
  o.name = std::move(name);
  return o;
}

}  // namespace

TEST(OrdersInputsAsTheModelDeclaresThemWithoutCopying) {
  DecodedRequest r;
  r.inputs = {Scale(2), Image({2, 1, 28, 28})};
  NormalizedRequest out;
  CHECK(Normalize(Mnist(), r, &out).ok());
  CHECK_EQ(out.request->inputs.size(), size_t(2));
  CHECK_EQ(out.request->inputs[0].name, std::string("image"));
  CHECK(out.request->inputs[0].data == g_bytes);
  CHECK_EQ(out.request->inputs[0].shape, (std::vector<int64_t>{2, 1, 28, 28}));
  CHECK_EQ(out.request->inputs[1].shape, (std::vector<int64_t>{2, 1}));
  CHECK_EQ(out.request->info.rows, int64_t(2));
  CHECK_EQ(out.request->output_mask, ~uint64_t(0));
  CHECK_EQ(out.outputs, (std::vector<size_t>{0, 1}));
  CHECK(out.request->owned_inputs.empty());
}

TEST(LeavesAMisalignedTensorWhereItIsForTheGatherToCopy) {
  DecodedRequest r;
  r.inputs = {In("image", "FP32", {1, 1, 28, 28}, 3136, 1), Scale(1)};
  NormalizedRequest out;
  CHECK(Normalize(Mnist(), r, &out).ok());
  CHECK(out.request->inputs[0].data == g_bytes + 1);
  CHECK(out.request->owned_inputs.empty());
}

TEST(WordsAShapeWithoutTheBatchDimensionAsTriton) {
  DecodedRequest r = Valid();
  r.inputs[0] = Image({1, 28, 28});
  CHECK_EQ(Fails(r), std::string(
      "unexpected shape for input 'image' for model 'mnist'. Expected [-1,1,28,28], got [1,28,28]. NOTE: Setting a "
      "non-zero max_batch_size in the model config requires a batch dimension to be prepended to each input shape. "
      "If you want to specify the full shape including the batch dim in your input dims config, try setting "
      "max_batch_size to zero. See the model configuration docs for more info on max_batch_size."));
  r.inputs[0] = Image({1, 1, 28, 27});
  CHECK_EQ(Fails(r), std::string("unexpected shape for input 'image' for model 'mnist'. Expected [-1,1,28,28], got [1,1,28,27]."));
  r.inputs[0] = In("image", "FP32", {-1, 1, 28, 28}, 0);
  CHECK_EQ(Fails(r), std::string("unexpected shape for input 'image' for model 'mnist'. Expected [-1,1,28,28], got [-1,1,28,28]."));
}

TEST(LimitsTheBatchSize) {
  CHECK_EQ(Fails(Valid(17)), std::string("inference request batch-size must be <= 16 for 'mnist'"));
  RequestContract geared = Mnist();
  geared.max_request_batch = 8;
  CHECK_EQ(Fails(Valid(9), geared), std::string("inference request batch-size must be <= 8 for 'mnist'"));
  CHECK_EQ(Fails(Valid(0)), std::string("inference request batch-size must be >= 1 for 'mnist'"));
  DecodedRequest r = Valid(2);
  r.inputs[1] = Scale(3);
  CHECK_EQ(Fails(r), std::string("input 'scale' batch size does not match other inputs for 'mnist'"));
}

TEST(ChecksDatatypeAndByteSize) {
  DecodedRequest r = Valid();
  r.inputs[0].datatype = "FP64";
  CHECK_EQ(Fails(r), std::string("inference input 'image' data-type is 'FP64', but model 'mnist' expects 'FP32'"));
  r.inputs[0].datatype = "NOT A TYPE";
  CHECK_EQ(Fails(r), std::string("inference input 'image' data-type is 'NOT A TYPE', but model 'mnist' expects 'FP32'"));
  r = Valid();
  r.inputs[0].bytes.size = 100;
  CHECK_EQ(Fails(r), std::string("input byte size mismatch for input 'image' for model 'mnist'. Expected 3136, got 100"));
}

TEST(BoundsTheDeclaredElementCount) {
  RequestContract c = Mnist();
  c.batched = false;
  c.inputs = {{"image", DataType::kFloat32, {-1, -1, -1}}};
  DecodedRequest r;
  r.inputs = {In("image", "FP32", {1 << 20, 1 << 20, 1 << 20}, 16)};
  CHECK_EQ(Fails(r, c), std::string("input 'image' for model 'mnist' declares shape [1048576,1048576,1048576], more than 2147483648 elements"));
}

TEST(NamesUnknownDuplicatedAndMissingInputs) {
  DecodedRequest r = Valid();
  r.inputs[0].name = "img";
  CHECK_EQ(Fails(r), std::string("unexpected inference input 'img' for model 'mnist'; its inputs are 'image', 'scale'"));
  r = Valid();
  r.inputs[1] = r.inputs[0];
  CHECK_EQ(Fails(r), std::string("input 'image' appears more than once in the request for model 'mnist'"));
  r = Valid();
  r.inputs.pop_back();
  CHECK_EQ(Fails(r), std::string("expected 2 inputs but got 1 inputs for model 'mnist'. Got input(s) ['image'], but missing "
                                 "required input(s) ['scale']. Please provide all required input(s)."));
  r.inputs.clear();
  CHECK_EQ(Fails(r), std::string("expected 2 inputs but got 0 inputs for model 'mnist'. Got input(s) [], but missing "
                                 "required input(s) ['image','scale']. Please provide all required input(s)."));
}

TEST(BoundsTheClientTextItQuotes) {
  DecodedRequest r = Valid();
  r.inputs[0].name = std::string(300, 'x');
  const std::string message = Fails(r);
  CHECK(message.find(std::string(120, 'x') + "… (300 bytes)'") != std::string::npos);
  CHECK(message.size() < 250);
}

TEST(GivesOptionalInputsAnEmptyTensor) {
  RequestContract c = Mnist();
  c.inputs[1].optional = true;
  DecodedRequest r;
  r.inputs = {Image({3, 1, 28, 28})};
  NormalizedRequest out;
  CHECK(Normalize(c, r, &out).ok());
  CHECK_EQ(out.request->inputs[1].shape, (std::vector<int64_t>{3, 0}));
  CHECK_EQ(out.request->inputs[1].byte_size, size_t(0));
}

TEST(SelectsRequestedOutputsInTheClientsOrder) {
  DecodedRequest r = Valid();
  r.has_outputs = true;
  r.outputs = {Out("probs"), Out("logits")};
  r.outputs[0].binary_data = ParameterValue::Bool(true);
  r.outputs[1].class_count = ParameterValue::Int64(3);
  r.binary_data_output = ParameterValue::Bool(false);
  NormalizedRequest out;
  CHECK(Normalize(Mnist(), r, &out).ok());
  CHECK_EQ(out.outputs, (std::vector<size_t>{1, 0}));
  CHECK_EQ(out.request->output_mask, uint64_t(3));
  CHECK(out.binary[0] && !out.binary[1]);
  CHECK_EQ(out.class_count, (std::vector<int64_t>{0, 3}));

  r.outputs = {Out("nope")};
  CHECK_EQ(Fails(r), std::string("unexpected inference output 'nope' for model 'mnist'; its outputs are 'logits', 'probs'"));
  r.outputs = {Out("probs"), Out("probs")};
  CHECK_EQ(Fails(r), std::string("output 'probs' is requested more than once in the request for model 'mnist'"));
  r.outputs = {Out("probs")};
  r.outputs[0].binary_data = ParameterValue::Int64(1);
  CHECK_EQ(Fails(r), std::string("parameter 'binary_data' of output 'probs' must be a boolean, got 1"));
  r.outputs[0] = Out("probs");
  r.outputs[0].class_count = ParameterValue::Int64(0);
  CHECK_EQ(Fails(r), std::string("parameter 'classification' of output 'probs' must be a positive integer, got 0"));
  r.outputs[0] = Out("probs");
  r.binary_data_output = ParameterValue::String("yes");
  CHECK_EQ(Fails(r), std::string("request parameter 'binary_data_output' must be a boolean, got \"yes\""));
}

TEST(ChecksPriorityAndTimeout) {
  DecodedRequest r = Valid();
  r.priority = ParameterValue::Int64(-1);
  CHECK_EQ(Fails(r), std::string("request parameter 'priority' must be a non-negative integer, got -1"));
  r.priority = ParameterValue::Double(1.5);
  CHECK_EQ(Fails(r), std::string("request parameter 'priority' must be a non-negative integer, got 1.5"));
  r.priority = ParameterValue::Uint64(uint64_t(1) << 32);
  CHECK_EQ(Fails(r), std::string("request parameter 'priority' must be at most 4294967295, got 4294967296"));
  r.priority = ParameterValue::Uint64(2);
  r.timeout_us = ParameterValue::Bool(true);
  CHECK_EQ(Fails(r), std::string("request parameter 'timeout' must be a non-negative integer, got true"));
  r.timeout_us = ParameterValue::Int64(5000);
  NormalizedRequest out;
  CHECK(Normalize(Mnist(), r, &out).ok());
  CHECK_EQ(out.priority, uint32_t(2));
  CHECK_EQ(out.timeout_us, uint64_t(5000));
}

TEST(ReadsTheSequenceParametersForEveryModel) {
  // Mnist has no sequence_batching: a bad value is refused all the same (as Triton's front ends
  // do), a good one is read and left for a sequence batcher.
  DecodedRequest r = Valid();
  NormalizedRequest out;
  CHECK(Normalize(Mnist(), r, &out).ok());
  CHECK(out.sequence.id.kind == SequenceId::Kind::kNone);
  CHECK_EQ(int(out.sequence.flags), 0);
  r.sequence_id = ParameterValue::Uint64(uint64_t(1) << 60);
  r.sequence_start = ParameterValue::Bool(true);
  r.sequence_end = ParameterValue::Bool(false);
  CHECK(Normalize(Mnist(), r, &out).ok());
  CHECK(out.sequence.id.kind == SequenceId::Kind::kNumber);
  CHECK_EQ(out.sequence.id.number, uint64_t(1) << 60);
  CHECK_EQ(int(out.sequence.flags), int(kSequenceStart));
  r.sequence_id = ParameterValue::Int64(7);  // a JS number, a gRPC int64_param
  r.sequence_end = ParameterValue::Bool(true);
  CHECK(Normalize(Mnist(), r, &out).ok());
  CHECK_EQ(out.sequence.id.number, uint64_t(7));
  CHECK_EQ(int(out.sequence.flags), int(kSequenceStart | kSequenceEnd));
  r.sequence_id = ParameterValue::String(std::string(kMaxSequenceIdBytes, 'x'));
  CHECK(Normalize(Mnist(), r, &out).ok());
  CHECK(out.sequence.id.kind == SequenceId::Kind::kText);
  CHECK_EQ(out.sequence.id.text.size(), kMaxSequenceIdBytes);

  const std::string not_an_id = "request parameter 'sequence_id' must be an unsigned 64-bit integer or a string, got ";
  r.sequence_id = ParameterValue::String(std::string(kMaxSequenceIdBytes + 1, 'x'));
  CHECK_EQ(Fails(r), std::string("request parameter 'sequence_id' is a string of 1025 bytes, over the limit of 1024; use a shorter id"));
  r.sequence_id = ParameterValue::Int64(-3);
  CHECK_EQ(Fails(r), not_an_id + "-3");
  r.sequence_id = ParameterValue::Double(1.5);
  CHECK_EQ(Fails(r), not_an_id + "1.5");
  r.sequence_id = ParameterValue::Double(9007199254740992.0);
  CHECK_EQ(Fails(r), not_an_id + "9007199254740992 (ids above 2^53 cannot be taken exactly: use smaller ids or string ids)");
  r.sequence_id = ParameterValue::Bool(true);
  CHECK_EQ(Fails(r), not_an_id + "true");
  r.sequence_id = ParameterValue::Other("an array");
  CHECK_EQ(Fails(r), not_an_id + "an array");
  r.sequence_id = ParameterValue::Uint64(4);
  r.sequence_start = ParameterValue::Int64(1);
  CHECK_EQ(Fails(r), std::string("request parameter 'sequence_start' must be a boolean, got 1"));
  r.sequence_start = ParameterValue();
  r.sequence_end = ParameterValue::String("yes");
  CHECK_EQ(Fails(r), std::string("request parameter 'sequence_end' must be a boolean, got \"yes\""));
  // Before the tensors, as Triton's front ends refuse a parameter while decoding.
  r.inputs.clear();
  CHECK_EQ(Fails(r), std::string("request parameter 'sequence_end' must be a boolean, got \"yes\""));
}

TEST(ChecksTheBytesLayout) {
  RequestContract c;
  c.model_name = "t";
  c.inputs = {{"s", DataType::kString, {2}}};
  const uint8_t two[] = {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'c'};
  std::memcpy(g_bytes, two, sizeof two);
  DecodedRequest r;
  r.inputs = {In("s", "BYTES", {2}, sizeof two)};
  NormalizedRequest out;
  CHECK(Normalize(c, r, &out).ok());
  CHECK(out.request->inputs[0].data == g_bytes);
  r.inputs[0].bytes.size = 5;
  CHECK_EQ(Fails(r, c), std::string("unexpected number of string elements for input 's' for model 't'. Expected 2, got 1"));
  r.inputs[0].bytes.size = 7;
  CHECK_EQ(Fails(r, c), std::string("incomplete string length indicator for inference input 's' for model 't', expecting 4 bytes "
                                    "but only 2 bytes available; each BYTES element is a 4-byte little-endian length, then its bytes"));
  r.inputs[0].bytes.size = 10;
  CHECK_EQ(Fails(r, c), std::string("incomplete string for inference input 's' for model 't', expecting 2 bytes but only 1 bytes available"));
}

TEST(FailureTableMapsEachReason) {
  CHECK_EQ(TraitsOf(FailureReason::kInvalidArgument).http_status, 400);
  CHECK_EQ(TraitsOf(FailureReason::kInvalidArgument).grpc_code, 3);
  CHECK_EQ(TraitsOf(FailureReason::kQueueFull).http_status, 503);
  CHECK_EQ(TraitsOf(FailureReason::kQueueFull).grpc_code, 8);
  CHECK_EQ(std::string(TraitsOf(FailureReason::kQueueFull).metric_reason), std::string("REJECTED"));
  CHECK_EQ(std::string(TraitsOf(FailureReason::kBackend).metric_reason), std::string("BACKEND"));
  CHECK_EQ(std::string(TraitsOf(FailureReason::kCancelled).metric_reason), std::string("CANCELED"));
  CHECK_EQ(std::string(TraitsOf(static_cast<FailureReason>(200)).name), std::string("INTERNAL"));
}
