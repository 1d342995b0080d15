// The native gRPC front end: a libuv loop on its own thread that owns the gRPC port, speaks
// HTTP/2 through the nghttp2 that Node.js exports, frames gRPC messages, and hands each call
// either to the native infer route (ModelInfer / ModelStreamInfer of published models) or to the
// one JS handler (every other RPC), as (method path, request bytes, metadata). Its structure
// mirrors the native HTTP server (native/src/http/): a loop thread, connection objects, one
// mailbox that scheduler threads and JS post answers to, limits and a graceful drain.
#pragma once

#include <uv.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "grpc/message_compression.h"
#include "grpc/grpc_wire.h"
#include "grpc/keepalive.h"
#include "net/call_cancel.h"
#include "net/byte_budget.h"
#include "net/front_end_options.h"
#include "net/loop_mailbox.h"
#include "net/loop_thread.h"
#include "trace/request_trace.h"

namespace gebe {

class GrpcConnection;

// The two methods the native infer route may take.
constexpr std::string_view kInferPath = "/inference.GRPCInferenceService/ModelInfer";
constexpr std::string_view kStreamInferPath = "/inference.GRPCInferenceService/ModelStreamInfer";

// max_request_bytes: more is RESOURCE_EXHAUSTED; past max_inflight_bytes a call is UNAVAILABLE;
// one more connection than max_connections is closed before any HTTP/2 byte (the client sees UNAVAILABLE).
struct GrpcServerOptions : FrontEndOptions {
  // SETTINGS_MAX_CONCURRENT_STREAMS.
  uint32_t max_concurrent_streams = 1024;
  // Header (metadata) bytes of one call; more resets the stream.
  size_t max_metadata_bytes = 16384;
  // At a drain, calls are still taken this long before the GOAWAY (see GrpcFrontend.close).
  uint64_t drain_grace_ms = 100;
  // Streaming calls are announced to JS when their headers arrive (a GrpcJsCall without a
  // message), so that --grpc-restricted-protocol refuses them before any message, as grpc-js does.
  bool announce_streams = false;
  // The status message of a call ended for responses its client did not read (max_unsent_bytes).
  std::string unsent_message;
  // Keepalive pings and the ping policy (--grpc-keepalive-*, --grpc-http2-*).
  KeepaliveOptions keepalive;
  // Triton's --grpc-infer-response-compression-level: infer responses compressed (message_compression.h).
  ResponseCompression response_compression = ResponseCompression::kNone;
};

// A call for the JS handler: created on the loop thread, handed to JS by the binding.
struct GrpcJsCall {
  uint64_t connection_id = 0;
  int32_t stream_id = 0;
  std::string path;
  std::shared_ptr<std::string> message;  // the request message, unframed (holds its budget share); null: a stream opens
  std::vector<std::pair<std::string, std::string>> metadata;  // custom headers, names lower-case
  // Not 0: no new call, but word that the call JS holds went away (the GrpcCode: its client reset
  // the stream or closed, or its deadline passed), so that JS drops a request it still queues.
  int cancelled = 0;
  // While tracing: when the call began waiting for this message and when it was read (steady ns).
  int64_t read_start_ns = 0;
  int64_t read_end_ns = 0;
};

// One answer for a call, posted from any thread. final: the call's status (with its last message
// in `framed`, if any); otherwise one more message of a streaming call.
struct GrpcAnswer {
  uint64_t connection_id = 0;
  int32_t stream_id = 0;
  bool final = true;
  // Another answer to the same request message follows (a decoupled model's response that is not
  // its last): the stream's count of messages waiting for an answer stays as it is.
  bool more = false;
  std::string framed;  // framed message bytes (5-byte prefix included), possibly empty
  GrpcCode code = GrpcCode::kOk;
  std::string message;
  // A traced request's trace: the server stamps the send and hands it on once flushed.
  std::unique_ptr<RequestTrace> trace;
};

// The native infer route (grpc_infer_route.cc). Loop thread only.
class GrpcInferRoute {
 public:
  virtual ~GrpcInferRoute() = default;
  using Reply = std::function<void(GrpcAnswer)>;
  // True: taken, and `reply` will be called exactly once (from any thread) with connection and
  // stream ids left for the caller to fill. False: declined (the JS handler answers it).
  // `read_start_ns`: when the call began waiting for this message (steady ns; 0 while nothing is
  // traced), for the trace extension's GRPC_WAITREAD_START; `traceparent`: the call's metadata of
  // that name (OpenTelemetry context propagation), empty without one.
  virtual bool TryHandle(std::shared_ptr<std::string> message, bool stream, std::shared_ptr<CallCancel> cancel,
                         Reply reply, int64_t read_start_ns, std::string_view traceparent) = 0;
};

// Answers travel from scheduler threads and JS to the loop through this mailbox (net/loop_mailbox.h).
using GrpcMailbox = LoopMailbox<GrpcAnswer>;

class GrpcServer {
 public:
  using JsHandler = std::function<void(std::unique_ptr<GrpcJsCall>)>;
  GrpcServer(GrpcServerOptions options, std::shared_ptr<GrpcInferRoute> route, JsHandler js);
  ~GrpcServer();
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // JS thread: binds, listens and starts the loop thread; the port. Throws ListenError.
  int Listen();
  // Any thread: stop accepting now; take calls on open connections for drain_grace_ms; then
  // GOAWAY, running calls finish, connections close; after timeout_ms everything closes.
  void BeginClose(uint64_t timeout_ms) { loop_.RequestClose(timeout_ms); }
  void Join() { loop_.Join(); }
  // Any thread.
  void Post(GrpcAnswer answer) { mailbox_->Post(std::move(answer)); }
  std::shared_ptr<GrpcMailbox> mailbox() const { return mailbox_; }

