// GatherInputs: rows of several requests copied into one tensor, gear padding, and a lone
// request passed through, with a copy only for an input its element size does not align.
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
  std::vector<TensorView> views = gebe::GatherInputs(requests, 2, true, arena);
  CHECK(views[0].data == g_bytes + 64);
}

TEST(GatherCopiesAMisalignedLoneRequestIntoAlignedMemory) {
  FillPattern();
  for (bool batched : {true, false}) {
    std::vector<std::unique_ptr<ScheduledRequest>> requests;
    requests.push_back(Request(2, 65));
    GatherArena arena;
    std::vector<TensorView> views = gebe::GatherInputs(requests, 2, batched, arena);
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
  std::vector<TensorView> views = gebe::GatherInputs(requests, 4, true, arena);
  CHECK_EQ(views[0].shape, (std::vector<int64_t>{4, 3}));
  CHECK_EQ(views[0].byte_size, size_t(48));
  const auto* out = static_cast<const uint8_t*>(views[0].data);
  CHECK_EQ(std::memcmp(out, g_bytes + 1, 12), 0);
  CHECK_EQ(std::memcmp(out + 12, g_bytes + 130, 24), 0);
  for (size_t i = 36; i < 48; ++i) CHECK_EQ(out[i], uint8_t(0));
  CHECK_EQ(requests[1]->row_offset, size_t(1));
}
