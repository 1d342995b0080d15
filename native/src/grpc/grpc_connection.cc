#include "grpc/grpc_connection.h"

#include <cstring>
#include <string_view>

#include "grpc/message_compression.h"

namespace gebe {

namespace {

// Bytes handed to the socket and not yet written; past it nghttp2 is not asked for more frames
// until the client reads (a client that never reads holds at most this much of its answers).
constexpr size_t kMaxWriting = 4u << 20;
// Flow-control windows: large enough that one connection carries 16 streams of MNIST-sized (and
// much larger) tensors without waiting for WINDOW_UPDATEs; received bytes are bounded by the
// message limit and the in-flight budget, not by the window.
constexpr uint32_t kStreamWindow = 1u << 20;
constexpr int32_t kConnectionWindow = 16 << 20;

struct WriteReq {
  uv_write_t req;
  std::string data;
  GrpcConnection* connection;
};

nghttp2_nv Nv(std::string_view name, std::string_view value) {
  return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())), reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())),
                    name.size(), value.size(), NGHTTP2_NV_FLAG_NONE};
}

bool IsGrpcContentType(std::string_view ct) {
  constexpr std::string_view base = "application/grpc";
  if (ct.substr(0, base.size()) != base) return false;
  return ct.size() == base.size() || ct[base.size()] == '+' || ct[base.size()] == ';';
}

}  // namespace

// The payload of the server's keepalive pings: an ACK that echoes it answers one of them.
constexpr uint8_t kKeepalivePing[8] = {'g', 'e', 'b', 'e', 'k', 'e', 'e', 'p'};

GrpcConnection::GrpcConnection(GrpcServer* server, uint64_t id)
    : server_(server), id_(id), keepalive_(server->options().keepalive) {}

bool GrpcConnection::Accept(uv_stream_t* listener) {
  uv_tcp_init(server_->loop(), &client_);
  client_.data = this;
  open_handles_ = 1;
  if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(&client_)) != 0) {
    closing_ = true;
    uv_close(reinterpret_cast<uv_handle_t*>(&client_), &GrpcConnection::OnClosed);
    return false;
  }
  uv_tcp_nodelay(&client_, 1);

  static nghttp2_session_callbacks* callbacks = [] {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_send_callback(cb, &GrpcConnection::OnSend);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, &GrpcConnection::OnBeginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(cb, &GrpcConnection::OnHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &GrpcConnection::OnFrameRecv);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, &GrpcConnection::OnFrameSend);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &GrpcConnection::OnDataChunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, &GrpcConnection::OnStreamClose);
    return cb;
  }();
  nghttp2_session_server_new(&session_, callbacks, this);
  const GrpcServerOptions& o = server_->options();
  nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, o.max_concurrent_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kStreamWindow},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, uint32_t(o.max_metadata_bytes)},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 3);
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, kConnectionWindow);
  uv_timer_init(server_->loop(), &keepalive_timer_);
  keepalive_timer_.data = this;
  open_handles_ = 2;
  uv_timer_start(&keepalive_timer_, &GrpcConnection::OnKeepaliveTimer, o.keepalive.time_ms, 0);
  uv_read_start(reinterpret_cast<uv_stream_t*>(&client_), &GrpcConnection::OnAlloc, &GrpcConnection::OnRead);
  Flush();
  return true;
}

void GrpcConnection::OnKeepaliveTimer(uv_timer_t* timer) {
  auto* self = static_cast<GrpcConnection*>(timer->data);
  if (self->closing_) return;
  const KeepaliveOptions& o = self->server_->options().keepalive;
  if (self->keepalive_.awaiting_ack()) {
    // No PING ACK within the keepalive timeout: the client or the path is gone. As gRPC does, the
    // connection closes, and its calls are cancelled.
    self->Close();
    return;
  }
  if (!self->keepalive_.ShouldPing(self->streams_.empty())) {
    uv_timer_start(timer, &GrpcConnection::OnKeepaliveTimer, o.time_ms, 0);
    return;
  }
  nghttp2_submit_ping(self->session_, NGHTTP2_FLAG_NONE, kKeepalivePing);
  self->keepalive_.OnPingSent();
  uv_timer_start(timer, &GrpcConnection::OnKeepaliveTimer, o.timeout_ms, 0);
  self->Flush();
}