  size_t connection_count() const { return connection_count_.load(std::memory_order_relaxed); }
  uint64_t refused_connections() const { return refused_.load(std::memory_order_relaxed); }
  uint64_t inflight_bytes() const { return inflight_.used(); }

  // Loop thread, for connections.
  uv_loop_t* loop() { return loop_.loop(); }
  void KeepPolling() { loop_.KeepPolling(); }
  static constexpr size_t kReadBufferSize = 65536;
  char* read_buffer() { return read_buffer_.get(); }
  const GrpcServerOptions& options() const { return options_; }
  GrpcInferRoute* route() const { return route_.get(); }
  void HandToJs(std::unique_ptr<GrpcJsCall> call) { js_(std::move(call)); }
  // Charges `bytes` of request message to the in-flight budget; false (nothing charged) when full.
  bool Charge(size_t bytes) { return inflight_.Charge(bytes); }
  void Refund(size_t bytes) { inflight_.Refund(bytes); }
  // A received message that keeps `charged` bytes of the budget until its last holder drops it
  // (possibly on a scheduler thread after the server is gone: the counter is shared).
  std::shared_ptr<std::string> AdoptMessage(std::string message, size_t charged);
  // Where message buffers come from and go back to (MessageFramer, AdoptMessage).
  RecycledBuffers<std::string>* recycled_messages() { return recycled_messages_.get(); }
  bool goaway_sent() const { return goaway_sent_; }
  void Forget(uint64_t connection_id);
  // A deadline for (connection, stream), in loop milliseconds (uv_now).
  void AddDeadline(uint64_t at_ms, uint64_t connection_id, int32_t stream_id);

 private:
  static void OnConnection(uv_stream_t* listener, int status);
  static void OnAsync(uv_async_t* async);
  static void OnGraceEnd(uv_timer_t* timer);
  static void OnDrainTimeout(uv_timer_t* timer);
  static void OnDeadline(uv_timer_t* timer);
  void DeliverAnswers();
  void StartDrain();
  void CheckDrained();
  void CloseEverything();
  void ArmDeadlineTimer();

  GrpcServerOptions options_;
  std::shared_ptr<GrpcInferRoute> route_;
  JsHandler js_;
  std::shared_ptr<GrpcMailbox> mailbox_ = std::make_shared<GrpcMailbox>();
  ByteBudget inflight_;  // request message bytes held by all calls (messages may outlive the server)
  // Shared with the messages, which give their memory back here (maybe after the server is gone).
  std::shared_ptr<RecycledBuffers<std::string>> recycled_messages_ = std::make_shared<RecycledBuffers<std::string>>();

  std::unique_ptr<char[]> read_buffer_{new char[kReadBufferSize]};
  uv_timer_t grace_timer_{};
  uv_timer_t drain_timer_{};
  uv_timer_t deadline_timer_{};
  // After the handles above: destroyed first, it closes a loop that never ran while they still exist.
  LoopThread loop_;

  bool draining_ = false;     // loop thread
  bool goaway_sent_ = false;  // loop thread
  bool closed_all_ = false;
  bool checking_ = false;

  std::atomic<size_t> connection_count_{0};
  std::atomic<uint64_t> refused_{0};
  uint64_t next_connection_id_ = 1;
  std::unordered_map<uint64_t, GrpcConnection*> connections_;
  std::multimap<uint64_t, std::pair<uint64_t, int32_t>> deadlines_;  // loop thread
  uint64_t deadline_armed_at_ = 0;                                    // 0: not armed
};

}  // namespace gebe
