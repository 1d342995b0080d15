// The mailbox through which answers reach a native front end's loop thread from scheduler threads
// and JS (the HTTP and gRPC servers each keep one). It outlives its server (every pending reply
// holds it), so an answer posted after the loop is gone is dropped, never a crash.
#pragma once

#include <uv.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "scheduler/scheduled_request.h"

namespace gebe {

// How long a loop waits awake for an answer once its batch starts running (GEBE_ANSWER_SPIN_US,
// docs/environment.md; 0 turns the wait off). Read once.
int64_t AnswerSpinNs();

// What wakes a loop: its async handle, behind a lock, valid until the loop closes it.
//
// Answers due soon: when an instance thread starts a batch holding a request this loop will
// answer (AnswerDueSoon), a loop sleeping in poll is woken at once, so its wake-up overlaps the
// model's run, and then waits awake for the answer (SpinForAnswers, bounded by AnswerSpinNs)
// while it goes on serving its other connections; the answer's signal then costs no wake-up.
class LoopWaker : public AnswerWriter {
 public:
  virtual ~LoopWaker() = default;
  // Any thread: wakes the loop (if it still runs).
  void Wake() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (async_ != nullptr) uv_async_send(async_);
  }
  // Any thread: queued answers are ready; wakes the loop unless it is waiting awake for them.
  void Signal() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (async_ == nullptr) return;
    if (spinning_) {
      signaled_.store(true, std::memory_order_release);
      return;
    }
    uv_async_send(async_);
  }
  void AnswerDueSoon() override;
  // Loop thread, between two turns of the loop: while an answer is due, waits awake for it,
  // running the loop without blocking. True: answers were signalled (the caller delivers them as
  // its async callback would).
  bool SpinForAnswers(uv_loop_t* loop);
  // Loop thread: whether the loop is (about to be) blocked in poll.
  void SetPolling(bool polling) { polling_.store(polling, std::memory_order_release); }
  // The waker of the loop running on this thread, or null; set by LoopThread.
  static LoopWaker* OfThisThread() { return this_thread_; }
  static void SetThisThread(LoopWaker* waker) { this_thread_ = waker; }

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
  uint64_t takes_ = 0;           // loop thread: Takes that found answers

 private:
  static inline thread_local LoopWaker* this_thread_ = nullptr;
  const int64_t spin_ns_ = AnswerSpinNs();
  std::atomic<int64_t> due_until_ns_{0};  // the loop waits awake for answers until then
  std::atomic<bool> polling_{false};
  std::atomic<bool> signaled_{false};     // set while spinning_, instead of a wake-up
  bool spinning_ = false;                 // guarded by mutex_
};

template <typename Item>
class LoopMailbox : public LoopWaker, public std::enable_shared_from_this<LoopMailbox<Item>> {
 public:
  // Any thread: queues an item; the loop is signalled now, or once at the end of the
  // NativeAnswerBatch open on this thread (every answer of one finished batch, one wake-up).
  void Post(Item item) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (async_ == nullptr) return;  // the server is gone: nobody to answer
      items_.push_back(std::move(item));
    }
    NativeAnswerBatch::Defer(this->shared_from_this(), &LoopMailbox::SignalTarget);
  }

  // Loop thread: everything queued so far, in order.
  std::vector<Item> Take() {
    std::vector<Item> out;
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(items_);
    if (!out.empty()) ++takes_;
    return out;
  }

 private:
  void DropQueuedLocked() override { items_.clear(); }
  static void SignalTarget(const std::shared_ptr<void>& target) { static_cast<LoopMailbox*>(target.get())->Signal(); }

  std::vector<Item> items_;
};

}  // namespace gebe
