#include "http/upstream_relay.h"

#include <cstring>

#include "http/http_connection.h"
#include "http/http_server.h"

namespace gebe {

namespace {

constexpr size_t kRelayHighWater = 4 << 20;  // client write queue above this: stop reading upstream

struct ForwardWrite {
  uv_write_t req;
  UpstreamRelay* relay;
  // The request's head and body, alive until written (the next request may be forwarded before
  // this write ends, when the JS server answered early).
  std::shared_ptr<const std::string> head;
  std::shared_ptr<std::vector<uint8_t>> body;
};

// Headers the relay regenerates or must not pass on (the body is sent joined, with a length).
bool Dropped(const std::string& name) {
  return name == "content-length" || name == "transfer-encoding" || name == "expect" || name == "connection" ||
         name == "keep-alive" || name == "upgrade";
}

}  // namespace

UpstreamRelay::UpstreamRelay(HttpServer* server, HttpConnection* connection) : server_(server), connection_(connection) {}

const llhttp_settings_t* UpstreamRelay::Settings() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_headers_complete = &UpstreamRelay::OnHeadersComplete;
    s.on_message_complete = &UpstreamRelay::OnMessageComplete;
    return s;
  }();
  return &settings;
}

void UpstreamRelay::Forward(const HttpRequest& request, bool close_after) {
  auto built = std::make_shared<std::string>();
  std::string& head = *built;
  head.reserve(256);
  head += request.method;
  head += ' ';
  head += request.url;
  head += " HTTP/1.1\r\n";
  for (const auto& h : request.headers) {
    if (Dropped(h.first)) continue;
    head += h.first;
    head += ": ";
    head += h.second;
    head += "\r\n";
  }
  // HTTP/1.0 may leave out Host; the JS server speaks HTTP/1.1 with the relay, where it is required.
  if (request.http10 && request.Header("host") == nullptr) head += "Host: localhost\r\n";
  if (close_after) head += "Connection: close\r\n";
  // A request that came without a body goes on without one (a Content-Length: 0 would make the
  // JS server see an unread body and close the connection after an error).
  if (request.body_size > 0 || request.Header("content-length") != nullptr || request.Header("transfer-encoding") != nullptr) {
    head += "Content-Length: ";
    head += std::to_string(request.body_size);
    head += "\r\n";
  }
  head += "\r\n";
  head_ = std::move(built);
  body_owner_ = request.body_owner;
  body_ = request.body;
  body_size_ = request.body_size;
  head_request_ = request.method == "HEAD";
  retried_ = false;
  active_ = true;
  relayed_ = 0;
  message_complete_ = false;
  llhttp_init(&parser_, HTTP_RESPONSE, Settings());
  parser_.data = this;
  if (upstream_ == Upstream::kOpen) {
    reused_ = true;
    Send();
  } else {
    Connect();
  }
}

void UpstreamRelay::Connect() {
  sock_ = new uv_pipe_t;
  uv_pipe_init(server_->loop(), sock_, 0);
  sock_->data = this;
  ++open_sockets_;
  upstream_ = Upstream::kConnecting;
  reused_ = false;
  auto* req = new uv_connect_t;
  req->data = this;
  // The JS server listens on a Unix socket in a private directory (no other local user reaches it).
  uv_pipe_connect(req, sock_, server_->options().upstream_path.c_str(), &UpstreamRelay::OnConnect);
}

void UpstreamRelay::OnConnect(uv_connect_t* req, int status) {
  auto* self = static_cast<UpstreamRelay*>(req->data);
  uv_stream_t* handle = req->handle;
  delete req;
  if (handle != reinterpret_cast<uv_stream_t*>(self->sock_)) return;  // closed meanwhile
  if (status < 0) {
    self->CloseUpstream();
    self->Fail(std::string("cannot connect to it: ") + uv_strerror(status));
    return;
  }
  self->upstream_ = Upstream::kOpen;
  uv_read_start(handle, &UpstreamRelay::OnAlloc, &UpstreamRelay::OnRead);
  self->Send();
}

void UpstreamRelay::Send() {
  auto* w = new ForwardWrite{uv_write_t{}, this, head_, body_owner_};
  w->req.data = w;
  uv_buf_t bufs[2] = {MakeBuf(head_->data(), head_->size()), MakeBuf(body_, body_size_)};
  int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(sock_), bufs, body_size_ > 0 ? 2 : 1, &UpstreamRelay::OnWrite);
  if (rc != 0) {
    delete w;
    CloseUpstream();
    Fail(std::string("cannot send the request: ") + uv_strerror(rc));
  }
}

void UpstreamRelay::OnWrite(uv_write_t* req, int status) {
  auto* w = static_cast<ForwardWrite*>(req->data);
  UpstreamRelay* self = w->relay;
  uv_stream_t* handle = req->handle;
  delete w;
  // A failed write shows up on the read side too (reset or EOF); that is where it is handled,
  // unless the socket is the current one and reading will not tell.
  if (status < 0 && handle == reinterpret_cast<uv_stream_t*>(self->sock_) && self->active_ && status != UV_ECANCELED) {
    self->CloseUpstream();
    if (!self->RetryOnFreshConnection()) self->Fail(std::string("cannot send the request: ") + uv_strerror(status));
  }
}

