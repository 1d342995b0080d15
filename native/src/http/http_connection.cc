#include "http/http_connection.h"

#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "http/http_loop.h"
#include "http/http_text.h"
#include "http/infer_response.h"

namespace gebe {

namespace {

constexpr uint64_t kLingerMs = 1000;  // after a final answer, wait this long for the client's FIN
constexpr size_t kMaxPendingWhileAnswering = 256 * 1024;  // pipelined bytes read on while answering
// A body's first buffer: one read's worth at most, then it doubles as more bytes arrive, so a
// client pays in bytes sent for the memory it holds (a 64 MiB Content-Length alone gets 64 KiB).
constexpr size_t kFirstBodyBuffer = 64 * 1024;
constexpr size_t kAlignSlack = 64;  // room to move the body to a 64-byte boundary without reallocating

HttpConnection* Self(llhttp_t* p) { return static_cast<HttpConnection*>(p->data); }

// One pending uv_write and what its buffers point into.
struct WriteReq {
  uv_write_t req;
  HttpConnection* connection;
  void* owner;
  void (*release)(void*);
};

struct FastAnswer {
  std::string head;
  HttpResponse response;
  // Freed once written (or once the connection gave up on it): a traced answer's send ends here.
  ~FastAnswer() {
    if (!response.trace) return;
    response.trace->StampNow(TraceStamp::kSendEnd);
    CollectTrace(std::move(response.trace));
  }
};

const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace

HttpConnection::HttpConnection(HttpLoop* loop, uint64_t id) : loop_(loop), id_(id) {
  llhttp_init(&parser_, HTTP_REQUEST, Settings());
  parser_.data = this;
}

const llhttp_settings_t* HttpConnection::Settings() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_message_begin = &HttpConnection::OnMessageBegin;
    s.on_url = &HttpConnection::OnUrl;
    s.on_header_field = &HttpConnection::OnHeaderField;
    s.on_header_value = &HttpConnection::OnHeaderValue;
    s.on_headers_complete = &HttpConnection::OnHeadersComplete;
    s.on_chunk_header = &HttpConnection::OnChunkHeader;
    s.on_body = &HttpConnection::OnBody;
    s.on_message_complete = &HttpConnection::OnMessageComplete;
    return s;
  }();
  return &settings;
}

bool HttpConnection::Accept(uv_stream_t* listener) {
  uv_tcp_init(loop_->loop(), &client_);
  client_.data = this;
  uv_timer_init(loop_->loop(), &timer_);
  timer_.data = this;
  uv_idle_init(loop_->loop(), &written_idle_);
  written_idle_.data = this;
  open_handles_ = 3;
  if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(&client_)) != 0) {
    Close();
    return false;
  }
  uv_tcp_nodelay(&client_, 1);
  ArmTimer(loop_->options().headers_timeout_ms);
  ResumeReading();
  return true;
}

// ---- reading and parsing ----

void HttpConnection::OnAlloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  auto* self = static_cast<HttpConnection*>(handle->data);
  *buf = MakeBuf(self->loop_->read_buffer(), HttpLoop::kReadBufferSize);
}

void HttpConnection::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<HttpConnection*>(stream->data);
  if (nread > 0) {
    if (self->state_ == State::kReading) {
      self->Parse(buf->base, size_t(nread));
    } else if (self->state_ == State::kAnswering) {
      // Pipelined bytes wait for the current answer. Reading on meanwhile notices a client that
      // goes away; past a bound, reading stops until the answer is out.
      if (self->pending_pos_ > 0) {  // drop what was parsed already (one copy per read at most)
        self->pending_.erase(0, self->pending_pos_);
        self->pending_pos_ = 0;
      }
      self->pending_.append(buf->base, size_t(nread));
      if (self->pending_.size() > kMaxPendingWhileAnswering) {
        uv_read_stop(stream);
        self->reading_ = false;
      }
    }
    // Closing: the rest of what the client sends is read and dropped.
    return;
  }
  if (nread == 0) return;
  if (nread == UV_EOF && self->state_ == State::kAnswering) {
    // The client finished sending (a half-close): answer what it asked, then close.
    self->client_eof_ = true;
    uv_read_stop(stream);
    self->reading_ = false;
    return;
  }
  self->client_eof_ = nread == UV_EOF;
  self->Close();
}

