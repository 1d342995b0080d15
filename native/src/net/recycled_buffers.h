// Request bodies (HTTP) and request messages (gRPC) the front ends hand out again once their
// request is done, instead of a fresh allocation each time.
//
// Why: such a buffer is filled on the loop thread and dropped on the model instance thread that
// ran its request, and it is a few KB, past glibc's thread caches. A fresh one comes from the
// arena's slow path, which first merges every small chunk the instance threads freed back into
// that arena; at concurrency 16 that was about a fifth of the gRPC loop thread's CPU. Traffic
// to one model sends requests of one size, so the buffer a finished request gives back fits the
// next one.
//
// Bounded: at most kKeep buffers of at most kMaxBytes each are kept (4 MiB), and a buffer is
// handed out only for a request it fits within a factor of two, so a small request never holds
// a large buffer. What a request holds is charged to its front end's ByteBudget as before.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace gebe {

template <typename Buffer>  // std::string or std::vector<uint8_t>: capacity(), clear(), move
class RecycledBuffers {
 public:
  static constexpr size_t kKeep = 64;
  static constexpr size_t kMaxBytes = 64 * 1024;

  RecycledBuffers() { kept_.reserve(kKeep); }

  // Moves into *out (empty, with no capacity of its own) a kept buffer whose capacity is at least
  // `bytes` and at most twice that plus 4 KiB; false when none is kept.
  bool Take(size_t bytes, Buffer* out) {
    const size_t most = 2 * bytes + 4096;
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = kept_.size(); i-- > 0;) {
      const size_t capacity = kept_[i].capacity();
      if (capacity < bytes || capacity > most) continue;
      *out = std::move(kept_[i]);
      if (i + 1 != kept_.size()) kept_[i] = std::move(kept_.back());
      kept_.pop_back();
      return true;
    }
    return false;
  }

  // Any thread: keeps `buffer`'s memory for a later Take when there is room; otherwise the
  // caller's buffer keeps it and frees it as usual.
  void Give(Buffer& buffer) {
    if (buffer.capacity() > kMaxBytes || buffer.capacity() < 1024) return;  // small ones: malloc's caches do well
    buffer.clear();
    std::lock_guard<std::mutex> lock(mu_);
    if (kept_.size() < kKeep) kept_.push_back(std::move(buffer));
  }

 private:
  std::mutex mu_;
  std::vector<Buffer> kept_;
};

}  // namespace gebe
