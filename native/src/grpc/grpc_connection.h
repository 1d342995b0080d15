// One client connection of the native gRPC server (loop thread only): an nghttp2 server session
// over a libuv TCP handle, its streams (one per call), gRPC message framing in and out, status
// trailers, deadlines and cancellation, and keepalive pings (grpc/keepalive.h) on a timer of its own.
#pragma once

#include <uv.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nghttp2/nghttp2.h>

#include "grpc/grpc_server.h"
#include "grpc/grpc_wire.h"
#include "grpc/keepalive.h"

namespace gebe {

class GrpcConnection {
 public:
  GrpcConnection(GrpcServer* server, uint64_t id);
  // Accepts the pending connection and starts the session; false (and closes) on failure.
  bool Accept(uv_stream_t* listener);
  uint64_t id() const { return id_; }

  void Deliver(GrpcAnswer answer);
  // The deadline of `stream_id` passed: DEADLINE_EXCEEDED, and a queued request is cancelled.
  void Expire(int32_t stream_id);
  // Sends GOAWAY (last stream: the last one received); the connection closes once its calls end.
  void GoAway();
  // Closes at once (calls still open are cancelled).
  void Close();
  // Hands nghttp2's pending frames to the socket (after a batch of answers).
  void Flush();

 private:
  struct Stream {
    Stream(int32_t stream_id, size_t max_message, RecycledBuffers<std::string>* recycled)
        : id(stream_id), framer(max_message, recycled) {}
    int32_t id;
    std::string method, path, content_type, encoding;
    std::string accept_encoding;  // grpc-accept-encoding: what the client takes compressed
    GrpcEncoding response_encoding = GrpcEncoding::kIdentity;  // decided at the first response message
    std::vector<std::pair<std::string, std::string>> metadata;
    size_t header_bytes = 0;
    bool has_timeout = false;
    uint64_t timeout_us = 0;
    bool streaming = false;  // ModelStreamInfer: many messages each way
    MessageFramer framer;
    size_t charged = 0;  // of the in-flight budget, for the message being received
    std::shared_ptr<std::string> unary_message;
    bool remote_closed = false;
    bool dispatched_unary = false;
    int outstanding = 0;  // messages handed on and not answered yet
    std::shared_ptr<CallCancel> cancel = std::make_shared<CallCancel>();
    // When the call began waiting for its next message (steady ns), kept only while tracing is on.
    int64_t read_start_ns = 0;
    // Output.
    bool response_started = false;
    bool finishing = false;  // status decided; trailers go after the queued messages
    bool finished = false;   // trailers (or a trailers-only answer) submitted
    bool deferred = false;   // the data source returned DEFERRED
    std::deque<std::string> out;
    size_t out_offset = 0;
    size_t unsent = 0;  // bytes in `out` not yet taken by nghttp2
    GrpcCode code = GrpcCode::kOk;
    std::string status_message;
  };

  static void OnAlloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void OnWrite(uv_write_t* req, int status);
  static void OnClosed(uv_handle_t* handle);
  static void OnKeepaliveTimer(uv_timer_t* timer);
  void OnPing(const nghttp2_ping& ping);

  // nghttp2 callbacks.
  static ssize_t OnSend(nghttp2_session*, const uint8_t* data, size_t length, int flags, void* self);
  static int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen, const uint8_t* value,
                      size_t valuelen, uint8_t flags, void* self);
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int OnDataChunk(nghttp2_session*, uint8_t flags, int32_t stream_id, const uint8_t* data, size_t len, void* self);
  static int OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* self);
  static ssize_t ReadData(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length, uint32_t* data_flags,
                          nghttp2_data_source* source, void* self);

  Stream* Find(int32_t stream_id);
  void OnRequestHeaders(Stream* s);
  void OnRemoteEnd(Stream* s);
  void Dispatch(Stream* s, std::shared_ptr<std::string> message);
  // Decides the call's status; trailers follow the messages already queued.
  void Finish(Stream* s, GrpcCode code, std::string message);
  // Queues a response message; false when the connection's unsent answers would pass
  // max_unsent_bytes (the client is not reading): the call is then cancelled and ended.
  bool QueueMessage(Stream* s, std::string framed);
  void Take(Stream* s, size_t bytes);
  void StartResponse(Stream* s);
  void SubmitTrailersOnly(Stream* s);
  void AnswerHttpError(Stream* s, const char* status);
  void Uncharge(Stream* s);
  // Inflates the stream's compressed message in place (its grpc-encoding's); false when the call
  // was answered instead (identity, too large once inflated, damaged, no budget).
  bool Inflate(Stream* s);
  void CloseIfDone();

  GrpcServer* server_;
  uint64_t id_;
  uv_tcp_t client_{};
  uv_timer_t keepalive_timer_{};
  int open_handles_ = 0;  // client_ and keepalive_timer_: the connection is freed when both have closed
  KeepaliveState keepalive_;
  nghttp2_session* session_ = nullptr;
  std::map<int32_t, std::unique_ptr<Stream>> streams_;
  std::string pending_out_;  // bytes nghttp2 produced, written on the next Flush
  size_t writing_ = 0;       // bytes handed to uv_write and not yet written
  size_t unsent_ = 0;        // response bytes queued in streams and not yet taken by nghttp2
  bool closing_ = false;
  bool fatal_ = false;  // a protocol error: write what is queued (the GOAWAY), then close
};

}  // namespace gebe