void HttpConnection::Parse(const char* data, size_t length) {
  llhttp_errno_t err = llhttp_execute(&parser_, data, length);
  if (err == HPE_OK && parsing_pending_) pending_pos_ = pending_.size();
  if (err == HPE_OK || state_ == State::kClosed) return;  // (closed: a write inside a callback failed)
  if (err == HPE_PAUSED || err == HPE_PAUSED_UPGRADE) {
    const char* pos = llhttp_get_error_pos(&parser_);
    size_t used = pos != nullptr && pos >= data && pos <= data + length ? size_t(pos - data) : length;
    if (err == HPE_PAUSED_UPGRADE) {
      // Upgrades (websocket, h2c, CONNECT) are not served: answer as a plain request, then close.
      request_->keep_alive = false;
      pending_pos_ = pending_.size();
    } else if (parsing_pending_) {
      pending_pos_ += used;  // `data` is pending_ from pending_pos_: just move past this request
    } else {
      pending_.assign(data + used, length - used);
      pending_pos_ = 0;
    }
    Dispatch();
    return;
  }
  if (reject_status_ != 0) {
    // A body over a limit is an answer to a request, as in the JS server; the rest are not.
    Reject(reject_status_, reject_message_, reject_status_ == 413 || reject_status_ == 503);
  } else {
    Reject(400, loop_->options().malformed_prefix + "Parse Error: " + llhttp_get_error_reason(&parser_), false);
  }
}

void HttpConnection::ResumeReading() {
  if (HasPending()) {
    // Parsed in place: many small pipelined requests must not cost a copy of the rest each.
    parsing_pending_ = true;
    Parse(pending_.data() + pending_pos_, pending_.size() - pending_pos_);
    parsing_pending_ = false;
    if (!HasPending()) {
      pending_.clear();
      pending_pos_ = 0;
    }
    if (state_ != State::kReading) return;
  }
  if (client_eof_) {
    Close();
    return;
  }
  if (!reading_) {
    uv_read_start(reinterpret_cast<uv_stream_t*>(&client_), &HttpConnection::OnAlloc, &HttpConnection::OnRead);
    reading_ = true;
  }
}

bool HttpConnection::AddHeaderBytes(size_t length) {
  header_bytes_ += length;
  if (header_bytes_ <= loop_->options().max_header_bytes) return true;
  reject_status_ = 431;
  reject_message_ = "request headers exceed the limit of " + std::to_string(loop_->options().max_header_bytes) + " bytes";
  return false;
}

int HttpConnection::OnMessageBegin(llhttp_t* p) {
  HttpConnection* self = Self(p);
  self->request_ = std::make_shared<HttpRequest>();
  self->request_->headers.reserve(8);  // clients send 3-8 header lines: one allocation, not three or four
  self->in_message_ = true;
  self->headers_done_ = false;
  self->last_was_value_ = false;
  self->upgrade_ = false;
  self->header_bytes_ = 0;
  self->body_.reset();
  self->body_offset_ = 0;
  self->body_size_ = 0;
  self->body_declared_ = 0;
  self->inference_header_length_ = 0;
  self->reject_status_ = 0;
  self->request_start_ms_ = uv_now(self->loop_->loop());
  if (TracingOn()) self->request_->recv_start_ns = SteadyNowNs();
  self->ArmTimer(self->loop_->options().headers_timeout_ms);
  return 0;
}

int HttpConnection::OnUrl(llhttp_t* p, const char* at, size_t length) {
  HttpConnection* self = Self(p);
  if (!self->AddHeaderBytes(length)) return -1;
  self->request_->url.append(at, length);
  return 0;
}

