// Runs a loaded session once on zero-filled inputs of its declared shapes (dynamic dims as 1),
// skipping models whose inputs are strings or would pass kMaxInputBytes. Shared by the model
// fuzzer (native/test/fuzz) and the engine driver's replay of its findings (fixtures/models/fuzz).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/engine.h"

namespace gebe_test {

inline void RunOnZeros(gebe::Session& session, size_t max_input_bytes = size_t(1) << 20) {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<gebe::TensorView> views;
  storage.reserve(session.inputs().size());
  for (const gebe::TensorDesc& desc : session.inputs()) {
    std::vector<int64_t> shape = desc.dims;
    for (int64_t& d : shape) if (d < 0) d = 1;
    const size_t element = gebe::ElementSize(desc.dtype);
    if (element == 0) return;
    size_t bytes = element;
    for (int64_t d : shape) {
      if (d != 0 && bytes > max_input_bytes / size_t(d)) return;
      bytes *= size_t(d);
    }
    storage.emplace_back(bytes, 0);
    views.push_back({desc.name, desc.dtype, shape, storage.back().data(), bytes});
  }
  std::vector<gebe::Tensor> out;
  session.run(views, out);
}

}  // namespace gebe_test
