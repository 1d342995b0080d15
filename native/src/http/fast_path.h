// The seams of the native HTTP server (connections, parsing, limits): the native infer route
// that answers KServe v2 infer requests without JS (FastPath), and the one JS handler, in
// process, that answers everything else (RequestHandler).
//
// The server parses every request. A complete request that may be an infer request is offered
// to the fast path first; whatever the fast path declines goes, parsed, to the request handler.
// The fast path takes the requests it can decode and answer; their contract errors it answers
// itself through Normalize, in the wording every path shares.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "executor/classification.h"
#include "net/call_cancel.h"
#include "net/taken_log.h"
#include "trace/request_trace.h"

namespace gebe {

class ModelCore;

// One complete request, as parsed (chunked bodies already joined).
struct HttpRequest {
  std::string method;   // "POST"
  std::string url;      // as sent: "/v2/models/mnist/infer"
  // Header names lower-cased, values as sent, in arrival order.
  std::vector<std::pair<std::string, std::string>> headers;
  // The body. Its first byte is 64-byte aligned when the request carries an
  // Inference-Header-Content-Length, the binary part starts at body.data() + that length.
  std::shared_ptr<std::vector<uint8_t>> body_owner;  // keeps the bytes below alive
  const uint8_t* body = nullptr;
  size_t body_size = 0;
  bool keep_alive = true;
  bool http10 = false;  // HTTP/1.0 (may come without Host)
  // Set by the fast path when it takes the request: the connection marks it when its client goes
  // away before the answer, so a request still queued is dropped (loop thread).
  std::shared_ptr<CallCancel> cancel;
  // When its first byte arrived and when it was complete (steady ns), recorded only while tracing
  // is on (request_trace.h).
  int64_t recv_start_ns = 0;
  int64_t recv_end_ns = 0;

  const std::string* Header(const char* lower_name) const {
    for (const auto& h : headers) if (h.first == lower_name) return &h.second;
    return nullptr;
  }
};

// A response of the fast path. The server writes the status line, Content-Length and
// Connection itself; `headers` are the other header lines, each ending in "\r\n".
// How an answer's body goes out: whole (with Content-Length), or streamed in parts as they come
// (a chunked body on HTTP/1.1; on HTTP/1.0 the body runs to the connection's close): the first part
// carries the status and headers, each part's pieces are one chunk, the last ends the body.
enum class BodyPart : uint8_t { kWhole, kFirst, kNext, kLast };

struct HttpResponse {
  int status = 200;
  BodyPart part = BodyPart::kWhole;
  std::string headers;
  // Body pieces written in order without copying; `hold` keeps their memory alive until written.
  std::vector<std::pair<const uint8_t*, size_t>> pieces;
  std::string owned_body;            // a piece the response owns (the JSON header, an error)
  std::shared_ptr<const void> hold;  // e.g. the batch's output tensors
  bool close = false;                // the connection closes after this answer
  // A traced request's trace: the connection stamps the send and hands it on once written.
  std::unique_ptr<RequestTrace> trace;
};

// Called exactly once per taken request, from any thread (usually a scheduler thread); for a
// streamed answer once per part, in order, the last with BodyPart::kLast.
using Respond = std::function<void(HttpResponse)>;

// One model version the infer route may run.
struct PublishedVersion {
  std::string version;
  std::shared_ptr<ModelCore> core;
  // The label files of its outputs, read at load by JS (null: none has one), for the
  // classification extension.
  std::shared_ptr<const OutputLabels> labels;
};

// Failed fast-path requests, for nv_inference_request_failure{reason}.
struct FailureCount {
  std::string model, version, reason;  // reason: REJECTED, CANCELED, BACKEND, OTHER
  uint64_t count = 0;
};

class FastPath {
 public:
  virtual ~FastPath() = default;
  // A server loop thread; a server with several loops calls it from each at once, so it keeps no
  // state of its own outside locks (published models, failure counts and the log lock theirs). True: taken; `respond` will be called exactly once. False: declined; the
  // server hands the request to its RequestHandler. `request` stays valid until `respond` is called
  // if taken (the fast path keeps `body_owner`).
  virtual bool TryHandle(HttpRequest& request, Respond respond) = 0;
  // JS thread. Replaces what the infer URLs of `model` may reach. default_version is the version
  // an unversioned URL means ("" when none is ready: such requests are declined).
  // An empty `versions` withdraws the model.
  virtual void Publish(const std::string& model, std::vector<PublishedVersion> versions, const std::string& default_version) = 0;
  // JS thread. Failures counted since the last call (then reset).
  virtual std::vector<FailureCount> TakeFailures() = 0;
  // JS thread. From now on (on: true) every taken request is noted (a bounded number between two
  // TakeLog calls; the rest are only counted), so that verbose logging shows natively answered
  // requests; on: false stops it (verbose logging turned off at run time).
  virtual void EnableLog(bool on) = 0;
  // JS thread. The requests noted since the last call (then reset).
  virtual TakenLog TakeLog() = 0;
};

// Answers every request the fast path declines: health, metadata, the repository API, infer
// requests of models without a native handle... In serve it is JS (http_binding.cc hands the
// parsed request to one JS function through a thread-safe call).
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // A server loop thread, maybe several at once (serve's handler queues a thread-safe call under
  // a lock). `respond` is called exactly once, from any thread; `request` stays valid
  // until then (`respond` holds it).
  virtual void Handle(std::shared_ptr<HttpRequest> request, Respond respond) = 0;
  // A server loop thread (as Handle): the connection of a request handed to Handle closed before its answer
  // (the client reset it, a read or write failed), so the work may be dropped; `respond` still
  // works (the answer goes nowhere). Also called for requests the fast path took: ignore those
  // (the connection cancels them through HttpRequest::cancel).
  virtual void Abandoned(std::shared_ptr<HttpRequest> /*request*/) {}
};

// The binary infer route (fast_infer.cc).
std::unique_ptr<FastPath> MakeFastInfer();

}  // namespace gebe