void GrpcConnection::OnPing(const nghttp2_ping& ping) {
  if ((ping.hd.flags & NGHTTP2_FLAG_ACK) != 0) {
    if (!keepalive_.awaiting_ack() || std::memcmp(ping.opaque_data, kKeepalivePing, sizeof kKeepalivePing) != 0) return;
    keepalive_.OnPingAcknowledged();
    uv_timer_start(&keepalive_timer_, &GrpcConnection::OnKeepaliveTimer, server_->options().keepalive.time_ms, 0);
    return;
  }
  // nghttp2 acknowledges the ping itself; here it is only counted against the ping policy.
  if (!keepalive_.OnPingReceived(uv_now(server_->loop()), streams_.empty())) return;
  static constexpr char kDebug[] = "too_many_pings";
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_ENHANCE_YOUR_CALM,
                        reinterpret_cast<const uint8_t*>(kDebug), sizeof kDebug - 1);
  fatal_ = true;  // the GOAWAY is written, then the connection closes (open calls are cancelled)
}

void GrpcConnection::OnAlloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  auto* self = static_cast<GrpcConnection*>(handle->data);
  buf->base = self->server_->read_buffer();
  buf->len = GrpcServer::kReadBufferSize;
}

void GrpcConnection::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<GrpcConnection*>(stream->data);
  if (self->closing_) return;
  if (nread < 0) {
    // The client closed or the socket failed: its calls still open are cancelled.
    self->Close();
    return;
  }
  if (nread == 0) return;
  const ssize_t rv = nghttp2_session_mem_recv(self->session_, reinterpret_cast<const uint8_t*>(buf->base), size_t(nread));
  if (rv < 0) {
    // Bad frames, a flood, a wrong preface: nghttp2 has queued a GOAWAY where one applies.
    self->fatal_ = true;
    uv_read_stop(stream);
  }
  self->Flush();
}

ssize_t GrpcConnection::OnSend(nghttp2_session*, const uint8_t* data, size_t length, int, void* user) {
  auto* self = static_cast<GrpcConnection*>(user);
  if (!self->pending_out_.empty() && self->writing_ + self->pending_out_.size() + length > kMaxWriting) return NGHTTP2_ERR_WOULDBLOCK;
  self->pending_out_.append(reinterpret_cast<const char*>(data), length);
  return ssize_t(length);
}

void GrpcConnection::Flush() {
  if (closing_) return;
  for (;;) {
    if (writing_ < kMaxWriting && nghttp2_session_send(session_) != 0) fatal_ = true;
    if (pending_out_.empty()) break;
    if (writing_ == 0) {
      // Usually the socket takes it all at once: no write request, no callback; then nghttp2 may
      // have more (it stops at kMaxWriting), so go round again.
      uv_buf_t now = uv_buf_init(pending_out_.data(), unsigned(pending_out_.size()));
      const int written = uv_try_write(reinterpret_cast<uv_stream_t*>(&client_), &now, 1);
      if (written < 0 && written != UV_EAGAIN) return Close();
      if (written > 0) pending_out_.erase(0, size_t(written));
      if (pending_out_.empty()) continue;
    }
    auto* w = new WriteReq;
    w->data.swap(pending_out_);
    w->connection = this;
    w->req.data = w;
    writing_ += w->data.size();
    uv_buf_t buf = uv_buf_init(w->data.data(), unsigned(w->data.size()));
    if (uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&client_), &buf, 1, &GrpcConnection::OnWrite) != 0) {
      writing_ -= w->data.size();
      delete w;
      Close();
      return;
    }
    break;  // the write's callback flushes again
  }
  CloseIfDone();
}

void GrpcConnection::OnWrite(uv_write_t* req, int status) {
  auto* w = static_cast<WriteReq*>(req->data);
  GrpcConnection* self = w->connection;
  self->writing_ -= w->data.size();
  delete w;
  if (self->closing_) return;
  if (status < 0) {
    self->Close();
    return;
  }
  self->Flush();
}

void GrpcConnection::CloseIfDone() {
  if (closing_ || writing_ > 0 || !pending_out_.empty()) return;
  if (fatal_ || (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_))) Close();
}

void GrpcConnection::Close() {
  if (closing_) return;
  closing_ = true;
  for (auto& [id, s] : streams_) {
    s->cancel->Cancel(FailureReason::kCancelled);
    Uncharge(s.get());
  }
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&client_));
  uv_close(reinterpret_cast<uv_handle_t*>(&client_), &GrpcConnection::OnClosed);
  if (open_handles_ == 2) uv_close(reinterpret_cast<uv_handle_t*>(&keepalive_timer_), &GrpcConnection::OnClosed);
}