void UpstreamRelay::OnAlloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  auto* self = static_cast<UpstreamRelay*>(handle->data);
  *buf = MakeBuf(self->server_->read_buffer(), HttpServer::kReadBufferSize);
}

int UpstreamRelay::OnHeadersComplete(llhttp_t* p) {
  // An answer to HEAD has no body whatever its Content-Length says.
  return static_cast<UpstreamRelay*>(p->data)->head_request_ ? 1 : 0;
}

int UpstreamRelay::OnMessageComplete(llhttp_t* p) {
  static_cast<UpstreamRelay*>(p->data)->message_complete_ = true;
  return HPE_PAUSED;
}

void UpstreamRelay::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<UpstreamRelay*>(stream->data);
  if (stream != reinterpret_cast<uv_stream_t*>(self->sock_)) return;
  if (nread > 0) {
    if (!self->active_ || self->connection_ == nullptr || self->message_complete_) {
      // Bytes nobody asked for: this connection is out of step; drop it.
      self->CloseUpstream();
      return;
    }
    llhttp_errno_t err = llhttp_execute(&self->parser_, buf->base, size_t(nread));
    size_t used = size_t(nread);
    if (err == HPE_PAUSED) {
      const char* pos = llhttp_get_error_pos(&self->parser_);
      if (pos != nullptr && pos >= buf->base && pos <= buf->base + nread) used = size_t(pos - buf->base);
    } else if (err != HPE_OK) {
      self->CloseUpstream();
      self->Fail(std::string("its answer could not be parsed: ") + llhttp_get_error_reason(&self->parser_));
      return;
    }
    if (used > 0) {
      self->relayed_ += used;
      self->connection_->RelayBytes(buf->base, used);
    }
    if (self->connection_ == nullptr) return;  // the client went away while writing
    if (self->message_complete_) {
      self->Complete();
    } else if (self->connection_->ClientWriteQueueSize() > kRelayHighWater) {
      uv_read_stop(stream);
      self->paused_ = true;
    }
    return;
  }
  if (nread == 0) return;
  // The JS server closed the connection (or it broke).
  if (!self->active_) {
    self->CloseUpstream();
    return;
  }
  if (nread == UV_EOF && self->relayed_ > 0 && llhttp_finish(&self->parser_) == HPE_OK && self->message_complete_) {
    self->CloseUpstream();
    self->active_ = false;
    self->body_owner_.reset();
    if (self->connection_ != nullptr) self->connection_->RelayDone(true);  // a body that ended with the connection
    return;
  }
  self->CloseUpstream();
  if (self->RetryOnFreshConnection()) return;
  self->Fail(std::string("the connection to it ended: ") + uv_strerror(int(nread)));
}

bool UpstreamRelay::RetryOnFreshConnection() {
  // The JS server closed an idle kept-alive connection just as it was reused: once more, fresh.
  if (relayed_ > 0 || !reused_ || retried_ || connection_ == nullptr) return false;
  retried_ = true;
  llhttp_init(&parser_, HTTP_RESPONSE, Settings());
  parser_.data = this;
  Connect();
  return true;
}

void UpstreamRelay::Complete() {
  active_ = false;
  body_owner_.reset();
  bool upstream_keeps = llhttp_should_keep_alive(&parser_) != 0;
  if (!upstream_keeps) CloseUpstream();
  connection_->RelayDone(!upstream_keeps);
}

void UpstreamRelay::Fail(const std::string& why) {
  active_ = false;
  body_owner_.reset();
  if (connection_ == nullptr) return;
  // Part of the answer is out already: the client can only learn of the failure by the close.
  if (relayed_ > 0) connection_->Close();
  else connection_->RelayFailed(why);
}

void UpstreamRelay::ResumeIfPaused() {
  if (!paused_ || sock_ == nullptr || upstream_ != Upstream::kOpen) return;
  paused_ = false;
  uv_read_start(reinterpret_cast<uv_stream_t*>(sock_), &UpstreamRelay::OnAlloc, &UpstreamRelay::OnRead);
}

void UpstreamRelay::CloseUpstream() {
  if (sock_ == nullptr) return;
  uv_close(reinterpret_cast<uv_handle_t*>(sock_), &UpstreamRelay::OnClosed);
  sock_ = nullptr;
  upstream_ = Upstream::kNone;
  paused_ = false;
}

void UpstreamRelay::OnClosed(uv_handle_t* handle) {
  auto* self = static_cast<UpstreamRelay*>(handle->data);
  delete reinterpret_cast<uv_pipe_t*>(handle);
  --self->open_sockets_;
  self->MaybeDelete();
}

void UpstreamRelay::Detach() {
  connection_ = nullptr;
  active_ = false;
  body_owner_.reset();
  CloseUpstream();
  MaybeDelete();
}

void UpstreamRelay::MaybeDelete() {
  if (connection_ == nullptr && open_sockets_ == 0) delete this;
}

}  // namespace gebe
