// The native HTTP front end: one or more libuv loops (--http-thread-count), each on its own
// thread, that together own the public port (several each listen on it with SO_REUSEPORT and the
// kernel spreads connections across them; net/shared_port.h), parse requests with llhttp, offer infer requests to the FastPath and hand everything
// else to the RequestHandler (JS, in process), writing the answers of both. Framing, limits,
// timeouts and the drain live in the loops (http_loop.h) and connections, once; the limits that
// hold server-wide in HttpShared; the routes of the control plane and their wording in JS.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "http/fast_path.h"
#include "http/http_loop.h"
#include "http/http_shared.h"

namespace gebe {

class HttpServer {
 public:
  // Runs options.threads loops (at least one).
  HttpServer(HttpServerOptions options, std::shared_ptr<FastPath> fast_path, std::shared_ptr<RequestHandler> handler);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // JS thread: binds and listens (the first loop on the port asked for, maybe 0, the others on
  // the port it got), then starts the loop threads. Returns the port. Throws ListenError
  // (net/listen_address.h) naming the libuv error on failure; loops already started are closed.
  int Listen();
  // Any thread: graceful close of every loop (each drains its own connections; see HttpLoop).
  void BeginClose(uint64_t timeout_ms);
  // Blocks until every loop thread has ended (after BeginClose).
  void Join();

  // Any thread: the sums over the loops.
  uint64_t accepted() const;
  uint64_t answered() const;
  uint64_t handed_off() const;
  // Requests each loop accepted, in loop order: which loops the kernel gave connections to.
  std::vector<uint64_t> accepted_by_loop() const;
  uint64_t body_bytes() const { return shared_.body_budget().used(); }
  FastPath* fast_path() const { return shared_.fast_path(); }
  RequestHandler* handler() const { return shared_.handler(); }

 private:
  // Replaces the loops with fresh ones that have not listened yet.
  void MakeLoops();

  HttpShared shared_;
  // After shared_: destroyed first, each loop stops while what it reads still exists.
  std::vector<std::unique_ptr<HttpLoop>> loops_;
};

}  // namespace gebe
