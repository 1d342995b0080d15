// The thread and libuv loop of one native front end (HTTP or gRPC): a loop of its own that owns
// the listening socket and a wake-up handle, started by Listen on the JS thread and ended by the
// server's drain. The protocol, its connections and its drain stay in the server.
#pragma once

#include <uv.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "net/shared_port.h"

namespace gebe {

class LoopWaker;

class LoopThread {
 public:
  LoopThread() = default;
  // Joins a running loop (the server must have begun closing it); closes a loop that never ran.
  ~LoopThread();
  LoopThread(const LoopThread&) = delete;
  LoopThread& operator=(const LoopThread&) = delete;

  // JS thread: makes the loop, binds and listens on host:port (on_connection gets the listener,
  // whose data is `owner`), and makes the wake-up handle (on_async; its data is `owner`). Returns
  // the bound port. `sharing`: whether other loops listen on the port too (net/shared_port.h).
  // Throws ListenError (net/listen_address.h) naming the libuv error.
  int Open(const std::string& host, int port, PortSharing sharing, void* owner, uv_connection_cb on_connection, uv_async_cb on_async);
  // JS thread, after Open: attaches the async handle to `waker` and runs the loop on its own
  // thread, named `name` (a literal: thread_name.h), until every handle is closed. Throws
  // ListenError (and detaches) on failure.
  void Start(LoopWaker* waker, const char* name);
  // Any thread: asks for the close and wakes the loop; the server reads it in its async callback.
  void RequestClose(uint64_t timeout_ms);
  bool close_requested() const { return close_requested_.load(); }
  uint64_t close_timeout_ms() const { return close_timeout_ms_.load(); }
  // Closes now (timeout 0) and joins, if the loop runs: for the server's destructor.
  void Stop() {
    if (!running()) return;
    RequestClose(0);
    Join();
  }
  // Blocks until the loop thread has ended.
  void Join();
  bool running() const { return started_ && !joined_; }

  // Loop thread (and Open's caller, before Start).
  uv_loop_t* loop() { return &loop_; }
  uv_async_t* async() { return &async_; }
  // Stops accepting (the drain's first step).
  void CloseListener() { uv_close(reinterpret_cast<uv_handle_t*>(&listener_), nullptr); }
  // Closes the wake-up and busy-poll handles (the drain's last step).
  void CloseAsync() {
    uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&busy_poll_), nullptr);
  }
  // Before Start: how long the loop busy-polls after KeepPolling (0, the default: never).
  void set_busy_poll_us(uint64_t us) { busy_poll_ns_ = int64_t(std::min<uint64_t>(us, kMaxBusyPollUs) * 1000); }
  static constexpr uint64_t kMaxBusyPollUs = 10000;
  // Loop thread, after taking a request or writing answers: for the busy-poll window from now
  // the loop checks its sockets and mailbox without sleeping, yielding the CPU between checks.
  // On a small VM a sleeping thread takes tens of µs to wake (the idle vCPU halts and needs an
  // IPI), and a keep-alive client's next request or the scheduler's answer usually comes sooner.
  void KeepPolling();

 private:
  static void Main(void* self);

  uv_loop_t loop_{};
  uv_tcp_t listener_{};
  uv_async_t async_{};
  // Active while the loop busy-polls: an active idle handle makes libuv poll with no timeout.
  uv_idle_t busy_poll_{};
  int64_t busy_poll_ns_ = 0;
  int64_t busy_poll_until_ns_ = 0;
  bool worked_ = false;  // KeepPolling ran since the last OnBusyPoll
  static void OnBusyPoll(uv_idle_t* idle);
  // Loop thread: ends the busy poll (the next turn sleeps until an event), taking work queued
  // while it decided to (LoopWaker's handshake).
  void StopPolling();
  // Loop thread: runs the server's async callback when work is queued for it.
  void TakeQueued();
  uv_async_cb on_async_ = nullptr;
  // A sched_yield that returns later than this ran another thread.
  static constexpr int64_t kYieldedToOtherNs = 20000;
  uv_thread_t thread_{};
  LoopWaker* waker_ = nullptr;
  const char* name_ = "";
  bool loop_initialized_ = false;
  bool started_ = false;
  bool joined_ = false;
  std::atomic<bool> close_requested_{false};
  std::atomic<uint64_t> close_timeout_ms_{0};
};

}  // namespace gebe