int HttpConnection::OnHeaderField(llhttp_t* p, const char* at, size_t length) {
  HttpConnection* self = Self(p);
  if (!self->AddHeaderBytes(length)) return -1;
  auto& headers = self->request_->headers;
  if (headers.empty() || self->last_was_value_) headers.emplace_back();
  self->last_was_value_ = false;
  std::string& name = headers.back().first;
  for (size_t i = 0; i < length; ++i) {
    char c = at[i];
    name.push_back(c >= 'A' && c <= 'Z' ? char(c + 32) : c);
  }
  return 0;
}

int HttpConnection::OnHeaderValue(llhttp_t* p, const char* at, size_t length) {
  HttpConnection* self = Self(p);
  if (!self->AddHeaderBytes(length)) return -1;
  if (self->request_->headers.empty()) self->request_->headers.emplace_back();
  self->request_->headers.back().second.append(at, length);
  self->last_was_value_ = true;
  return 0;
}

int HttpConnection::OnHeadersComplete(llhttp_t* p) {
  HttpConnection* self = Self(p);
  const HttpServerOptions& options = self->loop_->options();
  self->headers_done_ = true;
  self->request_->method = llhttp_method_name(llhttp_method_t(p->method));
  self->request_->http10 = p->http_major == 1 && p->http_minor == 0;
  self->upgrade_ = p->upgrade != 0;
  if (const std::string* v = self->request_->Header("inference-header-content-length")) {
    size_t n = 0;
    bool ok = !v->empty() && v->size() < 19;
    for (char c : *v) ok = ok && c >= '0' && c <= '9', n = n * 10 + size_t(c - '0');
    // A malformed value is the infer route's to refuse; here it only steers alignment.
    self->inference_header_length_ = ok ? n : 0;
  }
  bool has_length = (p->flags & F_CONTENT_LENGTH) != 0;
  if (has_length && p->content_length > options.max_request_bytes) {
    self->reject_status_ = 413;
    self->reject_message_ = options.too_large_message;
    return -1;
  }

  if (const std::string* expect = self->request_->Header("expect")) {
    if (EqualsIgnoreCase(*expect, "100-continue")) {
      uv_buf_t buf = MakeBuf(kContinue, sizeof(kContinue) - 1);
      self->Write(&buf, 1, nullptr, nullptr);
    }
  }
  self->PrepareBody(has_length ? size_t(p->content_length) : 0);
  uint64_t elapsed = uv_now(self->loop_->loop()) - self->request_start_ms_;
  self->ArmTimer(options.request_timeout_ms > elapsed ? options.request_timeout_ms - elapsed : 1);
  return 0;
}

// The body's first byte goes where body + Inference-Header-Content-Length is 64-byte aligned.
static size_t AlignedOffset(const uint8_t* base, size_t header_length) {
  return (64 - (reinterpret_cast<uintptr_t>(base) + header_length) % 64) % 64;
}

void HttpConnection::PrepareBody(size_t declared) {
  body_ = loop_->NewBody();  // no bytes yet: the buffer comes with the first body bytes
  body_declared_ = declared;
}

bool HttpConnection::GrowBody(size_t more) {
  std::vector<uint8_t>& body = *body_;
  size_t need = body_offset_ + body_size_ + more;  // (the offset is 0 until the first buffer)
  if (need + kAlignSlack > body.capacity()) {
    size_t before = body.capacity();
    size_t capacity = std::max({need + 2 * kAlignSlack, before * 2, std::min(kFirstBodyBuffer, body_declared_ + 2 * kAlignSlack)});
    if (body_declared_ > 0) capacity = std::min(capacity, std::max(need, body_declared_) + 2 * kAlignSlack);
    if (!loop_->ChargeBody(capacity - before)) {
      reject_status_ = 503;
      reject_message_ = loop_->options().busy_message;
      return false;
    }
    if (before == 0) loop_->TakeRecycledBody(capacity, &body);
    body.reserve(capacity);
    loop_->AdjustBody(body.capacity() - capacity);  // what the buffer really holds (reserve is exact in libstdc++)
    if (before == 0) {
      body_offset_ = AlignedOffset(body.data(), inference_header_length_);
      need = body_offset_ + more;
    }
  }
  body.resize(need);
  return true;
}

