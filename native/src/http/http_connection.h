// One client connection of the native HTTP server (loop thread only): parses requests with
// llhttp, enforces the limits and timeouts, answers one request at a time (pipelined requests
// wait, parsing paused), and writes the answers of the fast path and of the request handler.
#pragma once

#include <uv.h>

#include <cstdint>
#include <memory>
#include <string>

#include "http/fast_path.h"
#include "llhttp.h"

namespace gebe {

class HttpLoop;

class HttpConnection {
 public:
  HttpConnection(HttpLoop* loop, uint64_t id);
  // Accepts the pending connection on `listener` and starts reading; false (and closes) on failure.
  bool Accept(uv_stream_t* listener);
  uint64_t id() const { return id_; }

  // The answer to request `seq` (ignored unless it is the one being answered), or one part of it.
  void Deliver(uint64_t seq, HttpResponse response);
  // Closes at once; a request in flight counts as answered.
  void Close();
  // Graceful close: closes now when nothing is being received, answered or waiting unread in the
  // socket; otherwise the current (or waiting) request is answered with Connection: close, then
  // the connection closes.
  void CloseWhenIdle();
  // Answers `status` with `message` before reading anything, then closes (over --max-connections).
  void Refuse(int status, const std::string& message);

 private:
  enum class State { kReading, kAnswering, kClosing, kClosed };

  static void OnAlloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void OnTimer(uv_timer_t* timer);
  static void OnHandleClosed(uv_handle_t* handle);
  static void OnShutdown(uv_shutdown_t* req, int status);

  // llhttp callbacks.
  static int OnMessageBegin(llhttp_t* p);
  static int OnUrl(llhttp_t* p, const char* at, size_t length);
  static int OnHeaderField(llhttp_t* p, const char* at, size_t length);
  static int OnHeaderValue(llhttp_t* p, const char* at, size_t length);
  static int OnHeadersComplete(llhttp_t* p);
  static int OnChunkHeader(llhttp_t* p);
  static int OnBody(llhttp_t* p, const char* at, size_t length);
  static int OnMessageComplete(llhttp_t* p);
  static const llhttp_settings_t* Settings();

  void Parse(const char* data, size_t length);
  void DeliverPart(HttpResponse response);
  void Dispatch();
  void FinishAnswer(bool close_after);
  void ResumeReading();
  bool AddHeaderBytes(size_t length);
  void PrepareBody(size_t declared);
  // Makes room for `need` body bytes, growing with what arrived (never to a declared size at once)
  // and charging the growth to the server's in-flight body budget; false (a 503 set) when it is full.
  bool GrowBody(size_t more);
  bool RejectOverLimit(uint64_t total);
  // Bytes wait unread in the socket (a request sent just before a drain began).
  bool SocketHasBytes() const;
  // Writes an error answer (JSON body), then closes the connection gracefully.
  // `counts`: it answers a request (for the accepted/answered counters).
  void Reject(int status, const std::string& message, bool counts);
  void Write(uv_buf_t* bufs, unsigned count, void* owner, void (*release)(void*));
  // A whole {"error": message} answer with Connection: close.
  void WriteError(int status, const std::string& message);
  static void OnWrite(uv_write_t* req, int status);
  static void OnWrittenAtOnce(uv_idle_t* idle);
  void WriteDone();
  void ShutdownAndLinger();
  void ArmTimer(uint64_t ms);

  HttpLoop* loop_;  // the loop thread that accepted it, the only thread that touches it
  uint64_t id_;
  uv_tcp_t client_{};
  uv_timer_t timer_{};
  // Runs WriteDone after a write that went out whole at once. An idle handle, not a check one:
  // while it is active the loop does not block in its poll, so a write made outside the poll
  // phase (a timer's 408) is not left waiting for the next socket event.
  uv_idle_t written_idle_{};
  int open_handles_ = 0;
  State state_ = State::kReading;
  llhttp_t parser_{};
  std::string pending_;  // bytes read past a complete request, parsed once it is answered
  size_t pending_pos_ = 0;        // how much of pending_ is parsed already
  bool parsing_pending_ = false;  // Parse() is reading from pending_
  bool HasPending() const { return pending_pos_ < pending_.size(); }
  bool reading_ = false;
  bool client_eof_ = false;

  // The request being received or answered. Shared with its Respond, which keeps it
  // valid until it is called even if this connection is gone by then.
  std::shared_ptr<HttpRequest> request_ = std::make_shared<HttpRequest>();
  uint64_t request_seq_ = 0;
  bool in_message_ = false;
  bool headers_done_ = false;
  bool last_was_value_ = false;
  bool upgrade_ = false;
  size_t header_bytes_ = 0;
  uint64_t request_start_ms_ = 0;
  std::shared_ptr<std::vector<uint8_t>> body_;
  size_t body_offset_ = 0;   // where the body starts in *body_ (for alignment)
  size_t body_size_ = 0;
  size_t body_declared_ = 0;  // Content-Length, 0 for chunked (bounds the growth, not the first buffer)
  size_t inference_header_length_ = 0;
  // A limit hit inside a callback: answered after llhttp returns.
  int reject_status_ = 0;
  std::string reject_message_;

  // The answer in progress.
  int writes_pending_ = 0;
  bool answer_complete_ = false;
  bool streaming_ = false;  // a streamed answer's head went out; its parts follow (chunked unless HTTP/1.0)
  bool close_after_answer_ = false;
  bool answer_counted_ = false;
  bool linger_ = false;
};

}  // namespace gebe
