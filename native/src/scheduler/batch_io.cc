#include "scheduler/batch_io.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

namespace gebe {

void* GatherArena::Buffer(size_t index, size_t bytes) {
  if (buffers_.size() <= index) buffers_.resize(index + 1);
  if (buffers_[index].size() < bytes) buffers_[index] = AlignedBuffer(bytes);
  return buffers_[index].data();
}

namespace {

// Bytes of `rows` rows of a BYTES tensor starting at `data`: each element is a 4-byte
// little-endian length and its bytes; a row holds `per_row` elements.
size_t StringRowsBytes(const uint8_t* data, size_t available, int64_t rows, int64_t per_row) {
  size_t offset = 0;
  for (int64_t i = 0; i < rows * per_row; ++i) {
    if (offset + 4 > available) throw EngineError("BYTES tensor is shorter than its shape says");
    uint32_t len;
    std::memcpy(&len, data + offset, 4);
    offset += 4 + len;
    if (offset > available) throw EngineError("BYTES tensor is shorter than its shape says");
  }
  return offset;
}

int64_t RowElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (size_t i = 1; i < shape.size(); ++i) n *= shape[i];
  return n;
}


// The values of one batch input for this batch (batch_layout.h), and its shape.
std::vector<int64_t> BatchInputValues(const BatchInputSpec& spec, const std::vector<std::unique_ptr<ScheduledRequest>>& requests,
                                      std::vector<int64_t>* shape) {
  std::vector<int64_t> values;
  const auto count = static_cast<int64_t>(requests.size());
  switch (spec.kind) {
    case BatchInputKind::kElementCount:
      for (auto& r : requests) values.push_back(ElementCount(r->inputs[spec.source].shape));
      *shape = {count};
      break;
    case BatchInputKind::kAccumulatedElementCount:
    case BatchInputKind::kAccumulatedElementCountWithZero: {
      const bool zero = spec.kind == BatchInputKind::kAccumulatedElementCountWithZero;
      if (zero) values.push_back(0);
      int64_t sum = 0;
      for (auto& r : requests) values.push_back(sum += ElementCount(r->inputs[spec.source].shape));
      *shape = {zero ? count + 1 : count};
      break;
    }
    case BatchInputKind::kMaxElementCountAsShape: {
      int64_t most = 0;
      for (auto& r : requests) most = std::max(most, ElementCount(r->inputs[spec.source].shape));
      values.assign(static_cast<size_t>(most), 0);  // Triton leaves these uninitialized; zeros here
      *shape = {most};
      break;
    }
    case BatchInputKind::kItemShape:
    case BatchInputKind::kItemShapeFlatten: {
      // As Triton: the first dimension is each request's batch; every item of it has the rest.
      int64_t items = 0;
      int64_t rank = 0;
      for (auto& r : requests) {
        const std::vector<int64_t>& dims = r->inputs[spec.source].shape;
        if (dims.empty()) throw EngineError("batch input kind BATCH_ITEM_SHAPE needs a source input with a batch dimension");
        rank = static_cast<int64_t>(dims.size()) - 1;
        for (int64_t item = 0; item < dims[0]; ++item) values.insert(values.end(), dims.begin() + 1, dims.end());
        items += dims[0];
      }
      *shape = spec.kind == BatchInputKind::kItemShape ? std::vector<int64_t>{items, rank} : std::vector<int64_t>{items * rank};
      break;
    }
  }
  return values;
}

// Computes every batch input into the arena (slots after the inputs') and points its targets at it.
void FillBatchInputs(const std::vector<std::unique_ptr<ScheduledRequest>>& requests, const BatchLayout& layout,
                     std::vector<TensorView>& views, GatherArena& arena) {
  for (size_t k = 0; k < layout.inputs.size(); ++k) {
    const BatchInputSpec& spec = layout.inputs[k];
    std::vector<int64_t> shape;
    const std::vector<int64_t> values = BatchInputValues(spec, requests, &shape);
    const size_t bytes = values.size() * 4;
    void* out = arena.Buffer(views.size() + k, std::max<size_t>(bytes, 1));
    for (size_t i = 0; i < values.size(); ++i) {
      if (spec.dtype == DataType::kFloat32) {
        static_cast<float*>(out)[i] = static_cast<float>(values[i]);
      } else if (values[i] > INT32_MAX) {
        // Only a batch of huge requests sums past it; writing it wrapped would mislead the model.
        throw EngineError("batch input '" + views[spec.targets.front()].name + "' would hold " + std::to_string(values[i]) +
                          ", more than TYPE_INT32 holds; send fewer elements a request or use TYPE_FP32");
      } else {
        static_cast<int32_t*>(out)[i] = static_cast<int32_t>(values[i]);
      }
    }
    for (size_t target : spec.targets) {
      TensorView& view = views[target];
      view.dtype = spec.dtype;
      view.shape = shape;
      view.data = out;
      view.byte_size = bytes;
    }
  }
}

// A ragged input's concatenated elements, as one dimension.
int64_t RaggedElements(const std::vector<std::unique_ptr<ScheduledRequest>>& requests, size_t input) {
  int64_t total = 0;
  for (auto& r : requests) total += ElementCount(r->inputs[input].shape);
  return total;
}

}  // namespace

