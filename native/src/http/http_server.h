// The native HTTP front end: a libuv loop on its own thread that owns the public port, parses
// requests with llhttp, offers infer requests to the FastPath and hands everything else to the
// RequestHandler (JS, in process), writing the answers of both. Framing, limits, timeouts and the
// drain live here, once; the routes of the control plane and their wording live in JS.
#pragma once

#include <uv.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/fast_path.h"
#include "net/byte_budget.h"
#include "net/front_end_options.h"
#include "net/loop_mailbox.h"
#include "net/loop_thread.h"

namespace gebe {

class HttpConnection;

// A uv_buf_t of any length (uv_buf_init takes an unsigned int).
inline uv_buf_t MakeBuf(const void* data, size_t length) {
  uv_buf_t buf;
  buf.base = static_cast<char*>(const_cast<void*>(data));
  buf.len = length;
  return buf;
}

struct HttpServerOptions : FrontEndOptions {
  // The wording of the 413, 400 (then llhttp's reason) and 408 answers, and of the 503 for one
  // more connection than max_connections (then closed): server/limits.ts's, which the binding
  // requires, so that both HTTP front ends say the same and no native copy drifts from it.
  std::string too_large_message;
  std::string malformed_prefix;
  std::string timeout_message;
  std::string full_message;
  uint64_t headers_timeout_ms = 30000;
  uint64_t request_timeout_ms = 300000;
  uint64_t keep_alive_timeout_ms = 65000;
  size_t max_header_bytes = 16384;  // node's default; more is answered 431
};

// An answer on its way to the loop (of the fast path or of the request handler).
struct ResponseItem {
  uint64_t connection_id;
  uint64_t request_seq;
  HttpResponse response;
};
using ResponseMailbox = LoopMailbox<ResponseItem>;

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, std::shared_ptr<FastPath> fast_path, std::shared_ptr<RequestHandler> handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // JS thread: binds and listens, then starts the loop thread. Returns the port. Throws
  // ListenError (net/listen_address.h) naming the libuv error on failure.
  int Listen();
  // Any thread: graceful close (stop accepting, close idle connections, let in-flight requests
  // finish with Connection: close, after timeout_ms close everything), then the loop ends.
  void BeginClose(uint64_t timeout_ms) { loop_.RequestClose(timeout_ms); }
  // Blocks until the loop thread has ended (after BeginClose).
  void Join() { loop_.Join(); }

  uint64_t accepted() const { return accepted_.load(std::memory_order_relaxed); }
  uint64_t answered() const { return answered_.load(std::memory_order_relaxed); }
  // Requests handed to the RequestHandler (the rest were rejected by a limit or taken by the fast path).
  uint64_t handed_off() const { return handed_off_.load(std::memory_order_relaxed); }
  FastPath* fast_path() const { return fast_path_.get(); }
  RequestHandler* handler() const { return handler_.get(); }
  void CountHandedOff() { handed_off_.fetch_add(1, std::memory_order_relaxed); }

  // Loop thread only, for connections.
  uv_loop_t* loop() { return loop_.loop(); }
  // One read buffer for every socket of the loop: each read is parsed (or copied) before the next.
  static constexpr size_t kReadBufferSize = 65536;
  char* read_buffer() { return read_buffer_.get(); }
  const HttpServerOptions& options() const { return options_; }
  // Charges `bytes` more of body buffer to the in-flight budget; false (nothing charged) when full.
  bool ChargeBody(size_t bytes) { return body_budget_.Charge(bytes); }
  void AdjustBody(size_t bytes) { body_budget_.Adjust(int64_t(bytes)); }
  // An empty body buffer whose capacity is refunded to the budget when the last holder drops it.
  std::shared_ptr<std::vector<uint8_t>> NewBody();
  // Gives an empty *body the memory of a finished request's body of about `bytes`, when one is kept.
  bool TakeRecycledBody(size_t bytes, std::vector<uint8_t>* body) { return recycled_bodies_->Take(bytes, body); }
  bool draining() const { return draining_; }
  uint64_t body_bytes() const { return body_budget_.used(); }
  size_t connection_count() const { return connections_.size(); }
  void CountAccepted() {
    accepted_.fetch_add(1, std::memory_order_relaxed);
    loop_.KeepPolling();
  }
  void CountAnswered();
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

  HttpServerOptions options_;
  std::shared_ptr<FastPath> fast_path_;
  std::shared_ptr<RequestHandler> handler_;
  std::shared_ptr<ResponseMailbox> mailbox_ = std::make_shared<ResponseMailbox>();
  // Body bytes held by all requests (body buffers may outlive the server).
  ByteBudget body_budget_;
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
