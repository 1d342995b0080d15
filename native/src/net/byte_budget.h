// The bytes of request bodies (HTTP) or messages (gRPC) a front end holds at once, against one
// limit. Buffers charge as bytes arrive, never for a declared size; the counter is shared with
// the buffers, which may be dropped on a scheduler thread after the server is gone.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "net/recycled_buffers.h"

namespace gebe {

class ByteBudget {
 public:
  explicit ByteBudget(uint64_t limit) : limit_(limit) {}

  // Charges `bytes` more; false (nothing charged) when that would pass the limit.
  bool Charge(uint64_t bytes) {
    uint64_t used = used_->load(std::memory_order_relaxed);
    do {
      if (used + bytes > limit_) return false;
    } while (!used_->compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return true;
  }
  // Charges without the check (what an allocation really took past its charge; may be negative).
  void Adjust(int64_t bytes) { used_->fetch_add(uint64_t(bytes), std::memory_order_relaxed); }
  void Refund(uint64_t bytes) { used_->fetch_sub(bytes, std::memory_order_relaxed); }
  uint64_t used() const { return used_->load(std::memory_order_relaxed); }

  // `object`, owned by a shared_ptr that, when its last holder drops it, refunds refund(object)
  // bytes and gives the object's memory to `recycled` for a later request.
  template <typename T, typename RefundOf>
  std::shared_ptr<T> Adopt(T* object, RefundOf refund, std::shared_ptr<RecycledBuffers<T>> recycled) const {
    std::shared_ptr<std::atomic<uint64_t>> used = used_;
    return std::shared_ptr<T>(object, [used, refund, recycled](T* o) {
      used->fetch_sub(refund(*o), std::memory_order_relaxed);
      recycled->Give(*o);
      delete o;
    });
  }

 private:
  uint64_t limit_;
  std::shared_ptr<std::atomic<uint64_t>> used_ = std::make_shared<std::atomic<uint64_t>>(0);
};

}  // namespace gebe