std::vector<TensorView> GatherInputs(std::vector<std::unique_ptr<ScheduledRequest>>& requests, int64_t padded_rows,
                                     bool batched, const BatchLayout& layout, GatherArena& arena) {
  ScheduledRequest& first = *requests.front();
  int64_t rows = 0;
  for (auto& r : requests) {
    r->row_offset = static_cast<size_t>(rows);
    rows += r->info.rows;
  }
  std::vector<TensorView> views = first.inputs;
  const bool alone = !batched || (requests.size() == 1 && padded_rows == rows);
  for (size_t i = 0; i < views.size(); ++i) {
    if (layout.IsBatchInputTarget(i)) continue;  // filled below
    TensorView& view = views[i];
    const bool ragged = batched && layout.IsRagged(i);
    if (alone) {
      if (ragged) view.shape = {ElementCount(view.shape)};
      const size_t element_size = ElementSize(view.dtype);
      if (view.byte_size == 0 || element_size <= 1 || reinterpret_cast<uintptr_t>(view.data) % element_size == 0) continue;
      void* aligned = arena.Buffer(i, view.byte_size);
      std::memcpy(aligned, view.data, view.byte_size);
      view.data = aligned;
      continue;
    }
    // A ragged input has no rows to pad (ModelCore refuses ragged inputs on models with gears).
    if (ragged && padded_rows != rows) throw EngineError("ragged input '" + view.name + "' cannot be padded to a gear");
    const bool strings = view.dtype == DataType::kString;
    int64_t per_row = 0;
    if (ragged) {
      view.shape = {RaggedElements(requests, i)};
    } else {
      view.shape[0] = padded_rows;
      per_row = RowElements(view.shape);
    }
    size_t total = 0;
    for (auto& r : requests) total += r->inputs[i].byte_size;
    const size_t pad_rows = static_cast<size_t>(padded_rows - rows);
    const size_t pad_bytes = strings ? pad_rows * static_cast<size_t>(per_row) * 4
                                     : pad_rows * static_cast<size_t>(per_row) * ElementSize(view.dtype);
    auto* out = static_cast<uint8_t*>(arena.Buffer(i, total + pad_bytes));
    size_t offset = 0;
    for (auto& r : requests) {
      std::memcpy(out + offset, r->inputs[i].data, r->inputs[i].byte_size);
      offset += r->inputs[i].byte_size;
    }
    // Padding rows are zeros (for BYTES: empty strings); their outputs are dropped.
    std::memset(out + offset, 0, pad_bytes);
    view.data = out;
    view.byte_size = total + pad_bytes;
  }
  if (!layout.inputs.empty()) FillBatchInputs(requests, layout, views, arena);
  return views;
}

namespace {

// A batch output split by the shape each request gave its source input (Triton's
// BATCH_SCATTER_WITH_INPUT_SHAPE): the requests' parts lie one after another.
void ScatterOutput(const Tensor& t, size_t index, const BatchOutputSpec& spec, std::vector<std::unique_ptr<ScheduledRequest>>& requests) {
  const auto* base = static_cast<const uint8_t*>(t.buffer.data());
  size_t offset = 0;
  for (auto& r : requests) {
    const std::vector<int64_t>& source = r->inputs[spec.source].shape;
    std::vector<int64_t> shape = spec.shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] != -1) continue;
      if (d >= source.size()) {
        throw EngineError("batch output '" + t.name + "' takes dimension " + std::to_string(d) + " from input '" +
                          r->inputs[spec.source].name + "', which has only " + std::to_string(source.size()));
      }
      shape[d] = source[d];
    }
    const int64_t count = ElementCount(shape);
    size_t bytes;
    if (t.dtype == DataType::kString) {
      bytes = StringRowsBytes(base + offset, t.buffer.size() - offset, 1, count);
    } else {
      bytes = static_cast<size_t>(count) * ElementSize(t.dtype);
      if (offset + bytes > t.buffer.size()) {
        throw EngineError("the engine returned batch output '" + t.name + "' with " + std::to_string(t.buffer.size()) +
                          " bytes, fewer than the shapes of input '" + r->inputs[spec.source].name + "' in the batch need");
      }
    }
    r->outputs[index] = OutputSlice{offset, bytes, std::move(shape)};
    offset += bytes;
  }
}

}  // namespace

void SliceOutputs(const std::vector<Tensor>& outputs, std::vector<std::unique_ptr<ScheduledRequest>>& requests,
                  int64_t padded_rows, bool batched, const BatchLayout& layout) {
  for (auto& r : requests) r->outputs.assign(outputs.size(), OutputSlice{});
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& t = outputs[o];
    if (const BatchOutputSpec* scatter = layout.ScatterOf(o)) {
      ScatterOutput(t, o, *scatter, requests);
      continue;
    }
    if (!batched) {
      requests.front()->outputs[o] = OutputSlice{0, t.buffer.size(), t.shape};
      continue;
    }
    if (t.shape.empty() || t.shape[0] != padded_rows) {
      throw EngineError("the engine returned output '" + t.name + "' with " +
                        (t.shape.empty() ? std::string("no batch dimension") : std::to_string(t.shape[0]) + " rows") +
                        " for a batch of " + std::to_string(padded_rows) + " rows");
    }
    const int64_t per_row = RowElements(t.shape);
    const auto* base = static_cast<const uint8_t*>(t.buffer.data());
    size_t offset = 0;
    for (auto& r : requests) {
      OutputSlice slice;
      slice.offset = offset;
      if (t.dtype == DataType::kString) {
        slice.byte_size = StringRowsBytes(base + offset, t.buffer.size() - offset, r->info.rows, per_row);
      } else {
        slice.byte_size = static_cast<size_t>(r->info.rows * per_row) * ElementSize(t.dtype);
      }
      slice.shape = t.shape;
      slice.shape[0] = r->info.rows;
      offset += slice.byte_size;
      r->outputs[o] = std::move(slice);
    }
  }
}

}  // namespace gebe
