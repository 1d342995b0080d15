#include "http/http_server.h"

#include <utility>

#include "http/http_connection.h"
#include "net/connection_list.h"
#include "net/listen_address.h"

namespace gebe {

HttpServer::HttpServer(HttpServerOptions options, std::shared_ptr<FastPath> fast_path, std::shared_ptr<RequestHandler> handler)
    : options_(std::move(options)), fast_path_(std::move(fast_path)), handler_(std::move(handler)),
      body_budget_(options_.max_inflight_bytes) {}

HttpServer::~HttpServer() { loop_.Stop(); }

int HttpServer::Listen() {
  if (!handler_) throw ListenError{"EINVAL", "the native HTTP server needs a request handler"};
  const int port = loop_.Open(options_.host, options_.port, this, &HttpServer::OnConnection, &HttpServer::OnAsync);
  uv_timer_init(loop_.loop(), &drain_timer_);
  drain_timer_.data = this;
  loop_.set_busy_poll_us(options_.busy_poll_us);
  loop_.Start(mailbox_.get(), "gebe-http");
  return port;
}

void HttpServer::OnConnection(uv_stream_t* listener, int status) {
  auto* server = static_cast<HttpServer*>(listener->data);
  if (status != 0 || server->draining_) return;
  uint64_t id = server->next_connection_id_++;
  auto* connection = new HttpConnection(server, id);
  bool full = server->connections_.size() >= server->options_.max_connections;
  // On failure the connection closes and frees itself.
  if (!connection->Accept(listener)) return;
  server->connections_.emplace(id, connection);
  // Over the limit: a polite 503 and a close, instead of running out of file descriptors.
  if (full) connection->Refuse(503, server->options_.full_message);
}

void HttpServer::OnAsync(uv_async_t* async) {
  auto* server = static_cast<HttpServer*>(async->data);
  server->DeliverResponses();
  if (server->loop_.close_requested() && !server->draining_) server->StartDrain();
}

void HttpServer::DeliverResponses() {
  std::vector<ResponseItem> items = mailbox_->Take();
  for (auto& item : items) {
    auto it = connections_.find(item.connection_id);
    if (it != connections_.end()) it->second->Deliver(item.request_seq, std::move(item.response));
    // else: the client went away; its request was counted as answered when it did.
  }
  loop_.KeepPolling();
}

Respond HttpServer::MakeRespond(uint64_t connection_id, uint64_t request_seq, std::shared_ptr<HttpRequest> request) {
  std::shared_ptr<ResponseMailbox> mailbox = mailbox_;
  return [mailbox, connection_id, request_seq, request](HttpResponse response) {
    mailbox->Post(ResponseItem{connection_id, request_seq, std::move(response)});
  };
}

std::shared_ptr<std::vector<uint8_t>> HttpServer::NewBody() {
  return body_budget_.Adopt(new std::vector<uint8_t>(), [](const std::vector<uint8_t>& body) { return body.capacity(); },
                            recycled_bodies_);
}

void HttpServer::CountAnswered() {
  answered_.fetch_add(1, std::memory_order_relaxed);
  if (draining_) CheckDrained();
}

void HttpServer::Forget(uint64_t connection_id) {
  connections_.erase(connection_id);
  if (draining_) CheckDrained();
}

void HttpServer::StartDrain() {
  draining_ = true;
  loop_.CloseListener();
  uv_timer_start(&drain_timer_, &HttpServer::OnDrainTimeout, loop_.close_timeout_ms(), 0);
  // Requests in flight finish with Connection: close; requests still arriving are read to the end
  // and answered the same way; idle keep-alive connections close, unless a request is already
  // waiting in their socket (sent before the signal), which is then answered too.
  CloseIdle();
  CheckDrained();
}

void HttpServer::CloseIdle() {
  checking_ = true;
  ForEachConnection(connections_, [](HttpConnection* c) { c->CloseWhenIdle(); });
  checking_ = false;
}

void HttpServer::CheckDrained() {
  // Closing a connection calls back here (Forget); the flag keeps that from recursing.
  if (closed_all_ || checking_) return;
  if (accepted() == answered()) CloseIdle();
  if (connections_.empty()) CloseEverything();
}

void HttpServer::OnDrainTimeout(uv_timer_t* timer) {
  auto* server = static_cast<HttpServer*>(timer->data);
  server->checking_ = true;
  ForEachConnection(server->connections_, [](HttpConnection* c) { c->Close(); });
  server->checking_ = false;
  server->CloseEverything();
}

void HttpServer::CloseEverything() {
  if (closed_all_) return;
  closed_all_ = true;
  mailbox_->Detach();
  loop_.CloseAsync();
  uv_close(reinterpret_cast<uv_handle_t*>(&drain_timer_), nullptr);
  // The connections' own handles close on their own; uv_run returns once all are closed.
}

}  // namespace gebe
