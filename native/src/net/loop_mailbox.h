// The mailbox through which answers reach a native front end's loop thread from scheduler threads
// and JS (the HTTP and gRPC servers each keep one). It outlives its server (every pending reply
// holds it), so an answer posted after the loop is gone is dropped, never a crash.
#pragma once

#include <uv.h>

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "scheduler/scheduled_request.h"

namespace gebe {

// What wakes a loop: its async handle, behind a lock, valid until the loop closes it.
class LoopWaker {
 public:
  virtual ~LoopWaker() = default;
  // Any thread: wakes the loop (if it still runs).
  void Wake() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (async_ != nullptr) uv_async_send(async_);
  }
  // The loop's wake-up handle, before its thread starts; Detach when the loop closes it (what is
  // still queued is dropped and later posts are refused).
  void Attach(uv_async_t* async) {
    std::lock_guard<std::mutex> lock(mutex_);
    async_ = async;
  }
  void Detach() {
    std::lock_guard<std::mutex> lock(mutex_);
    async_ = nullptr;
    DropQueuedLocked();
  }

 protected:
  virtual void DropQueuedLocked() {}
  std::mutex mutex_;
  uv_async_t* async_ = nullptr;  // null once the loop is gone
};

template <typename Item>
class LoopMailbox : public LoopWaker, public std::enable_shared_from_this<LoopMailbox<Item>> {
 public:
  // Any thread: queues an item; the loop is woken now, or once at the end of the
  // NativeAnswerBatch open on this thread (every answer of one finished batch, one wake-up).
  void Post(Item item) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (async_ == nullptr) return;  // the server is gone: nobody to answer
      items_.push_back(std::move(item));
    }
    NativeAnswerBatch::Defer(this->shared_from_this(), &LoopMailbox::WakeTarget);
  }

  // Loop thread: everything queued so far, in order.
  std::vector<Item> Take() {
    std::vector<Item> out;
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(items_);
    return out;
  }

 private:
  void DropQueuedLocked() override { items_.clear(); }
  static void WakeTarget(const std::shared_ptr<void>& target) { static_cast<LoopMailbox*>(target.get())->Wake(); }

  std::vector<Item> items_;
};

}  // namespace gebe
