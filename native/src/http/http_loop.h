// One loop thread of the native HTTP server: a libuv loop with its own listening socket on the
// server's port, its connections, its answer mailbox, its read buffer and its drain. The limits
// and counters that must hold server-wide are the HttpShared's, which every loop of a server holds.
#pragma once

#include <uv.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/http_shared.h"
#include "net/loop_mailbox.h"
#include "net/loop_thread.h"
#include "net/recycled_buffers.h"

namespace gebe {

class HttpConnection;

// An answer on its way to the loop (of the fast path or of the request handler).
struct ResponseItem {
  uint64_t connection_id;
  uint64_t request_seq;
  HttpResponse response;
};
using ResponseMailbox = LoopMailbox<ResponseItem>;

class HttpLoop {
 public:
  explicit HttpLoop(HttpShared* shared) : shared_(shared) {}
  // Closes the loop at once (timeout 0) and joins it, if it runs.
  ~HttpLoop() { loop_.Stop(); }
  HttpLoop(const HttpLoop&) = delete;
  HttpLoop& operator=(const HttpLoop&) = delete;

  // JS thread: binds and listens on the options' host and `port`, alone or sharing it with the
  // server's other loops (net/shared_port.h). Returns the bound port. Throws ListenError (net/listen_address.h).
  int Open(int port, PortSharing sharing);
  // JS thread, after Open: runs the loop on its own thread. Throws ListenError.
  void Start();
  // Any thread: graceful close (stop accepting, close idle connections, let in-flight requests
  // finish with Connection: close, after timeout_ms close everything), then the loop ends.
  void BeginClose(uint64_t timeout_ms) { loop_.RequestClose(timeout_ms); }
  // Blocks until the loop thread has ended.
  void Join() { loop_.Join(); }
  bool running() const { return loop_.running(); }

  // Any thread. Requests this loop read (whole or refused by a limit), answered, and handed to
  // the RequestHandler (the rest were rejected by a limit or taken by the fast path).
  uint64_t accepted() const { return accepted_.load(std::memory_order_relaxed); }
  uint64_t answered() const { return answered_.load(std::memory_order_relaxed); }
  uint64_t handed_off() const { return handed_off_.load(std::memory_order_relaxed); }

  // Loop thread only, for connections.
  uv_loop_t* loop() { return loop_.loop(); }
  // One read buffer for every socket of the loop: each read is parsed (or copied) before the next.
  static constexpr size_t kReadBufferSize = 65536;
  char* read_buffer() { return read_buffer_.get(); }
  const HttpServerOptions& options() const { return shared_->options(); }
  FastPath* fast_path() const { return shared_->fast_path(); }
  RequestHandler* handler() const { return shared_->handler(); }
  // Charges `bytes` more of body buffer to the server's in-flight budget; false (nothing charged) when full.
  bool ChargeBody(size_t bytes) { return shared_->body_budget().Charge(bytes); }
  void AdjustBody(size_t bytes) { shared_->body_budget().Adjust(int64_t(bytes)); }
  // An empty body buffer whose capacity is refunded to the budget when the last holder drops it.
  std::shared_ptr<std::vector<uint8_t>> NewBody();
  // Gives an empty *body the memory of a finished request's body of about `bytes`, when one is kept.
  bool TakeRecycledBody(size_t bytes, std::vector<uint8_t>* body) { return recycled_bodies_->Take(bytes, body); }
  bool draining() const { return draining_; }
  void CountAccepted() {
    accepted_.fetch_add(1, std::memory_order_relaxed);
    loop_.KeepPolling();
  }
  void CountAnswered();
  void CountHandedOff() { handed_off_.fetch_add(1, std::memory_order_relaxed); }
  void Forget(uint64_t connection_id);
  // The Respond for a request (taken or handed off); it keeps `request` alive until it is called and dropped.
  Respond MakeRespond(uint64_t connection_id, uint64_t request_seq, std::shared_ptr<HttpRequest> request);

 private:
  static void OnConnection(uv_stream_t* listener, int status);
  static void OnAsync(uv_async_t* async);
  static void OnDrainTimeout(uv_timer_t* timer);
  void DeliverResponses();
  void StartDrain();
  // Closes the connections with nothing received, answered or waiting in the socket.
  void CloseIdle();
  void CheckDrained();
  void CloseEverything();

  HttpShared* shared_;  // the server's; outlives its loops
  std::shared_ptr<ResponseMailbox> mailbox_ = std::make_shared<ResponseMailbox>();
  // Shared with the body buffers, which give their memory back here (maybe after the server is gone).
  std::shared_ptr<RecycledBuffers<std::vector<uint8_t>>> recycled_bodies_ = std::make_shared<RecycledBuffers<std::vector<uint8_t>>>();

  std::unique_ptr<char[]> read_buffer_{new char[kReadBufferSize]};
  uv_timer_t drain_timer_{};
  // After the handles above: destroyed first, it closes a loop that never ran while they still exist.
  LoopThread loop_;

  bool draining_ = false;  // loop thread
  bool closed_all_ = false;
  bool checking_ = false;

  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> answered_{0};
  std::atomic<uint64_t> handed_off_{0};
  uint64_t next_connection_id_ = 1;
  std::unordered_map<uint64_t, HttpConnection*> connections_;
};

}  // namespace gebe
