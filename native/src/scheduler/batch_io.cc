#include "scheduler/batch_io.h"

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

}  // namespace

std::vector<TensorView> GatherInputs(std::vector<std::unique_ptr<ScheduledRequest>>& requests, int64_t padded_rows,
                                     bool batched, GatherArena& arena) {
  ScheduledRequest& first = *requests.front();
  int64_t rows = 0;
  for (auto& r : requests) {
    r->row_offset = static_cast<size_t>(rows);
    rows += r->info.rows;
  }
  if (!batched || (requests.size() == 1 && padded_rows == rows)) {
    std::vector<TensorView> views = first.inputs;
    for (size_t i = 0; i < views.size(); ++i) {
      TensorView& view = views[i];
      const size_t element_size = ElementSize(view.dtype);
      if (view.byte_size == 0 || element_size <= 1 || reinterpret_cast<uintptr_t>(view.data) % element_size == 0) continue;
      void* aligned = arena.Buffer(i, view.byte_size);
      std::memcpy(aligned, view.data, view.byte_size);
      view.data = aligned;
    }
    return views;
  }

  std::vector<TensorView> views = first.inputs;
  for (size_t i = 0; i < views.size(); ++i) {
    TensorView& view = views[i];
    view.shape[0] = padded_rows;
    const int64_t per_row = RowElements(view.shape);
    const bool strings = view.dtype == DataType::kString;
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
  return views;
}

void SliceOutputs(const std::vector<Tensor>& outputs, std::vector<std::unique_ptr<ScheduledRequest>>& requests,
                  int64_t padded_rows, bool batched) {
  for (auto& r : requests) r->outputs.assign(outputs.size(), OutputSlice{});
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& t = outputs[o];
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
