// GatherInputs: rows of several requests copied into one tensor, gear padding, and a lone
// request passed through, with a copy only for an input its element size does not align.
// Ragged batching (batch_layout.h): ragged inputs concatenated as one dimension, every batch
// input kind computed from the batch, batch outputs split by the requests' source shapes.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "check.h"
#include "scheduler/batch_io.h"

namespace {

using gebe::DataType;
using gebe::GatherArena;
using gebe::ScheduledRequest;
using gebe::TensorView;
using gebe::BatchInputKind;
using gebe::BatchLayout;

const BatchLayout kPlain;

alignas(64) uint8_t g_bytes[1024];

// A request of `rows` rows of 3 FP32 values whose bytes start `offset` bytes into g_bytes.
std::unique_ptr<ScheduledRequest> Request(int64_t rows, size_t offset) {
  auto r = std::make_unique<ScheduledRequest>();
  r->info.rows = rows;
  TensorView view;
  view.name = "x";
  view.dtype = DataType::kFloat32;
  view.shape = {rows, 3};
  view.data = g_bytes + offset;
  view.byte_size = size_t(rows) * 3 * sizeof(float);
  r->inputs.push_back(view);
  return r;
}

void FillPattern() {
  for (size_t i = 0; i < sizeof(g_bytes); ++i) g_bytes[i] = uint8_t(i * 7 + 1);
}

}  // namespace

TEST(GatherPassesAnAlignedLoneRequestThroughWithoutACopy) {
  FillPattern();
  std::vector<std::unique_ptr<ScheduledRequest>> requests;
  requests.push_back(Request(2, 64));
  GatherArena arena;
  std::vector<TensorView> views = gebe::GatherInputs(requests, 2, true, kPlain, arena);
  CHECK(views[0].data == g_bytes + 64);
}

TEST(GatherCopiesAMisalignedLoneRequestIntoAlignedMemory) {
  FillPattern();
  for (bool batched : {true, false}) {
    std::vector<std::unique_ptr<ScheduledRequest>> requests;
    requests.push_back(Request(2, 65));
    GatherArena arena;
    std::vector<TensorView> views = gebe::GatherInputs(requests, 2, batched, kPlain, arena);
    CHECK(views[0].data != g_bytes + 65);
    CHECK_EQ(reinterpret_cast<uintptr_t>(views[0].data) % alignof(float), uintptr_t(0));
    CHECK_EQ(views[0].byte_size, size_t(24));
    CHECK_EQ(std::memcmp(views[0].data, g_bytes + 65, 24), 0);
    CHECK(requests[0]->inputs[0].data == g_bytes + 65);  // the request's own view is left as it was
  }
}

TEST(GatherConcatenatesMisalignedRequestsAndZeroesPaddingRows) {
  FillPattern();
  std::vector<std::unique_ptr<ScheduledRequest>> requests;
  requests.push_back(Request(1, 1));
  requests.push_back(Request(2, 130));
  GatherArena arena;
  std::vector<TensorView> views = gebe::GatherInputs(requests, 4, true, kPlain, arena);
  CHECK_EQ(views[0].shape, (std::vector<int64_t>{4, 3}));
  CHECK_EQ(views[0].byte_size, size_t(48));
  const auto* out = static_cast<const uint8_t*>(views[0].data);
  CHECK_EQ(std::memcmp(out, g_bytes + 1, 12), 0);
  CHECK_EQ(std::memcmp(out + 12, g_bytes + 130, 24), 0);
  for (size_t i = 36; i < 48; ++i) CHECK_EQ(out[i], uint8_t(0));
  CHECK_EQ(requests[1]->row_offset, size_t(1));
}

namespace {

// A request with FP32 input "x" of `shape` (values start, start + 1, ...) and an empty slot 1
// for a batch input, as ModelCore places them.
std::unique_ptr<ScheduledRequest> RaggedRequest(std::vector<int64_t> shape, float start, std::vector<float>& storage) {
  auto r = std::make_unique<ScheduledRequest>();
  r->info.rows = shape[0];
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  storage.clear();
  for (int64_t i = 0; i < count; ++i) storage.push_back(start + float(i));
  TensorView x;
  x.name = "x";
  x.dtype = DataType::kFloat32;
  x.shape = shape;
  x.data = storage.data();
  x.byte_size = storage.size() * sizeof(float);
  r->inputs.push_back(x);
  TensorView slot;
  slot.name = "b";
  slot.dtype = DataType::kInt32;
  r->inputs.push_back(slot);
  return r;
}

BatchLayout RaggedLayout(BatchInputKind kind, DataType dtype = DataType::kInt32) {
  BatchLayout layout;
  layout.ragged = {true, false};
  gebe::BatchInputSpec spec;
  spec.kind = kind;
  spec.dtype = dtype;
  spec.source = 0;
  spec.targets = {1};
  layout.inputs.push_back(spec);
  return layout;
}

template <class T>
std::vector<T> Values(const TensorView& view) {
  const auto* p = static_cast<const T*>(view.data);
  return std::vector<T>(p, p + view.byte_size / sizeof(T));
}

}  // namespace