bool HttpConnection::RejectOverLimit(uint64_t total) {
  uint64_t limit = loop_->options().max_request_bytes;
  if (total <= limit) return false;
  reject_status_ = 413;
  reject_message_ = loop_->options().too_large_message;
  return true;
}

int HttpConnection::OnChunkHeader(llhttp_t* p) {
  // A chunk size (up to ffffffffffffffff) is checked when it is announced, not after its bytes.
  HttpConnection* self = Self(p);
  uint64_t size = p->content_length;
  return self->RejectOverLimit(size > UINT64_MAX - self->body_size_ ? UINT64_MAX : self->body_size_ + size) ? -1 : 0;
}

int HttpConnection::OnBody(llhttp_t* p, const char* at, size_t length) {
  HttpConnection* self = Self(p);
  if (self->RejectOverLimit(uint64_t(self->body_size_) + length)) return -1;
  if (!self->GrowBody(length)) return -1;
  std::memcpy(self->body_->data() + self->body_offset_ + self->body_size_, at, length);
  self->body_size_ += length;
  return 0;
}

int HttpConnection::OnMessageComplete(llhttp_t* p) {
  HttpConnection* self = Self(p);
  self->in_message_ = false;
  HttpRequest& request = *self->request_;
  if (self->body_ && self->body_size_ > 0) {
    std::vector<uint8_t>& body = *self->body_;
    size_t want = AlignedOffset(body.data(), self->inference_header_length_);
    if (want != self->body_offset_) {  // a chunked body grew and moved: realign once
      if (body.size() < want + self->body_size_) body.resize(want + self->body_size_);  // within the slack
      std::memmove(body.data() + want, body.data() + self->body_offset_, self->body_size_);
      self->body_offset_ = want;
    }
    request.body = body.data() + self->body_offset_;
  }
  request.body_owner = self->body_;
  request.body_size = self->body_size_;
  request.keep_alive = llhttp_should_keep_alive(p) != 0;
  // One request at a time: stop here; what follows is parsed once this one is answered.
  return HPE_PAUSED;
}

// ---- answering ----

static bool LooksLikeInfer(const HttpRequest& r) {
  static const char kSuffix[] = "/infer";
  const std::string& u = r.url;
  return r.method == "POST" && u.size() > 16 && u.compare(0, 11, "/v2/models/") == 0 &&
         u.compare(u.size() - (sizeof(kSuffix) - 1), sizeof(kSuffix) - 1, kSuffix) == 0;
}

void HttpConnection::Dispatch() {
  state_ = State::kAnswering;
  uv_timer_stop(&timer_);
  ++request_seq_;
  answer_complete_ = false;
  streaming_ = false;
  answer_counted_ = false;
  if (upgrade_) request_->keep_alive = false;
  close_after_answer_ = !request_->keep_alive || loop_->draining();
  request_->keep_alive = !close_after_answer_;
  loop_->CountAccepted();
  if (request_->recv_start_ns != 0) request_->recv_end_ns = SteadyNowNs();
  FastPath* fast = loop_->fast_path();
  if (fast != nullptr && LooksLikeInfer(*request_) && fast->TryHandle(*request_, loop_->MakeRespond(id_, request_seq_, request_))) return;
  loop_->CountHandedOff();
  loop_->handler()->Handle(request_, loop_->MakeRespond(id_, request_seq_, request_));
}

