// The mailbox through which answers reach a native front end's loop thread from scheduler threads
// and JS (the HTTP and gRPC servers each keep one). It outlives its server (every pending reply
// holds it), so an answer posted after the loop is gone is dropped, never a crash.
#pragma once

#include <uv.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "scheduler/scheduled_request.h"

namespace gebe {

// What wakes a loop: its async handle, behind a lock, valid until the loop closes it.
//
// While the loop busy-polls (LoopThread::KeepPolling) it looks at `queued` on every turn, so work
// posted then needs no wake-up: the async handle's eventfd write on the posting thread and its
// read on the loop are two system calls on each answer's path, each a trip through the
// hypervisor on a VM. The loop clears `polling` before it sleeps and then looks at `queued` once
// more; a poster sets `queued` before it reads `polling`. Both are sequentially consistent, so
// either the poster sees the loop asleep and wakes it, or the loop sees the work.
class LoopWaker {
 public:
  virtual ~LoopWaker() = default;
  // Any thread: wakes the loop (if it still runs).
  void Wake() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (async_ != nullptr) uv_async_send(async_);
  }
  // Any thread, after queueing work (which set `queued`): wakes the loop unless it busy-polls.
  void WakeUnlessPolling() {
    if (!polling_.load(std::memory_order_seq_cst)) Wake();
  }
  // Loop thread: whether work was queued since the loop last took it; the busy poll's switch.
  bool queued() const { return queued_.load(std::memory_order_seq_cst); }
  void set_polling(bool polling) { polling_.store(polling, std::memory_order_seq_cst); }
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
  std::atomic<bool> queued_{false};   // set with the work, under mutex_; cleared when the loop takes it
  std::atomic<bool> polling_{false};
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
      queued_.store(true, std::memory_order_seq_cst);
    }
    NativeAnswerBatch::Defer(this->shared_from_this(), &LoopMailbox::WakeTarget);
  }

  // Loop thread: everything queued so far, in order.
  std::vector<Item> Take() {
    std::vector<Item> out;
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(items_);
    queued_.store(false, std::memory_order_seq_cst);
    return out;
  }

 private:
  void DropQueuedLocked() override { items_.clear(); }
  static void WakeTarget(const std::shared_ptr<void>& target) { static_cast<LoopMailbox*>(target.get())->WakeUnlessPolling(); }

  std::vector<Item> items_;
};

}  // namespace gebe
