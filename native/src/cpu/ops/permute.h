// Moving a tensor's dims into another order: the Transpose operator's body, also used by kernels
// that lay an operand out for a GEMM (Einsum).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/tensor.h"
#include "cpu/thread_pool.h"

namespace gebe::cpu {

// Writes the tensor at `data` (shape `shape`, elements of `element_size` bytes: 1, 2, 4 or 8)
// contiguously to `to` with its dims in the order `perm` (output dim i is input dim perm[i]).
// Large 2-D transposes are split across `pool` (null: the calling thread).
void Permute(const void* data, size_t element_size, const Shape& shape, const std::vector<int64_t>& perm, void* to,
             ThreadPool* pool);

}  // namespace gebe::cpu