void HttpConnection::Deliver(uint64_t seq, HttpResponse response) {
  if (state_ != State::kAnswering || seq != request_seq_ || answer_complete_) return;
  if (response.part != BodyPart::kWhole || streaming_) return DeliverPart(std::move(response));
  if (loop_->draining() || response.close) close_after_answer_ = true;
  // HEAD: the head a GET would get (its Content-Length included), without the body.
  bool head_only = request_->method == "HEAD";
  size_t length = response.owned_body.size();
  for (const auto& piece : response.pieces) length += piece.second;
  auto* answer = new FastAnswer{std::string(), std::move(response)};
  HttpResponse& r = answer->response;
  std::string& head = answer->head;
  head.reserve(96 + r.headers.size());
  head += "HTTP/1.1 ";
  head += std::to_string(r.status);
  head += ' ';
  head += ReasonPhrase(r.status);
  head += "\r\nContent-Length: ";
  head += std::to_string(length);
  head += "\r\n";
  head += DateHeaderLine();
  head += close_after_answer_ ? "Connection: close\r\n" : "Connection: keep-alive\r\n";
  head += r.headers;
  head += "\r\n";
  std::vector<uv_buf_t> bufs;
  bufs.reserve(2 + r.pieces.size());
  bufs.push_back(MakeBuf(head.data(), head.size()));
  if (!head_only && !r.owned_body.empty()) bufs.push_back(MakeBuf(r.owned_body.data(), r.owned_body.size()));
  for (const auto& piece : r.pieces) {
    if (!head_only && piece.second > 0) bufs.push_back(MakeBuf(piece.first, piece.second));
  }
  answer_complete_ = true;
  if (r.trace) r.trace->StampNow(TraceStamp::kSendStart);
  Write(bufs.data(), unsigned(bufs.size()), answer, [](void* a) { delete static_cast<FastAnswer*>(a); });
}

// One part of a streamed answer. The first writes the head: Transfer-Encoding: chunked, or on
// HTTP/1.0 (which has no chunks) no length and Connection: close, the body ending at the close.
// Each part's pieces then go out as one chunk; the last adds the terminating chunk and completes
// the answer. Parts out of order (a first part twice, a later one before the first) are dropped.
void HttpConnection::DeliverPart(HttpResponse response) {
  const bool first = response.part == BodyPart::kFirst;
  if (first == streaming_ || response.part == BodyPart::kWhole) return;
  const bool chunked = !request_->http10;
  const bool last = response.part == BodyPart::kLast;
  size_t length = response.owned_body.size();
  for (const auto& piece : response.pieces) length += piece.second;
  // A client that stops reading a stream: past max_unsent_bytes waiting for it (beyond what the
  // socket took), the connection closes, which cancels the request (a stream has no way left to
  // say why: its head is sent).
  if (loop_->options().PassesUnsentBound(client_.write_queue_size, length)) return Close();
  auto* answer = new FastAnswer{std::string(), std::move(response)};
  HttpResponse& r = answer->response;
  std::string& head = answer->head;
  if (first) {
    streaming_ = true;
    if (!chunked || loop_->draining() || r.close) close_after_answer_ = true;
    head += "HTTP/1.1 ";
    head += std::to_string(r.status);
    head += ' ';
    head += ReasonPhrase(r.status);
    head += "\r\n";
    if (chunked) head += "Transfer-Encoding: chunked\r\n";
    head += DateHeaderLine();
    head += close_after_answer_ ? "Connection: close\r\n" : "Connection: keep-alive\r\n";
    head += r.headers;
    head += "\r\n";
  }
  static const char kCrlf[] = "\r\n";
  static const char kLastChunk[] = "0\r\n\r\n";
  if (chunked && length > 0) {
    char size_line[24];
    head.append(size_line, size_t(std::snprintf(size_line, sizeof(size_line), "%zx\r\n", length)));
  }
  std::vector<uv_buf_t> bufs;
  bufs.reserve(4 + r.pieces.size());
  if (!head.empty()) bufs.push_back(MakeBuf(head.data(), head.size()));
  if (!r.owned_body.empty()) bufs.push_back(MakeBuf(r.owned_body.data(), r.owned_body.size()));
  for (const auto& piece : r.pieces) {
    if (piece.second > 0) bufs.push_back(MakeBuf(piece.first, piece.second));
  }
  if (chunked && length > 0) bufs.push_back(MakeBuf(kCrlf, 2));
  if (chunked && last) bufs.push_back(MakeBuf(kLastChunk, sizeof(kLastChunk) - 1));
  if (last) {
    streaming_ = false;
    answer_complete_ = true;
  }
  if (r.trace) r.trace->StampNow(TraceStamp::kSendStart);
  if (bufs.empty()) {  // an empty last part of an HTTP/1.0 stream: the answer is done all the same
    delete answer;
    uv_idle_start(&written_idle_, &HttpConnection::OnWrittenAtOnce);
    return;
  }
  Write(bufs.data(), unsigned(bufs.size()), answer, [](void* a) { delete static_cast<FastAnswer*>(a); });
}

