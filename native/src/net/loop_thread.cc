#include "net/loop_thread.h"

#include <sched.h>

#include "net/listen_address.h"
#include "net/loop_mailbox.h"
#include "scheduler/clock.h"
#include "thread_name.h"

namespace gebe {

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

int LoopThread::Open(const std::string& host, int port, PortSharing sharing, void* owner, uv_connection_cb on_connection,
                     uv_async_cb on_async) {
  sockaddr_storage addr = ResolveListenAddress(host, port);
  const std::string what = "listen " + host + ":" + std::to_string(port);
  // Port 0 needs no check: the kernel never picks a port other SO_REUSEPORT sockets hold.
  if (sharing == PortSharing::kFirst && port != 0) CheckPortFree(addr, what);
  int rc = uv_loop_init(&loop_);
  if (rc != 0) throw MakeListenError(rc, "uv_loop_init");
  loop_initialized_ = true;
  // A shared port's socket must exist before the bind, to take SO_REUSEPORT.
  if (sharing == PortSharing::kAlone) {
    uv_tcp_init(&loop_, &listener_);
  } else {
    rc = uv_tcp_init_ex(&loop_, &listener_, addr.ss_family);
    if (rc != 0) throw MakeListenError(rc, what);
  }
  listener_.data = owner;
  if (sharing != PortSharing::kAlone) rc = AllowSharedPort(&listener_);
  if (rc == 0) rc = uv_tcp_bind(&listener_, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&listener_), 511, on_connection);
  if (rc != 0) throw MakeListenError(rc, what);
  uv_async_init(&loop_, &async_, on_async);
  async_.data = owner;
  on_async_ = on_async;
  uv_idle_init(&loop_, &busy_poll_);
  busy_poll_.data = this;
  return BoundPort(&listener_);
}

void LoopThread::Start(LoopWaker* waker, const char* name) {
  name_ = name;
  waker->Attach(&async_);
  waker_ = waker;  // before the thread starts: its busy poll reads it
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
  NameThisThread(static_cast<LoopThread*>(self)->name_);
  auto* loop = &static_cast<LoopThread*>(self)->loop_;
  uv_run(loop, UV_RUN_DEFAULT);
  // Everything is closed; run once more so close callbacks of the last handles complete.
  uv_run(loop, UV_RUN_NOWAIT);
  uv_loop_close(loop);
}

void LoopThread::KeepPolling() {
  auto* handle = reinterpret_cast<uv_handle_t*>(&busy_poll_);
  if (busy_poll_ns_ == 0 || uv_is_closing(handle)) return;
  busy_poll_until_ns_ = SteadyNowNs() + busy_poll_ns_;
  worked_ = true;
  if (!uv_is_active(handle)) {
    uv_idle_start(&busy_poll_, &LoopThread::OnBusyPoll);
    if (waker_ != nullptr) waker_->set_polling(true);
  }
}

void LoopThread::StopPolling() {
  uv_idle_stop(&busy_poll_);
  if (waker_ == nullptr) return;
  waker_->set_polling(false);
  TakeQueued();  // posted before the poster could see the flag cleared: nobody wakes us for it
}

void LoopThread::TakeQueued() {
  if (waker_ != nullptr && waker_->queued()) on_async_(&async_);
}

void LoopThread::OnBusyPoll(uv_idle_t* idle) {
  auto* self = static_cast<LoopThread*>(idle->data);
  self->TakeQueued();  // answers posted without a wake-up while the loop polls
  const int64_t before = SteadyNowNs();
  if (before >= self->busy_poll_until_ns_) {
    self->StopPolling();  // the next uv__io_poll sleeps until an event
    return;
  }
  // The last iteration had work: poll again at once. Under load nearly every iteration has
  // some, and a yield there is a system call (and on some VMs a trip through the hypervisor)
  // that finds nothing to give way to.
  if (self->worked_) {
    self->worked_ = false;
    return;
  }
  // Another runnable thread on this CPU (a model instance, the client) goes first. If one ran,
  // the CPU has work without this loop: polling would take time from it, and a loop asleep on
  // a busy CPU wakes without the cost polling avoids, so it sleeps until its next event.
  sched_yield();
  if (SteadyNowNs() - before > kYieldedToOtherNs) self->StopPolling();
}

void LoopThread::Join() {
  if (started_ && !joined_) {
    uv_thread_join(&thread_);
    joined_ = true;
  }
}

}  // namespace gebe