TEST(GatherConcatenatesRaggedInputsAsOneDimensionAndComputesEachBatchInputKind) {
  std::vector<float> a, b, c;
  struct Want {
    BatchInputKind kind;
    std::vector<int64_t> shape;
    std::vector<int32_t> values;
  };
  // Requests [1,2], [1,3] and [2,1]: element counts 2, 3, 2; items 1, 1, 2 of shapes [2], [3], [1].
  const std::vector<Want> wants = {
      {BatchInputKind::kElementCount, {3}, {2, 3, 2}},
      {BatchInputKind::kAccumulatedElementCount, {3}, {2, 5, 7}},
      {BatchInputKind::kAccumulatedElementCountWithZero, {4}, {0, 2, 5, 7}},
      {BatchInputKind::kMaxElementCountAsShape, {3}, {0, 0, 0}},
      {BatchInputKind::kItemShape, {4, 1}, {2, 3, 1, 1}},
      {BatchInputKind::kItemShapeFlatten, {4}, {2, 3, 1, 1}},
  };
  for (const Want& want : wants) {
    std::vector<std::unique_ptr<ScheduledRequest>> requests;
    requests.push_back(RaggedRequest({1, 2}, 10, a));
    requests.push_back(RaggedRequest({1, 3}, 20, b));
    requests.push_back(RaggedRequest({2, 1}, 30, c));
    GatherArena arena;
    const BatchLayout layout = RaggedLayout(want.kind);
    std::vector<TensorView> views = gebe::GatherInputs(requests, 4, true, layout, arena);
    CHECK_EQ(views[0].shape, (std::vector<int64_t>{7}));
    CHECK_EQ(Values<float>(views[0]), (std::vector<float>{10, 11, 20, 21, 22, 30, 31}));
    CHECK_EQ(views[1].shape, want.shape);
    CHECK_EQ(Values<int32_t>(views[1]), want.values);
    CHECK(views[1].dtype == DataType::kInt32);
  }
}

TEST(GatherWritesFloatBatchInputsAndFlattensALoneRaggedRequestWithoutACopy) {
  std::vector<float> a;
  std::vector<std::unique_ptr<ScheduledRequest>> requests;
  requests.push_back(RaggedRequest({1, 4}, 1, a));
  GatherArena arena;
  const BatchLayout layout = RaggedLayout(BatchInputKind::kAccumulatedElementCountWithZero, DataType::kFloat32);
  std::vector<TensorView> views = gebe::GatherInputs(requests, 1, true, layout, arena);
  CHECK(views[0].data == a.data());
  CHECK_EQ(views[0].shape, (std::vector<int64_t>{4}));
  CHECK_EQ(Values<float>(views[1]), (std::vector<float>{0, 4}));
  CHECK(views[1].dtype == DataType::kFloat32);
  CHECK_EQ(requests[0]->inputs[0].shape, (std::vector<int64_t>{1, 4}));  // the request keeps its own shape
}

TEST(SliceScattersABatchOutputByEachRequestsSourceShape) {
  std::vector<float> a, b;
  std::vector<std::unique_ptr<ScheduledRequest>> requests;
  requests.push_back(RaggedRequest({1, 2}, 0, a));
  requests.push_back(RaggedRequest({1, 3}, 0, b));
  BatchLayout layout;
  layout.ragged = {true, false};
  gebe::BatchOutputSpec scatter;
  scatter.output = 0;
  scatter.source = 0;
  scatter.shape = {-1, -1};
  layout.outputs.push_back(scatter);
  std::vector<gebe::Tensor> outputs(2);
  outputs[0].name = "y";
  outputs[0].dtype = DataType::kFloat32;
  outputs[0].shape = {5};
  outputs[0].buffer = gebe::AlignedBuffer(5 * sizeof(float));
  outputs[1].name = "n";
  outputs[1].dtype = DataType::kInt32;
  outputs[1].shape = {2, 1};
  outputs[1].buffer = gebe::AlignedBuffer(2 * sizeof(int32_t));
  gebe::SliceOutputs(outputs, requests, 2, true, layout);
  CHECK_EQ(requests[0]->outputs[0].offset, size_t(0));
  CHECK_EQ(requests[0]->outputs[0].byte_size, size_t(8));
  CHECK_EQ(requests[0]->outputs[0].shape, (std::vector<int64_t>{1, 2}));
  CHECK_EQ(requests[1]->outputs[0].offset, size_t(8));
  CHECK_EQ(requests[1]->outputs[0].byte_size, size_t(12));
  CHECK_EQ(requests[1]->outputs[0].shape, (std::vector<int64_t>{1, 3}));
  // An ordinary output of the same batch is still split by rows.
  CHECK_EQ(requests[1]->outputs[1].offset, size_t(4));
  CHECK_EQ(requests[1]->outputs[1].shape, (std::vector<int64_t>{1, 1}));

  outputs[0].buffer = gebe::AlignedBuffer(4 * sizeof(float));  // one element short
  bool threw = false;
  try {
    gebe::SliceOutputs(outputs, requests, 2, true, layout);
  } catch (const gebe::EngineError& e) {
    threw = std::string(e.what()).find("batch output 'y'") != std::string::npos;
  }
  CHECK(threw);
}