void GrpcConnection::OnClosed(uv_handle_t* handle) {
  auto* self = static_cast<GrpcConnection*>(handle->data);
  if (--self->open_handles_ > 0) return;
  if (self->session_ != nullptr) nghttp2_session_del(self->session_);  // no callbacks from here on
  self->streams_.clear();
  GrpcServer* server = self->server_;
  const uint64_t id = self->id_;
  delete self;
  server->Forget(id);
}

GrpcConnection::Stream* GrpcConnection::Find(int32_t stream_id) {
  auto it = streams_.find(stream_id);
  return it == streams_.end() ? nullptr : it->second.get();
}

int GrpcConnection::OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<GrpcConnection*>(user);
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  auto& stream = self->streams_[frame->hd.stream_id];
  stream = std::make_unique<Stream>(frame->hd.stream_id, size_t(self->server_->options().max_request_bytes), self->server_->recycled_messages());
  if (TracingOn()) stream->read_start_ns = SteadyNowNs();
  return 0;
}

int GrpcConnection::OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen, const uint8_t* value,
                             size_t valuelen, uint8_t, void* user) {
  auto* self = static_cast<GrpcConnection*>(user);
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;  // client trailers: ignored
  Stream* s = self->Find(frame->hd.stream_id);
  if (s == nullptr) return 0;
  s->header_bytes += namelen + valuelen + 32;  // HPACK's accounting of a header's size
  if (s->header_bytes > self->server_->options().max_metadata_bytes) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // resets the stream
  const std::string_view n(reinterpret_cast<const char*>(name), namelen);
  const std::string_view v(reinterpret_cast<const char*>(value), valuelen);
  if (n == ":method") s->method = v;
  else if (n == ":path") s->path = v;
  else if (n == "content-type") s->content_type = v;
  else if (n == "grpc-encoding") s->encoding = v;
  else if (n == "grpc-accept-encoding") s->accept_encoding = v;
  else if (n == "grpc-timeout") s->has_timeout = ParseGrpcTimeout(v, &s->timeout_us);  // malformed: no deadline, as grpc does
  else if (!n.empty() && n[0] != ':' && n != "te" && n != "user-agent" && n != "grpc-accept-encoding" && n != "content-length") {
    s->metadata.emplace_back(n, v);
  }
  return 0;
}

int GrpcConnection::OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<GrpcConnection*>(user);
  if (frame->hd.type == NGHTTP2_PING) {
    self->OnPing(frame->ping);
    return 0;
  }
  if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
  Stream* s = self->Find(frame->hd.stream_id);
  if (s == nullptr) return 0;
  if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) self->OnRequestHeaders(s);
  if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) self->OnRemoteEnd(s);
  return 0;
}

int GrpcConnection::OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* self = static_cast<GrpcConnection*>(user);
  if (frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS) self->keepalive_.OnDataOrHeadersSent();
  // The status went out while the client is still sending: tell it to stop (as grpc does).
  if (frame->hd.type != NGHTTP2_HEADERS || (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) return 0;
  Stream* s = self->Find(frame->hd.stream_id);
  if (s != nullptr && !s->remote_closed) nghttp2_submit_rst_stream(self->session_, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_NO_ERROR);
  return 0;
}

void GrpcConnection::OnRequestHeaders(Stream* s) {
  if (s->method != "POST") return AnswerHttpError(s, "405");
  if (!IsGrpcContentType(s->content_type)) return AnswerHttpError(s, "415");
  if (ParseGrpcEncoding(s->encoding) == GrpcEncoding::kUnsupported) {
    return Finish(s, GrpcCode::kUnimplemented,
                  "grpc-encoding '" + s->encoding + "' is not supported by gebe serve; send messages with identity, deflate or gzip");
  }
  s->streaming = s->path == kStreamInferPath;
  if (s->streaming && server_->options().announce_streams) {
    auto call = std::make_unique<GrpcJsCall>();
    call->connection_id = id_;
    call->stream_id = s->id;
    call->path = s->path;
    call->metadata = s->metadata;
    server_->HandToJs(std::move(call));
  }
  if (s->has_timeout) {
    const uint64_t ms = (std::min<uint64_t>(s->timeout_us, uint64_t(1) << 50) + 999) / 1000;
    server_->AddDeadline(uv_now(server_->loop()) + ms, id_, s->id);
  }
}

