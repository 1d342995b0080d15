#include "grpc/grpc_server.h"

#include <cstring>
#include <unordered_set>
#include <utility>

#include "grpc/grpc_connection.h"
#include "net/listen_address.h"
#include "scheduler/scheduled_request.h"

namespace gebe {

void GrpcMailbox::Post(GrpcAnswer answer) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (async == nullptr) return;  // the server is gone: nobody to answer
    items.push_back(std::move(answer));
  }
  // Answers of one finished batch wake the loop once (see NativeAnswerBatch).
  NativeAnswerBatch::Defer(shared_from_this(), &GrpcMailbox::Wake);
}

void GrpcMailbox::Wake(const std::shared_ptr<void>& target) {
  auto* mailbox = static_cast<GrpcMailbox*>(target.get());
  std::lock_guard<std::mutex> lock(mailbox->mutex);
  if (mailbox->async != nullptr) uv_async_send(mailbox->async);
}

GrpcServer::GrpcServer(GrpcServerOptions options, std::shared_ptr<GrpcInferRoute> route, JsHandler js)
    : options_(std::move(options)), route_(std::move(route)), js_(std::move(js)) {}

GrpcServer::~GrpcServer() {
  if (thread_started_ && !joined_) {
    BeginClose(0);
    Join();
  } else if (loop_initialized_ && !thread_started_) {
    uv_walk(&loop_, [](uv_handle_t* h, void*) { if (!uv_is_closing(h)) uv_close(h, nullptr); }, nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  }
}

int GrpcServer::Listen() {
  sockaddr_storage addr = ResolveListenAddress(options_.host, options_.port);
  int rc = uv_loop_init(&loop_);
  if (rc != 0) throw MakeListenError(rc, "uv_loop_init");
  loop_initialized_ = true;
  uv_tcp_init(&loop_, &listener_);
  listener_.data = this;
  rc = uv_tcp_bind(&listener_, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&listener_), 511, &GrpcServer::OnConnection);
  if (rc != 0) throw MakeListenError(rc, "listen " + options_.host + ":" + std::to_string(options_.port));
  const int port = BoundPort(&listener_);
  uv_async_init(&loop_, &async_, &GrpcServer::OnAsync);
  async_.data = this;
  for (uv_timer_t* t : {&grace_timer_, &drain_timer_, &deadline_timer_}) {
    uv_timer_init(&loop_, t);
    t->data = this;
  }
  {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    mailbox_->async = &async_;
  }
  rc = uv_thread_create(&thread_, &GrpcServer::ThreadMain, this);
  if (rc != 0) {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    mailbox_->async = nullptr;
    throw MakeListenError(rc, "uv_thread_create");
  }
  thread_started_ = true;
  return port;
}

void GrpcServer::ThreadMain(void* self) {
  auto* server = static_cast<GrpcServer*>(self);
  uv_run(&server->loop_, UV_RUN_DEFAULT);
  uv_run(&server->loop_, UV_RUN_NOWAIT);
  uv_loop_close(&server->loop_);
}

void GrpcServer::BeginClose(uint64_t timeout_ms) {
  close_timeout_ms_.store(timeout_ms);
  close_requested_.store(true);
  std::lock_guard<std::mutex> lock(mailbox_->mutex);
  if (mailbox_->async != nullptr) uv_async_send(mailbox_->async);
}

void GrpcServer::Join() {
  if (thread_started_ && !joined_) {
    uv_thread_join(&thread_);
    joined_ = true;
  }
}