void HttpConnection::FinishAnswer(bool close_after) {
  answer_counted_ = true;
  // A client that half-closed after pipelining requests still gets them all answered.
  if (close_after || (client_eof_ && !HasPending()) || loop_->draining()) {
    ShutdownAndLinger();
  } else {
    state_ = State::kReading;
    llhttp_resume(&parser_);
    ArmTimer(loop_->options().keep_alive_timeout_ms);
  }
  // Last: while draining, the count can close every connection, this one included.
  loop_->CountAnswered();
  if (state_ == State::kReading) ResumeReading();
}

void HttpConnection::Reject(int status, const std::string& message, bool counts) {
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  state_ = State::kClosing;
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&client_));
  reading_ = false;
  uv_timer_stop(&timer_);
  if (counts) loop_->CountAccepted();
  WriteError(status, message);
  if (counts) loop_->CountAnswered();
}

// ---- writing ----

void HttpConnection::WriteError(int status, const std::string& message) {
  // The JS server's error body, byte for byte (respond.ts: JSON.stringify({error})).
  std::string body = EncodeErrorBody(message);
  auto* text = new std::string(ErrorHead(status, body.size()) + body);
  uv_buf_t buf = MakeBuf(text->data(), text->size());
  Write(&buf, 1, text, [](void* t) { delete static_cast<std::string*>(t); });
}

void HttpConnection::Write(uv_buf_t* bufs, unsigned count, void* owner, void (*release)(void*)) {
  if (state_ == State::kClosed) {
    if (release != nullptr) release(owner);
    return;
  }
  // Nothing queued: try the socket now. An answer that fits the send buffer (nearly every one)
  // then needs no write request, and libuv has nothing to reap, which costs an epoll_ctl per
  // answer (it re-registers the socket's interest after each finished write request): a system
  // call that, on the VMs measured, costs as much as the read of the next request.
  if (writes_pending_ == 0) {
    const int n = uv_try_write(reinterpret_cast<uv_stream_t*>(&client_), bufs, count);
    if (n < 0 && n != UV_EAGAIN) {
      if (release != nullptr) release(owner);
      Close();
      return;
    }
    size_t written = n > 0 ? size_t(n) : 0;
    while (count > 0 && written >= bufs->len) {
      written -= bufs->len;
      ++bufs;
      --count;
    }
    if (count == 0) {
      if (release != nullptr) release(owner);
      // WriteDone runs from the loop, as after uv_write: callers may write and then change state.
      uv_idle_start(&written_idle_, &HttpConnection::OnWrittenAtOnce);
      return;
    }
    bufs->base += written;
    bufs->len -= written;
  }
  auto* w = new WriteReq{uv_write_t{}, this, owner, release};
  w->req.data = w;
  ++writes_pending_;
  int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&client_), bufs, count, &HttpConnection::OnWrite);
  if (rc != 0) {
    --writes_pending_;
    if (release != nullptr) release(owner);
    delete w;
    Close();
  }
}

void HttpConnection::OnWrite(uv_write_t* req, int status) {
  auto* w = static_cast<WriteReq*>(req->data);
  HttpConnection* self = w->connection;
  if (w->release != nullptr) w->release(w->owner);
  delete w;
  --self->writes_pending_;
  if (self->state_ == State::kClosed) return;
  if (status < 0) {
    self->Close();
    return;
  }
  self->WriteDone();
}

