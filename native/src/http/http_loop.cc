#include "http/http_loop.h"

#include <utility>

#include "http/http_connection.h"
#include "net/connection_list.h"
#include "net/listen_address.h"

namespace gebe {

int HttpLoop::Open(int port, PortSharing sharing) {
  const HttpServerOptions& o = options();
  const int bound = loop_.Open(o.host, port, sharing, this, &HttpLoop::OnConnection, &HttpLoop::OnAsync);
  uv_timer_init(loop_.loop(), &drain_timer_);
  drain_timer_.data = this;
  loop_.set_busy_poll_us(o.busy_poll_us);
  return bound;
}

// Every loop of a server has this name: `top -H` and /proc/<pid>/task/*/comm count them.
void HttpLoop::Start() { loop_.Start(mailbox_.get(), "gebe-http"); }

void HttpLoop::OnConnection(uv_stream_t* listener, int status) {
  auto* self = static_cast<HttpLoop*>(listener->data);
  if (status != 0 || self->draining_) return;
  uint64_t id = self->next_connection_id_++;
  auto* connection = new HttpConnection(self, id);
  // On failure the connection closes and frees itself.
  if (!connection->Accept(listener)) return;
  self->connections_.emplace(id, connection);
  // Over the limit (counted across every loop): a polite 503 and a close, instead of running out
  // of file descriptors. It counts as open until it has closed (Forget).
  if (!self->shared_->AdmitConnection()) connection->Refuse(503, self->options().full_message);
}

void HttpLoop::OnAsync(uv_async_t* async) {
  auto* self = static_cast<HttpLoop*>(async->data);
  self->DeliverResponses();
  if (self->loop_.close_requested() && !self->draining_) self->StartDrain();
}

void HttpLoop::DeliverResponses() {
  std::vector<ResponseItem> items = mailbox_->Take();
  for (auto& item : items) {
    auto it = connections_.find(item.connection_id);
    if (it != connections_.end()) it->second->Deliver(item.request_seq, std::move(item.response));
    // else: the client went away; its request was counted as answered when it did.
  }
  loop_.KeepPolling();
}

Respond HttpLoop::MakeRespond(uint64_t connection_id, uint64_t request_seq, std::shared_ptr<HttpRequest> request) {
  std::shared_ptr<ResponseMailbox> mailbox = mailbox_;
  return [mailbox, connection_id, request_seq, request](HttpResponse response) {
    mailbox->Post(ResponseItem{connection_id, request_seq, std::move(response)});
  };
}

std::shared_ptr<std::vector<uint8_t>> HttpLoop::NewBody() {
  return shared_->body_budget().Adopt(new std::vector<uint8_t>(), [](const std::vector<uint8_t>& body) { return body.capacity(); },
                                      recycled_bodies_);
}

void HttpLoop::CountAnswered() {
  answered_.fetch_add(1, std::memory_order_relaxed);
  if (draining_) CheckDrained();
}

void HttpLoop::Forget(uint64_t connection_id) {
  // A connection whose accept failed was never in the map, nor counted.
  if (connections_.erase(connection_id) != 0) shared_->ConnectionClosed();
  if (draining_) CheckDrained();
}

void HttpLoop::StartDrain() {
  draining_ = true;
  loop_.CloseListener();
  uv_timer_start(&drain_timer_, &HttpLoop::OnDrainTimeout, loop_.close_timeout_ms(), 0);
  // Requests in flight finish with Connection: close; requests still arriving are read to the end
  // and answered the same way; idle keep-alive connections close, unless a request is already
  // waiting in their socket (sent before the signal), which is then answered too.
  CloseIdle();
  CheckDrained();
}

void HttpLoop::CloseIdle() {
  checking_ = true;
  ForEachConnection(connections_, [](HttpConnection* c) { c->CloseWhenIdle(); });
  checking_ = false;
}

void HttpLoop::CheckDrained() {
  // Closing a connection calls back here (Forget); the flag keeps that from recursing.
  if (closed_all_ || checking_) return;
  // This loop's own counts: its connections are all it drains.
  if (accepted() == answered()) CloseIdle();
  if (connections_.empty()) CloseEverything();
}

void HttpLoop::OnDrainTimeout(uv_timer_t* timer) {
  auto* self = static_cast<HttpLoop*>(timer->data);
  self->checking_ = true;
  ForEachConnection(self->connections_, [](HttpConnection* c) { c->Close(); });
  self->checking_ = false;
  self->CloseEverything();
}

void HttpLoop::CloseEverything() {
  if (closed_all_) return;
  closed_all_ = true;
  mailbox_->Detach();
  loop_.CloseAsync();
  uv_close(reinterpret_cast<uv_handle_t*>(&drain_timer_), nullptr);
  // The connections' own handles close on their own; uv_run returns once all are closed.
}

}  // namespace gebe
