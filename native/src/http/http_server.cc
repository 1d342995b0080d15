#include "http/http_server.h"

#include <algorithm>
#include <utility>

#include "net/listen_address.h"

namespace gebe {

HttpServer::HttpServer(HttpServerOptions options, std::shared_ptr<FastPath> fast_path, std::shared_ptr<RequestHandler> handler)
    : shared_(std::move(options), std::move(fast_path), std::move(handler)) {
  MakeLoops();
}

void HttpServer::MakeLoops() {
  loops_.clear();  // closes the sockets of loops that never ran
  const size_t n = std::max<size_t>(1, shared_.options().threads);
  for (size_t i = 0; i < n; ++i) loops_.push_back(std::make_unique<HttpLoop>(&shared_));
}

int HttpServer::Listen() {
  if (!shared_.handler()) throw ListenError{"EINVAL", "the native HTTP server needs a request handler"};
  // One loop binds as any listener; several share the port: the first binds the port asked for
  // (maybe 0), the others the port it got.
  int port = shared_.options().port;
  try {
    for (size_t i = 0; i < loops_.size(); ++i) {
      const PortSharing sharing = loops_.size() == 1 ? PortSharing::kAlone : i == 0 ? PortSharing::kFirst : PortSharing::kLater;
      port = loops_[i]->Open(port, sharing);
    }
    for (auto& loop : loops_) loop->Start();
  } catch (const ListenError&) {
    // Nothing keeps the port: the loops that started end now (they have no connection yet), and
    // fresh loops stand ready for another Listen.
    BeginClose(0);
    Join();
    MakeLoops();
    throw;
  }
  return port;
}

void HttpServer::BeginClose(uint64_t timeout_ms) {
  for (auto& loop : loops_) loop->BeginClose(timeout_ms);
}

void HttpServer::Join() {
  for (auto& loop : loops_) loop->Join();
}

uint64_t HttpServer::accepted() const {
  uint64_t sum = 0;
  for (const auto& loop : loops_) sum += loop->accepted();
  return sum;
}

uint64_t HttpServer::answered() const {
  uint64_t sum = 0;
  for (const auto& loop : loops_) sum += loop->answered();
  return sum;
}

uint64_t HttpServer::handed_off() const {
  uint64_t sum = 0;
  for (const auto& loop : loops_) sum += loop->handed_off();
  return sum;
}

std::vector<uint64_t> HttpServer::accepted_by_loop() const {
  std::vector<uint64_t> out;
  for (const auto& loop : loops_) out.push_back(loop->accepted());
  return out;
}

}  // namespace gebe