void HttpConnection::OnWrittenAtOnce(uv_idle_t* idle) {
  uv_idle_stop(idle);
  auto* self = static_cast<HttpConnection*>(idle->data);
  if (self->state_ != State::kClosed) self->WriteDone();
}

void HttpConnection::WriteDone() {
  if (writes_pending_ != 0) return;
  if (state_ == State::kAnswering) {
    if (answer_complete_) FinishAnswer(close_after_answer_);
  } else if (state_ == State::kClosing && !linger_) {
    ShutdownAndLinger();
  }
}

// ---- closing ----

void HttpConnection::ShutdownAndLinger() {
  if (state_ == State::kClosed) return;
  state_ = State::kClosing;
  if (writes_pending_ > 0 || linger_) return;  // WriteDone comes back here once the answer is out
  linger_ = true;
  if (client_eof_) {
    Close();
    return;
  }
  // Send our FIN, then read (and drop) until the client's, so unread request bytes never turn
  // the close into a reset that could destroy the answer before the client reads it.
  auto* req = new uv_shutdown_t;
  if (uv_shutdown(req, reinterpret_cast<uv_stream_t*>(&client_), &HttpConnection::OnShutdown) != 0) {
    delete req;
    Close();
    return;
  }
  ArmTimer(kLingerMs);
  if (!reading_) {
    uv_read_start(reinterpret_cast<uv_stream_t*>(&client_), &HttpConnection::OnAlloc, &HttpConnection::OnRead);
    reading_ = true;
  }
}

void HttpConnection::OnShutdown(uv_shutdown_t* req, int) {
  delete req;
}

void HttpConnection::CloseWhenIdle() {
  if (state_ == State::kReading && !in_message_ && !HasPending() && !SocketHasBytes()) Close();
  else if (state_ == State::kAnswering) close_after_answer_ = true;
}

bool HttpConnection::SocketHasBytes() const {
  uv_os_fd_t fd;
  if (uv_fileno(reinterpret_cast<const uv_handle_t*>(&client_), &fd) != 0) return false;
  char byte;
  return recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

void HttpConnection::Refuse(int status, const std::string& message) {
  Reject(status, message, false);  // nothing was read: not a request, so not counted
}

void HttpConnection::Close() {
  if (state_ == State::kClosed) return;
  bool in_flight = state_ == State::kAnswering && !answer_counted_;
  state_ = State::kClosed;
  uv_close(reinterpret_cast<uv_handle_t*>(&client_), &HttpConnection::OnHandleClosed);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), &HttpConnection::OnHandleClosed);
  uv_close(reinterpret_cast<uv_handle_t*>(&written_idle_), &HttpConnection::OnHandleClosed);
  loop_->Forget(id_);
  if (in_flight) {
    answer_counted_ = true;
    loop_->CountAnswered();
    if (request_->cancel) request_->cancel->Cancel(FailureReason::kCancelled);  // taken by the fast path
    if (RequestHandler* handler = loop_->handler()) handler->Abandoned(request_);
  }
}

void HttpConnection::OnHandleClosed(uv_handle_t* handle) {
  auto* self = static_cast<HttpConnection*>(handle->data);
  if (--self->open_handles_ == 0) delete self;
}

// ---- timeouts ----

void HttpConnection::ArmTimer(uint64_t ms) {
  uv_timer_start(&timer_, &HttpConnection::OnTimer, ms, 0);
}

void HttpConnection::OnTimer(uv_timer_t* timer) {
  auto* self = static_cast<HttpConnection*>(timer->data);
  if (self->state_ != State::kReading || !self->in_message_) {
    self->Close();  // idle keep-alive connection, a silent client, or the end of a linger
    return;
  }
  // One wording for both the headers and the request timeout, as node has.
  self->Reject(408, self->loop_->options().timeout_message, false);
}

}  // namespace gebe
