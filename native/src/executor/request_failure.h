// Why a request failed, in one enum, and what each reason means on every wire: the HTTP status,
// the gRPC status code, and Triton's reason label of nv_inference_request_failure. Every path
// that fails a request (Normalize, the scheduler, engines, the front ends) names a reason here;
// no front end guesses a status from a message's text. The JS side reads the same table through
// the addon (executor `failureReasons()`), so the mapping exists once.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace gebe {

enum class FailureReason : uint8_t {
  kNone = 0,          // not failed
  kInvalidArgument,   // the request is malformed or does not fit the model's contract
  kNotFound,          // the model (version) named does not exist
  kUnsupported,       // a feature the server does not offer (Triton: 400 over HTTP, UNIMPLEMENTED over gRPC)
  kTooLarge,          // a message or body over the server's limits
  kUnavailable,       // the model is not ready, unloading or unloaded
  kQueueFull,         // the scheduler's queue is full (Triton: "Exceeds maximum queue size")
  kQueueTimeout,      // the request waited in the queue past its timeout ("Request timeout expired")
  kDeadlineExceeded,  // the client's own deadline (grpc-timeout) passed before an answer
  kCancelled,         // the client went away (stream reset, connection closed) while queued or running
  kBackend,           // the engine failed to run the batch
  kInternal,          // anything else: a server bug, never the client's fault
};

constexpr int kFailureReasonCount = 12;

// One row of the table.
struct FailureTraits {
  const char* name;            // stable identifier, as the JS side spells it: "INVALID_ARGUMENT", ...
  int http_status;             // Triton's HTTP status for it
  int grpc_code;               // grpc::StatusCode value (3 INVALID_ARGUMENT, 5 NOT_FOUND, ...)
  const char* metric_reason;   // nv_inference_request_failure{reason}: REJECTED, CANCELED, BACKEND, OTHER
};

// The table, indexed by the enum's value.
inline const FailureTraits& TraitsOf(FailureReason reason) {
  static constexpr FailureTraits kTable[kFailureReasonCount] = {
      {"NONE", 200, 0, "OTHER"},
      {"INVALID_ARGUMENT", 400, 3, "OTHER"},
      {"NOT_FOUND", 404, 5, "OTHER"},
      {"UNSUPPORTED", 400, 12, "OTHER"},
      {"TOO_LARGE", 413, 8, "OTHER"},
      {"UNAVAILABLE", 503, 14, "REJECTED"},
      {"QUEUE_FULL", 503, 8, "REJECTED"},
      {"QUEUE_TIMEOUT", 503, 14, "REJECTED"},
      {"DEADLINE_EXCEEDED", 504, 4, "CANCELED"},
      {"CANCELLED", 499, 1, "CANCELED"},
      {"BACKEND", 500, 13, "BACKEND"},
      {"INTERNAL", 500, 13, "OTHER"},
  };
  const auto index = static_cast<size_t>(reason);
  return kTable[index < size_t(kFailureReasonCount) ? index : size_t(FailureReason::kInternal)];
}

// The message of a request failed with kDeadlineExceeded or kCancelled, wherever it was (queued,
// running, or answered by the gRPC front end the moment its deadline passed).
inline const char* CancelledMessage(FailureReason reason) {
  return reason == FailureReason::kDeadlineExceeded ? "Deadline Exceeded" : "Request was cancelled";
}

// A failed request: why, and the message the client reads (Triton's wording).
struct RequestFailure {
  FailureReason reason = FailureReason::kNone;
  std::string message;

  bool ok() const { return reason == FailureReason::kNone; }
  static RequestFailure None() { return {}; }
  static RequestFailure Of(FailureReason reason, std::string message) { return {reason, std::move(message)}; }
};

}  // namespace gebe
