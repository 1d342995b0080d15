// The native HTTP front end: a libuv loop on its own thread that owns the public port, parses
// requests with llhttp, offers infer requests to the FastPath and forwards everything else to
// the JS server (node:http on 127.0.0.1, the "upstream"), relaying its answers byte for byte.
// Only framing lives here; every route and error wording of the API stays in JS.
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

namespace gebe {

class HttpConnection;

// A uv_buf_t of any length (uv_buf_init takes an unsigned int).
inline uv_buf_t MakeBuf(const void* data, size_t length) {
  uv_buf_t buf;
  buf.base = static_cast<char*>(const_cast<void*>(data));
  buf.len = length;
  return buf;
}

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  int upstream_port = 0;  // the JS server, on 127.0.0.1
  uint64_t max_body_bytes = 64ull << 20;
  uint64_t headers_timeout_ms = 30000;
  uint64_t request_timeout_ms = 300000;
  uint64_t keep_alive_timeout_ms = 65000;
  size_t max_header_bytes = 16384;  // node's default; more is answered 431
};

// Fast-path responses travel from scheduler threads to the loop through this mailbox. It outlives
// the server (each Respond holds it), so a late answer after close is dropped, never a crash.
struct ResponseMailbox : std::enable_shared_from_this<ResponseMailbox> {
  struct Item {
    uint64_t connection_id;
    uint64_t request_seq;
    HttpResponse response;
  };
  std::mutex mutex;
  std::vector<Item> items;
  uv_async_t* async = nullptr;  // null once the loop is gone

  // Queues an answer; the loop is woken now, or at the end of the NativeAnswerBatch open on
  // this thread.
  void Post(uint64_t connection_id, uint64_t request_seq, HttpResponse response);

 private:
  static void Wake(const std::shared_ptr<void>& mailbox);
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, std::shared_ptr<FastPath> fast_path);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // JS thread: binds and listens, then starts the loop thread. Returns the port. Throws
  // std::system_error-like UvError naming the libuv error on failure.
  int Listen();
  // Any thread: graceful close (stop accepting, close idle connections, let in-flight requests
  // finish with Connection: close, after timeout_ms close everything), then the loop ends.
  void BeginClose(uint64_t timeout_ms);
  // Blocks until the loop thread has ended (after BeginClose).
  void Join();

  uint64_t accepted() const { return accepted_.load(std::memory_order_relaxed); }
  uint64_t answered() const { return answered_.load(std::memory_order_relaxed); }
  FastPath* fast_path() const { return fast_path_.get(); }

  // Loop thread only, for connections.
  uv_loop_t* loop() { return &loop_; }
  // One read buffer for every socket of the loop: each read is parsed (or copied) before the next.
  static constexpr size_t kReadBufferSize = 65536;
  char* read_buffer() { return read_buffer_.get(); }
  const HttpServerOptions& options() const { return options_; }
  const sockaddr_storage& upstream_address() const { return upstream_addr_; }
  bool draining() const { return draining_; }
  void CountAccepted() { accepted_.fetch_add(1, std::memory_order_relaxed); }
  void CountAnswered();
  void Forget(uint64_t connection_id);
  // The Respond for a taken request; it keeps `request` alive until it is called and dropped.
  Respond MakeRespond(uint64_t connection_id, uint64_t request_seq, std::shared_ptr<HttpRequest> request);

 private:
  static void OnConnection(uv_stream_t* listener, int status);
  static void OnAsync(uv_async_t* async);
  static void OnDrainTimeout(uv_timer_t* timer);
  static void ThreadMain(void* self);
  void DeliverResponses();
  void StartDrain();
  void CheckDrained();
  void CloseEverything();

  HttpServerOptions options_;
  std::shared_ptr<FastPath> fast_path_;
  std::shared_ptr<ResponseMailbox> mailbox_ = std::make_shared<ResponseMailbox>();
  sockaddr_storage upstream_addr_{};

  std::unique_ptr<char[]> read_buffer_{new char[kReadBufferSize]};
  uv_loop_t loop_{};
  uv_tcp_t listener_{};
  uv_async_t async_{};
  uv_timer_t drain_timer_{};
  uv_thread_t thread_{};
  bool loop_initialized_ = false;
  bool thread_started_ = false;
  bool joined_ = false;

  std::atomic<bool> close_requested_{false};
  std::atomic<uint64_t> close_timeout_ms_{0};
  bool draining_ = false;  // loop thread
  bool closed_all_ = false;
  bool checking_ = false;

  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> answered_{0};
  uint64_t next_connection_id_ = 1;
  std::unordered_map<uint64_t, HttpConnection*> connections_;
};

// A libuv error with its name ("EADDRINUSE") kept for JS.
struct UvError {
  std::string code;
  std::string message;
};

}  // namespace gebe