int GrpcConnection::OnDataChunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len, void* user) {
  auto* self = static_cast<GrpcConnection*>(user);
  Stream* s = self->Find(stream_id);
  if (s == nullptr || s->finishing || s->finished) return 0;  // bytes after the answer are dropped
  size_t pos = 0;
  while (pos < len) {
    const MessageFramer::Event event = s->framer.Feed(data, len, &pos);
    const size_t held = s->framer.held();
    if (held > s->charged) {
      if (!self->server_->Charge(held - s->charged)) {
        s->framer.Reset();
        self->Uncharge(s);
        self->Finish(s, GrpcCode::kUnavailable, self->server_->options().busy_message);
        return 0;
      }
      s->charged = held;
    }
    switch (event) {
      case MessageFramer::Event::kNeedMore:
        return 0;
      case MessageFramer::Event::kTooLarge: {
        const std::string text = "Received message larger than max (" + std::to_string(s->framer.declared()) + " vs. " +
                                 std::to_string(self->server_->options().max_request_bytes) + ")";
        s->framer.Reset();
        self->Uncharge(s);
        self->Finish(s, GrpcCode::kResourceExhausted, text);
        return 0;
      }
      case MessageFramer::Event::kMessage: {
        if (s->framer.compressed() && !self->Inflate(s)) return 0;
        std::shared_ptr<std::string> message = self->server_->AdoptMessage(std::move(s->framer.message()), s->charged);
        s->charged = 0;
        s->framer.Reset();
        if (s->streaming) {
          self->Dispatch(s, std::move(message));
        } else if (s->unary_message) {
          self->Finish(s, GrpcCode::kInternal, "the call sent more than one request message to " + s->path + ", which takes one");
          return 0;
        } else {
          s->unary_message = std::move(message);
        }
        break;
      }
    }
  }
  return 0;
}

void GrpcConnection::OnRemoteEnd(Stream* s) {
  s->remote_closed = true;
  if (s->finishing || s->finished) return;
  if (!s->framer.idle()) {
    return Finish(s, GrpcCode::kInternal, "the call ended inside a request message (" + s->path + ")");
  }
  if (s->streaming) {
    if (s->outstanding == 0) Finish(s, GrpcCode::kOk, "");
    return;
  }
  if (!s->unary_message) return Finish(s, GrpcCode::kInternal, "the call ended without a request message (" + s->path + ")");
  s->dispatched_unary = true;
  Dispatch(s, std::move(s->unary_message));
}

void GrpcConnection::Dispatch(Stream* s, std::shared_ptr<std::string> message) {
  ++s->outstanding;
  const int64_t read_start_ns = s->read_start_ns;
  // A stream's next message is waited for from now.
  s->read_start_ns = TracingOn() ? SteadyNowNs() : 0;
  server_->KeepPolling();
  GrpcInferRoute* route = server_->route();
  if (route != nullptr && (s->streaming || s->path == kInferPath)) {
    std::shared_ptr<GrpcMailbox> mailbox = server_->mailbox();
    const uint64_t connection_id = id_;
    const int32_t stream_id = s->id;
    auto reply = [mailbox, connection_id, stream_id](GrpcAnswer answer) {
      answer.connection_id = connection_id;
      answer.stream_id = stream_id;
      mailbox->Post(std::move(answer));
    };
    std::string_view traceparent;  // looked for only while something is traced
    if (TracingOn()) {
      for (const auto& [name, value] : s->metadata) if (name == "traceparent") traceparent = value;
    }
    if (route->TryHandle(message, s->streaming, s->cancel, std::move(reply), read_start_ns, traceparent)) return;
  }
  if (!s->cancel->notify) {
    // JS holds the call now: if it goes away before JS answers, JS hears of it (after the call
    // itself, through the same queue) and cancels what it still queues.
    GrpcServer* server = server_;
    const uint64_t connection_id = id_;
    const int32_t stream_id = s->id;
    CallCancel* cancel = s->cancel.get();  // owns this function
    s->cancel->notify = [server, connection_id, stream_id, cancel] {
      auto gone = std::make_unique<GrpcJsCall>();
      gone->connection_id = connection_id;
      gone->stream_id = stream_id;
      gone->cancelled = TraitsOf(cancel->Reason()).grpc_code;  // JS takes the gRPC code
      server->HandToJs(std::move(gone));
    };
  }
  auto call = std::make_unique<GrpcJsCall>();
  call->connection_id = id_;
  call->stream_id = s->id;
  call->path = s->path;
  call->message = std::move(message);
  call->metadata = s->metadata;
  if (read_start_ns != 0) {
    call->read_start_ns = read_start_ns;
    call->read_end_ns = SteadyNowNs();
  }
  server_->HandToJs(std::move(call));
}

