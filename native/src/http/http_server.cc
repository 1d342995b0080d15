#include "http/http_server.h"

#include <utility>

#include "http/http_connection.h"
#include "net/listen_address.h"
#include "scheduler/scheduled_request.h"

namespace gebe {

void ResponseMailbox::Post(uint64_t connection_id, uint64_t request_seq, HttpResponse response) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (async == nullptr) return;  // the server is gone: nobody to answer
    items.push_back(Item{connection_id, request_seq, std::move(response)});
  }
  NativeAnswerBatch::Defer(shared_from_this(), &ResponseMailbox::Wake);
}

void ResponseMailbox::Wake(const std::shared_ptr<void>& target) {
  auto* mailbox = static_cast<ResponseMailbox*>(target.get());
  std::lock_guard<std::mutex> lock(mailbox->mutex);
  if (mailbox->async != nullptr) uv_async_send(mailbox->async);
}

HttpServer::HttpServer(HttpServerOptions options, std::shared_ptr<FastPath> fast_path, std::shared_ptr<RequestHandler> handler)
    : options_(std::move(options)), fast_path_(std::move(fast_path)), handler_(std::move(handler)) {}

HttpServer::~HttpServer() {
  if (thread_started_ && !joined_) {
    BeginClose(0);
    Join();
  } else if (loop_initialized_ && !thread_started_) {
    // Listen failed after the loop was made: close what exists and run the loop dry.
    uv_walk(&loop_, [](uv_handle_t* h, void*) { if (!uv_is_closing(h)) uv_close(h, nullptr); }, nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  }
}

int HttpServer::Listen() {
  if (!handler_) throw ListenError{"EINVAL", "the native HTTP server needs a request handler"};
  sockaddr_storage addr = ResolveListenAddress(options_.host, options_.port);

  int rc = uv_loop_init(&loop_);
  if (rc != 0) throw MakeListenError(rc, "uv_loop_init");
  loop_initialized_ = true;
  uv_tcp_init(&loop_, &listener_);
  listener_.data = this;
  rc = uv_tcp_bind(&listener_, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&listener_), 511, &HttpServer::OnConnection);
  if (rc != 0) throw MakeListenError(rc, "listen " + options_.host + ":" + std::to_string(options_.port));
  const int port = BoundPort(&listener_);

  uv_async_init(&loop_, &async_, &HttpServer::OnAsync);
  async_.data = this;
  uv_timer_init(&loop_, &drain_timer_);
  drain_timer_.data = this;
  {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    mailbox_->async = &async_;
  }
  rc = uv_thread_create(&thread_, &HttpServer::ThreadMain, this);
  if (rc != 0) {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    mailbox_->async = nullptr;
    throw MakeListenError(rc, "uv_thread_create");
  }
  thread_started_ = true;
  return port;
}

void HttpServer::ThreadMain(void* self) {
  auto* server = static_cast<HttpServer*>(self);
  uv_run(&server->loop_, UV_RUN_DEFAULT);
  // Everything is closed; run once more so close callbacks of the last handles complete.
  uv_run(&server->loop_, UV_RUN_NOWAIT);
  uv_loop_close(&server->loop_);
}

void HttpServer::BeginClose(uint64_t timeout_ms) {
  close_timeout_ms_.store(timeout_ms);
  close_requested_.store(true);
  std::lock_guard<std::mutex> lock(mailbox_->mutex);
  if (mailbox_->async != nullptr) uv_async_send(mailbox_->async);
}

void HttpServer::Join() {
  if (thread_started_ && !joined_) {
    uv_thread_join(&thread_);
    joined_ = true;
  }
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
  if (server->close_requested_.load() && !server->draining_) server->StartDrain();
}

void HttpServer::DeliverResponses() {
  std::vector<ResponseMailbox::Item> items;
  {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    items.swap(mailbox_->items);
  }
  for (auto& item : items) {
    auto it = connections_.find(item.connection_id);
    if (it != connections_.end()) it->second->Deliver(item.request_seq, std::move(item.response));
    // else: the client went away; its request was counted as answered when it did.
  }
}

Respond HttpServer::MakeRespond(uint64_t connection_id, uint64_t request_seq, std::shared_ptr<HttpRequest> request) {
  std::shared_ptr<ResponseMailbox> mailbox = mailbox_;
  return [mailbox, connection_id, request_seq, request](HttpResponse response) {
    mailbox->Post(connection_id, request_seq, std::move(response));
  };
}

bool HttpServer::ChargeBody(size_t bytes) {
  uint64_t used = body_bytes_->load(std::memory_order_relaxed);
  do {
    if (used + bytes > options_.max_inflight_body_bytes) return false;
  } while (!body_bytes_->compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

std::shared_ptr<std::vector<uint8_t>> HttpServer::NewBody() {
  std::shared_ptr<std::atomic<uint64_t>> used = body_bytes_;
  // The buffer may be dropped on a scheduler thread after the server is gone: the counter is shared.
  return std::shared_ptr<std::vector<uint8_t>>(new std::vector<uint8_t>(), [used](std::vector<uint8_t>* body) {
    used->fetch_sub(body->capacity(), std::memory_order_relaxed);
    delete body;
  });
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
  uv_close(reinterpret_cast<uv_handle_t*>(&listener_), nullptr);
  uv_timer_start(&drain_timer_, &HttpServer::OnDrainTimeout, close_timeout_ms_.load(), 0);
  // Requests in flight finish with Connection: close; requests still arriving are read to the end
  // and answered the same way; idle keep-alive connections close, unless a request is already
  // waiting in their socket (sent before the signal), which is then answered too.
  CloseIdle();
  CheckDrained();
}

void HttpServer::CloseIdle() {
  checking_ = true;
  // Copy: closing a connection removes it from the map.
  std::vector<HttpConnection*> all;
  for (auto& entry : connections_) all.push_back(entry.second);
  for (HttpConnection* c : all) c->CloseWhenIdle();
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
  std::vector<HttpConnection*> all;
  for (auto& entry : server->connections_) all.push_back(entry.second);
  for (HttpConnection* c : all) c->Close();
  server->checking_ = false;
  server->CloseEverything();
}

void HttpServer::CloseEverything() {
  if (closed_all_) return;
  closed_all_ = true;
  {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    mailbox_->async = nullptr;
    mailbox_->items.clear();
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&drain_timer_), nullptr);
  // The connections' own handles close on their own; uv_run returns once all are closed.
}

}  // namespace gebe
