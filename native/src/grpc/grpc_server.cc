#include "grpc/grpc_server.h"

#include <cstring>
#include <unordered_set>
#include <utility>

#include "grpc/grpc_connection.h"
#include "net/connection_list.h"
#include "net/listen_address.h"

namespace gebe {

GrpcServer::GrpcServer(GrpcServerOptions options, std::shared_ptr<GrpcInferRoute> route, JsHandler js)
    : options_(std::move(options)), route_(std::move(route)), js_(std::move(js)), inflight_(options_.max_inflight_bytes) {}

GrpcServer::~GrpcServer() { loop_.Stop(); }

int GrpcServer::Listen() {
  const int port = loop_.Open(options_.host, options_.port, PortSharing::kAlone, this, &GrpcServer::OnConnection, &GrpcServer::OnAsync);
  for (uv_timer_t* t : {&grace_timer_, &drain_timer_, &deadline_timer_}) {
    uv_timer_init(loop_.loop(), t);
    t->data = this;
  }
  loop_.set_busy_poll_us(options_.busy_poll_us);
  loop_.Start(mailbox_.get(), "gebe-grpc");
  return port;
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
  if (server->loop_.close_requested() && !server->draining_) server->StartDrain();
}

void GrpcServer::DeliverAnswers() {
  std::vector<GrpcAnswer> items = mailbox_->Take();
  std::vector<GrpcConnection*> touched;
  std::unordered_set<uint64_t> seen;
  std::vector<std::unique_ptr<RequestTrace>> sent;  // traced answers: their send ends after the flush
  for (GrpcAnswer& item : items) {
    if (item.trace) {
      item.trace->StampNow(TraceStamp::kSendStart);
      sent.push_back(std::move(item.trace));
    }
    auto it = connections_.find(item.connection_id);
    if (it == connections_.end()) continue;  // the client went away
    it->second->Deliver(std::move(item));
    if (seen.insert(item.connection_id).second) touched.push_back(it->second);
  }
  for (GrpcConnection* c : touched) c->Flush();
  for (auto& trace : sent) {
    trace->StampNow(TraceStamp::kSendEnd);
    CollectTrace(std::move(trace));
  }
  loop_.KeepPolling();
}

std::shared_ptr<std::string> GrpcServer::AdoptMessage(std::string message, size_t charged) {
  return inflight_.Adopt(new std::string(std::move(message)), [charged](const std::string&) { return charged; }, recycled_messages_);
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
  const uint64_t now = uv_now(loop_.loop());
  uv_timer_start(&deadline_timer_, &GrpcServer::OnDeadline, first > now ? first - now : 0, 0);
}

void GrpcServer::OnDeadline(uv_timer_t* timer) {
  auto* server = static_cast<GrpcServer*>(timer->data);
  server->deadline_armed_at_ = 0;
  const uint64_t now = uv_now(server->loop_.loop());
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
  loop_.CloseListener();
  const uint64_t timeout = loop_.close_timeout_ms();
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
  // Each closes once its calls have ended and the GOAWAY is written.
  ForEachConnection(server->connections_, [](GrpcConnection* c) { c->GoAway(); });
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
  ForEachConnection(server->connections_, [](GrpcConnection* c) { c->Close(); });
  server->checking_ = false;
  server->CloseEverything();
}

void GrpcServer::CloseEverything() {
  if (closed_all_) return;
  closed_all_ = true;
  mailbox_->Detach();
  loop_.CloseAsync();
  for (uv_timer_t* t : {&grace_timer_, &drain_timer_, &deadline_timer_}) uv_close(reinterpret_cast<uv_handle_t*>(t), nullptr);
}

}  // namespace gebe
