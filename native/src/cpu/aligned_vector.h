// std::vector storage that starts on a cache line. Packed GEMM panels are streamed with 64-byte
// vector loads; from malloc (16-byte alignment, and large blocks come from mmap 16 bytes past a page)
// every one of those loads straddles two cache lines, which Intel cores pay for on each load.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#include "engine/engine.h"

namespace gebe::cpu {

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr size_t kAlignment = AlignedBuffer::kAlignment;  // the engine's one alignment
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) {
    size_t bytes = (n * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, bytes == 0 ? kAlignment : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

template <typename T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace gebe::cpu