void GrpcConnection::Deliver(GrpcAnswer answer) {
  Stream* s = Find(answer.stream_id);
  if (s == nullptr || s->finishing || s->finished) return;  // reset, expired or answered already
  if (s->outstanding > 0 && !answer.more) --s->outstanding;
  if (!answer.framed.empty() && !QueueMessage(s, std::move(answer.framed))) return;
  if (answer.final || answer.code != GrpcCode::kOk) {
    Finish(s, answer.code, std::move(answer.message));
  } else if (s->remote_closed && s->outstanding == 0) {
    Finish(s, GrpcCode::kOk, "");
  }
}

void GrpcConnection::Expire(int32_t stream_id) {
  Stream* s = Find(stream_id);
  if (s == nullptr || s->finishing || s->finished) return;
  s->cancel->Cancel(FailureReason::kDeadlineExceeded);
  Finish(s, GrpcCode::kDeadlineExceeded, CancelledMessage(FailureReason::kDeadlineExceeded));
  Flush();
}

void GrpcConnection::GoAway() {
  if (closing_) return;
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR, nullptr, 0);
  Flush();
}

void GrpcConnection::Finish(Stream* s, GrpcCode code, std::string message) {
  if (s->finishing || s->finished) return;
  s->finishing = true;
  s->code = code;
  s->status_message = std::move(message);
  if (!s->response_started && s->out.empty()) return SubmitTrailersOnly(s);
  if (!s->response_started) return StartResponse(s);
  if (s->deferred) {
    s->deferred = false;
    nghttp2_session_resume_data(session_, s->id);
  }
}

bool GrpcConnection::QueueMessage(Stream* s, std::string framed) {
  if (!s->response_started && (s->path == kInferPath || s->path == kStreamInferPath)) {
    // Triton's --grpc-infer-response-compression-level: infer responses only, in what the client takes.
    s->response_encoding = ResponseEncoding(server_->options().response_compression, s->accept_encoding);
  }
  if (s->response_encoding != GrpcEncoding::kIdentity && framed.size() > 5) {
    // A message that could not be deflated goes as it is (flag 0 says so, whatever grpc-encoding says).
    std::string compressed = DeflateFrame(std::string_view(framed).substr(5), s->response_encoding);
    if (!compressed.empty()) framed = std::move(compressed);
  }
  if (server_->options().PassesUnsentBound(unsent_, framed.size())) {
    // The client has left this much unread (it sends no WINDOW_UPDATE, or reads nothing): the
    // call's request is cancelled, and what it has not begun to receive is dropped (a message
    // half sent stays: its frame must be completed before the trailers).
    s->cancel->Cancel(FailureReason::kCancelled);
    while (s->out.size() > (s->out_offset > 0 ? 1u : 0u)) {
      Take(s, s->out.back().size());
      s->out.pop_back();
    }
    Finish(s, GrpcCode::kResourceExhausted, server_->options().unsent_message);
    return false;
  }
  unsent_ += framed.size();
  s->unsent += framed.size();
  s->out.push_back(std::move(framed));
  if (!s->response_started) {
    StartResponse(s);
  } else if (s->deferred) {
    s->deferred = false;
    nghttp2_session_resume_data(session_, s->id);
  }
  return true;
}

void GrpcConnection::Take(Stream* s, size_t bytes) {
  s->unsent -= bytes;
  unsent_ -= bytes;
}

void GrpcConnection::StartResponse(Stream* s) {
  s->response_started = true;
  const char* encoding = s->response_encoding == GrpcEncoding::kGzip ? "gzip" : s->response_encoding == GrpcEncoding::kDeflate ? "deflate" : nullptr;
  nghttp2_nv headers[] = {Nv(":status", "200"), Nv("content-type", "application/grpc"), Nv("grpc-accept-encoding", kGrpcAcceptEncoding),
                          Nv("grpc-encoding", encoding != nullptr ? encoding : "identity")};
  nghttp2_data_provider provider{};
  provider.read_callback = &GrpcConnection::ReadData;
  nghttp2_submit_response(session_, s->id, headers, encoding != nullptr ? 4 : 3, &provider);
}

