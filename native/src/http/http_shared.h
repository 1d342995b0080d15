// What every loop thread of the native HTTP server shares (http_server.h runs one or more loops on
// one port): the options, the fast path and the request handler, and the two limits that must
// hold server-wide, whichever loop a connection landed on: the in-flight body bytes and the open
// connections. Everything else (connections, mailbox, read buffer, timers, drain) is per loop.
#pragma once

#include <uv.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "http/fast_path.h"
#include "net/byte_budget.h"
#include "net/front_end_options.h"

namespace gebe {

// A uv_buf_t of any length (uv_buf_init takes an unsigned int).
inline uv_buf_t MakeBuf(const void* data, size_t length) {
  uv_buf_t buf;
  buf.base = static_cast<char*>(const_cast<void*>(data));
  buf.len = length;
  return buf;
}

// The most loop threads one server runs (--http-thread-count). src/core/server/server.ts's
// MAX_HTTP_THREADS is the same bound; the CLI refuses more with its wording, the binding with a RangeError.
constexpr size_t kMaxHttpLoops = 64;

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
  // Loop threads serving the port (--http-thread-count), 1 to kMaxHttpLoops.
  size_t threads = 1;
};

// Read by every loop thread at once: the options never change after construction, FastPath and
// RequestHandler are thread-safe (fast_path.h), and the two counters are atomics.
class HttpShared {
 public:
  HttpShared(HttpServerOptions options, std::shared_ptr<FastPath> fast_path, std::shared_ptr<RequestHandler> handler)
      : options_(std::move(options)), fast_path_(std::move(fast_path)), handler_(std::move(handler)),
        body_budget_(options_.max_inflight_bytes) {}

  const HttpServerOptions& options() const { return options_; }
  FastPath* fast_path() const { return fast_path_.get(); }
  RequestHandler* handler() const { return handler_.get(); }
  ByteBudget& body_budget() { return body_budget_; }
  const ByteBudget& body_budget() const { return body_budget_; }

  // Counts one more open connection; false when the server already had max_connections open
  // (the connection is counted all the same until it closes: it is answered 503 and closed).
  bool AdmitConnection() {
    return open_connections_.fetch_add(1, std::memory_order_relaxed) < options_.max_connections;
  }
  void ConnectionClosed() { open_connections_.fetch_sub(1, std::memory_order_relaxed); }

 private:
  const HttpServerOptions options_;
  const std::shared_ptr<FastPath> fast_path_;
  const std::shared_ptr<RequestHandler> handler_;
  // Body bytes held by all requests of all loops (body buffers may outlive the server).
  ByteBudget body_budget_;
  std::atomic<size_t> open_connections_{0};
};

}  // namespace gebe