void GrpcServer::OnConnection(uv_stream_t* listener, int status) {
  auto* server = static_cast<GrpcServer*>(listener->data);
  if (status != 0 || server->draining_) return;
  if (server->connections_.size() >= server->options_.max_connections) {
    // Over --max-connections: closed before any HTTP/2 byte; the client sees UNAVAILABLE.
    auto* refused = new uv_tcp_t;
    uv_tcp_init(server->loop(), refused);
    uv_accept(listener, reinterpret_cast<uv_stream_t*>(refused));
    uv_close(reinterpret_cast<uv_handle_t*>(refused), [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
    server->refused_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const uint64_t id = server->next_connection_id_++;
  auto* connection = new GrpcConnection(server, id);
  server->connections_.emplace(id, connection);
  server->connection_count_.store(server->connections_.size(), std::memory_order_relaxed);
  // On failure the connection closes and forgets itself.
  connection->Accept(listener);
}

void GrpcServer::OnAsync(uv_async_t* async) {
  auto* server = static_cast<GrpcServer*>(async->data);
  server->DeliverAnswers();
  if (server->close_requested_.load() && !server->draining_) server->StartDrain();
}

void GrpcServer::DeliverAnswers() {
  std::vector<GrpcAnswer> items;
  {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    items.swap(mailbox_->items);
  }
  std::vector<GrpcConnection*> touched;
  std::unordered_set<uint64_t> seen;
  for (GrpcAnswer& item : items) {
    auto it = connections_.find(item.connection_id);
    if (it == connections_.end()) continue;  // the client went away
    it->second->Deliver(std::move(item));
    if (seen.insert(item.connection_id).second) touched.push_back(it->second);
  }
  for (GrpcConnection* c : touched) c->Flush();
}

bool GrpcServer::Charge(size_t bytes) {
  uint64_t used = inflight_->load(std::memory_order_relaxed);
  do {
    if (used + bytes > options_.max_inflight_bytes) return false;
  } while (!inflight_->compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

std::shared_ptr<std::string> GrpcServer::AdoptMessage(std::string message, size_t charged) {
  std::shared_ptr<std::atomic<uint64_t>> used = inflight_;
  return std::shared_ptr<std::string>(new std::string(std::move(message)), [used, charged](std::string* m) {
    used->fetch_sub(charged, std::memory_order_relaxed);
    delete m;
  });
}

void GrpcServer::Forget(uint64_t connection_id) {
  connections_.erase(connection_id);
  connection_count_.store(connections_.size(), std::memory_order_relaxed);
  if (draining_) CheckDrained();
}

void GrpcServer::AddDeadline(uint64_t at_ms, uint64_t connection_id, int32_t stream_id) {
  deadlines_.emplace(at_ms, std::make_pair(connection_id, stream_id));
  ArmDeadlineTimer();
}

void GrpcServer::ArmDeadlineTimer() {
  if (deadlines_.empty() || closed_all_) return;
  const uint64_t first = deadlines_.begin()->first;
  if (deadline_armed_at_ != 0 && deadline_armed_at_ <= first) return;
  deadline_armed_at_ = first;
  const uint64_t now = uv_now(&loop_);
  uv_timer_start(&deadline_timer_, &GrpcServer::OnDeadline, first > now ? first - now : 0, 0);
}

void GrpcServer::OnDeadline(uv_timer_t* timer) {
  auto* server = static_cast<GrpcServer*>(timer->data);
  server->deadline_armed_at_ = 0;
  const uint64_t now = uv_now(&server->loop_);
  while (!server->deadlines_.empty() && server->deadlines_.begin()->first <= now) {
    auto [connection_id, stream_id] = server->deadlines_.begin()->second;
    server->deadlines_.erase(server->deadlines_.begin());
    auto it = server->connections_.find(connection_id);
    if (it != server->connections_.end()) it->second->Expire(stream_id);
  }
  server->ArmDeadlineTimer();
}

void GrpcServer::StartDrain() {
  draining_ = true;
  uv_close(reinterpret_cast<uv_handle_t*>(&listener_), nullptr);
  const uint64_t timeout = close_timeout_ms_.load();
  uv_timer_start(&drain_timer_, &GrpcServer::OnDrainTimeout, timeout, 0);
  // Calls a client sent just before the stop are still taken for the grace period; a GOAWAY at
  // once would make grpc-js retry them on a new connection, which the closed listener refuses.
  uv_timer_start(&grace_timer_, &GrpcServer::OnGraceEnd, std::min(timeout, options_.drain_grace_ms), 0);
  CheckDrained();
}

void GrpcServer::OnGraceEnd(uv_timer_t* timer) {
  auto* server = static_cast<GrpcServer*>(timer->data);
  server->goaway_sent_ = true;
  server->checking_ = true;
  std::vector<GrpcConnection*> all;
  for (auto& entry : server->connections_) all.push_back(entry.second);
  // Each closes once its calls have ended and the GOAWAY is written.
  for (GrpcConnection* c : all) c->GoAway();
  server->checking_ = false;
  server->CheckDrained();
}

void GrpcServer::CheckDrained() {
  if (closed_all_ || checking_) return;
  if (connections_.empty()) CloseEverything();
}

void GrpcServer::OnDrainTimeout(uv_timer_t* timer) {
  auto* server = static_cast<GrpcServer*>(timer->data);
  server->checking_ = true;
  std::vector<GrpcConnection*> all;
  for (auto& entry : server->connections_) all.push_back(entry.second);
  for (GrpcConnection* c : all) c->Close();
  server->checking_ = false;
  server->CloseEverything();
}

void GrpcServer::CloseEverything() {
  if (closed_all_) return;
  closed_all_ = true;
  {
    std::lock_guard<std::mutex> lock(mailbox_->mutex);
    mailbox_->async = nullptr;
    mailbox_->items.clear();
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
  for (uv_timer_t* t : {&grace_timer_, &drain_timer_, &deadline_timer_}) uv_close(reinterpret_cast<uv_handle_t*>(t), nullptr);
}

}  // namespace gebe