ssize_t GrpcConnection::ReadData(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length, uint32_t* data_flags,
                                 nghttp2_data_source*, void* user) {
  auto* self = static_cast<GrpcConnection*>(user);
  Stream* s = self->Find(stream_id);
  if (s == nullptr) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  size_t n = 0;
  while (n < length && !s->out.empty()) {
    std::string& front = s->out.front();
    const size_t take = std::min(length - n, front.size() - s->out_offset);
    std::memcpy(buf + n, front.data() + s->out_offset, take);
    n += take;
    self->Take(s, take);
    s->out_offset += take;
    if (s->out_offset == front.size()) {
      s->out.pop_front();
      s->out_offset = 0;
    }
  }
  if (!s->out.empty()) return ssize_t(n);
  if (s->finishing) {
    *data_flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
    const std::string code = std::to_string(int(s->code));
    const std::string message = PercentEncodeGrpcMessage(s->status_message);
    nghttp2_nv trailers[] = {Nv("grpc-status", code), Nv("grpc-message", message)};
    nghttp2_submit_trailer(self->session_, stream_id, trailers, message.empty() ? 1 : 2);
    s->finished = true;
    return ssize_t(n);
  }
  if (n > 0) return ssize_t(n);
  s->deferred = true;
  return NGHTTP2_ERR_DEFERRED;
}

void GrpcConnection::SubmitTrailersOnly(Stream* s) {
  s->response_started = true;
  s->finished = true;
  const std::string code = std::to_string(int(s->code));
  const std::string message = PercentEncodeGrpcMessage(s->status_message);
  nghttp2_nv headers[] = {Nv(":status", "200"), Nv("content-type", "application/grpc"), Nv("grpc-accept-encoding", kGrpcAcceptEncoding),
                          Nv("grpc-status", code), Nv("grpc-message", message)};
  nghttp2_submit_response(session_, s->id, headers, message.empty() ? 4 : 5, nullptr);
}

void GrpcConnection::AnswerHttpError(Stream* s, const char* status) {
  s->response_started = true;
  s->finishing = true;
  s->finished = true;
  nghttp2_nv headers[] = {Nv(":status", status)};
  nghttp2_submit_response(session_, s->id, headers, 1, nullptr);
}

int GrpcConnection::OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t, void* user) {
  auto* self = static_cast<GrpcConnection*>(user);
  auto it = self->streams_.find(stream_id);
  if (it == self->streams_.end()) return 0;
  Stream* s = it->second.get();
  if (!s->finished) {
    // Reset by the client (or the session ended) before its answer: a queued request is cancelled.
    s->cancel->Cancel(FailureReason::kCancelled);
  }
  self->Uncharge(s);
  self->Take(s, s->unsent);
  self->streams_.erase(it);
  return 0;
}

bool GrpcConnection::Inflate(Stream* s) {
  const GrpcEncoding encoding = ParseGrpcEncoding(s->encoding);
  auto fail = [&](GrpcCode code, const std::string& text) {
    s->framer.Reset();
    Uncharge(s);
    Finish(s, code, text);
    return false;
  };
  if (encoding == GrpcEncoding::kIdentity) {
    return fail(GrpcCode::kInternal, "a request message has the compressed flag set but the call's grpc-encoding is identity; "
                                     "compress it with the call's grpc-encoding (deflate or gzip), or send it uncompressed");
  }
  const size_t max = server_->options().max_request_bytes;
  std::string inflated, error;
  switch (InflateMessage(s->framer.message(), encoding, max, &inflated, &error)) {
    case InflateStatus::kTooLarge:
      return fail(GrpcCode::kResourceExhausted, "Received message larger than max (more than " + std::to_string(max) + " bytes once decompressed, vs. " +
                                                    std::to_string(max) + ")");
    case InflateStatus::kCorrupt:
      return fail(GrpcCode::kInternal, "a request message could not be decompressed with " + s->encoding + ": " + error);
    case InflateStatus::kOk:
      break;
  }
  // The inflated message takes the compressed one's place in the in-flight budget.
  if (!server_->Charge(inflated.capacity())) return fail(GrpcCode::kUnavailable, server_->options().busy_message);
  Uncharge(s);
  s->charged = inflated.capacity();
  s->framer.message() = std::move(inflated);
  return true;
}

void GrpcConnection::Uncharge(Stream* s) {
  if (s->charged > 0) server_->Refund(s->charged);
  s->charged = 0;
}

}  // namespace gebe
