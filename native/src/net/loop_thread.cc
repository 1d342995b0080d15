#include "net/loop_thread.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "net/listen_address.h"
#include "net/loop_mailbox.h"
#include "scheduler/clock.h"

namespace gebe {

int64_t AnswerSpinNs() {
  static const int64_t ns = [] {
    const char* raw = std::getenv("GEBE_ANSWER_SPIN_US");
    if (raw == nullptr || *raw == '\0') return int64_t(50) * 1000;
    char* end = nullptr;
    const long us = std::strtol(raw, &end, 10);
    // Anything but a whole number of µs up to 1000 keeps the default: a knob, never a failure.
    if (*end != '\0' || us < 0 || us > 1000) return int64_t(50) * 1000;
    return int64_t(us) * 1000;
  }();
  return ns;
}

void LoopWaker::AnswerDueSoon() {
  if (spin_ns_ == 0) return;
  const int64_t until = SteadyNowNs() + spin_ns_;
  int64_t seen = due_until_ns_.load(std::memory_order_relaxed);
  while (seen < until && !due_until_ns_.compare_exchange_weak(seen, until, std::memory_order_acq_rel)) {
  }
  if (polling_.load(std::memory_order_acquire)) Wake();
}

bool LoopWaker::SpinForAnswers(uv_loop_t* loop) {
  if (spin_ns_ == 0 || SteadyNowNs() >= due_until_ns_.load(std::memory_order_acquire)) return false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (async_ == nullptr) return false;
    spinning_ = true;
  }
  const uint64_t takes = takes_;
  while (!signaled_.load(std::memory_order_acquire)) {
    uv_run(loop, UV_RUN_NOWAIT);  // the other connections go on meanwhile
    if (signaled_.load(std::memory_order_acquire) || takes_ != takes) break;  // answered (or woken) meanwhile
    if (SteadyNowNs() >= due_until_ns_.load(std::memory_order_acquire)) break;
    sched_yield();  // a thread that needs this core (the model's, the client's) goes first
  }
  std::lock_guard<std::mutex> lock(mutex_);
  spinning_ = false;
  return signaled_.exchange(false, std::memory_order_acq_rel) && async_ != nullptr;
}

LoopThread::~LoopThread() {
  if (started_) {
    Join();
  } else if (loop_initialized_) {
    // Listen failed after the loop was made: close what exists and run the loop dry.
    uv_walk(&loop_, [](uv_handle_t* h, void*) { if (!uv_is_closing(h)) uv_close(h, nullptr); }, nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  }
}

int LoopThread::Open(const std::string& host, int port, void* owner, uv_connection_cb on_connection, uv_async_cb on_async) {
  sockaddr_storage addr = ResolveListenAddress(host, port);
  int rc = uv_loop_init(&loop_);
  if (rc != 0) throw MakeListenError(rc, "uv_loop_init");
  loop_initialized_ = true;
  uv_tcp_init(&loop_, &listener_);
  listener_.data = owner;
  rc = uv_tcp_bind(&listener_, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&listener_), 511, on_connection);
  if (rc != 0) throw MakeListenError(rc, "listen " + host + ":" + std::to_string(port));
  uv_async_init(&loop_, &async_, on_async);
  async_.data = owner;
  uv_prepare_init(&loop_, &before_poll_);
  uv_check_init(&loop_, &after_poll_);
  for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&before_poll_), reinterpret_cast<uv_handle_t*>(&after_poll_)}) {
    h->data = this;
    uv_unref(h);  // they never keep the loop alive
  }
  uv_prepare_start(&before_poll_, [](uv_prepare_t* h) { static_cast<LoopThread*>(h->data)->waker_->SetPolling(true); });
  uv_check_start(&after_poll_, [](uv_check_t* h) { static_cast<LoopThread*>(h->data)->waker_->SetPolling(false); });
  return BoundPort(&listener_);
}

void LoopThread::Start(LoopWaker* waker) {
  waker->Attach(&async_);
  waker_ = waker;  // before the thread starts: Main reads it
  const int rc = uv_thread_create(&thread_, &LoopThread::Main, this);
  if (rc != 0) {
    waker->Detach();
    waker_ = nullptr;
    throw MakeListenError(rc, "uv_thread_create");
  }
  started_ = true;
}

void LoopThread::RequestClose(uint64_t timeout_ms) {
  close_timeout_ms_.store(timeout_ms);
  close_requested_.store(true);
  if (waker_ != nullptr) waker_->Wake();
}

void LoopThread::Main(void* self) {
  auto* thread = static_cast<LoopThread*>(self);
  auto* loop = &thread->loop_;
  LoopWaker::SetThisThread(thread->waker_);
  do {
    // Answers signalled while the loop waited awake: delivered as the async callback would.
    if (thread->waker_->SpinForAnswers(loop) && !uv_is_closing(reinterpret_cast<uv_handle_t*>(&thread->async_))) {
      thread->async_.async_cb(&thread->async_);
    }
  } while (uv_run(loop, UV_RUN_ONCE) != 0);
  // Everything else is closed; close the poll markers and run once more so the close callbacks
  // of the last handles complete.
  uv_close(reinterpret_cast<uv_handle_t*>(&thread->before_poll_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&thread->after_poll_), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
  uv_loop_close(loop);
}

void LoopThread::Join() {
  if (started_ && !joined_) {
    uv_thread_join(&thread_);
    joined_ = true;
  }
}

}  // namespace gebe
