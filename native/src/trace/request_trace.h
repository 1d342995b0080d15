// Triton's trace extension, native half: which requests are traced (each model's trace setting,
// or the global one, samples every `rate`-th request until its count runs out), the timestamps a
// traced request collects on its way (front end, scheduler, front end again), and the finished
// traces waiting for JS, which writes the trace files (server/trace-writer.ts).
//
// Every native entry point samples here (the HTTP and gRPC infer routes, the executor's JS
// binding), so one sampling counter sees every request of a model whichever path serves it.
// While no setting traces, a request pays one relaxed atomic load (TracingOn).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/clock.h"

namespace gebe {

// Triton's timestamps of a request, in the order they happen. kRecv* and kSend* are the front
// end's (HTTP_RECV_* / GRPC_WAITREAD_*, HTTP_SEND_* / GRPC_SEND_*); a request queued from JS
// has none of them. kInferResponseComplete (INFER_RESPONSE_COMPLETE): the response is complete
// and in the hands of whoever sends it on (a native route's answer is encoded; JS has the result).
enum class TraceStamp : uint8_t {
  kRecvStart, kRecvEnd, kRequestStart, kQueueStart, kComputeStart, kComputeInputEnd,
  kComputeOutputStart, kComputeEnd, kRequestEnd, kInferResponseComplete, kSendStart, kSendEnd,
};
constexpr size_t kTraceStampCount = 12;

enum class TraceProtocol : uint8_t { kNone, kHttp, kGrpc };

// A tensor of a trace at level TENSORS: a request's input as queued, or an output as the model
// gave it (Triton's TENSOR_QUEUE_INPUT and TENSOR_BACKEND_OUTPUT).
struct TracedTensor {
  bool output = false;
  std::string name;
  std::string datatype;  // KServe's name
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

// The tensor bytes one trace keeps; a tensor past it is left out (its trace says so).
constexpr size_t kMaxTracedTensorBytes = 16u << 20;
// The bytes of a request's id a trace keeps (ids are UUIDs and the like; a longer one is cut, at
// a character's start, so that the traces waiting for JS stay small whatever clients send).
constexpr size_t kMaxTracedRequestIdBytes = 256;

struct RequestTrace {
  uint64_t id = 0;
  uint64_t parent_id = 0;  // an ensemble step's: the ensemble request's trace (0: none)
  std::string model;
  std::string version;
  TraceProtocol protocol = TraceProtocol::kNone;
  // This request used up its setting's trace_count: the writer completes a file with it.
  bool last = false;
  // The levels its setting traced: TIMESTAMPS (the writer writes ns), TENSORS (tensors are kept).
  bool timestamps = true;
  bool keep_tensors = false;
  int64_t ns[kTraceStampCount] = {};  // 0: not reached
  // The W3C traceparent the client sent (OpenTelemetry context propagation), checked; empty: none.
  std::string context;
  // The request's id (Triton's request_id in trace files and spans); empty: none.
  std::string request_id;
  std::vector<TracedTensor> tensors;
  size_t tensor_bytes = 0;
  bool tensors_left_out = false;  // some tensor passed kMaxTracedTensorBytes

  void Stamp(TraceStamp stamp, int64_t at_ns) { ns[size_t(stamp)] = at_ns; }
  void SetRequestId(std::string_view id) {
    size_t n = id.size();
    if (n > kMaxTracedRequestIdBytes) {
      n = kMaxTracedRequestIdBytes;
      while (n > 0 && (static_cast<unsigned char>(id[n]) & 0xC0) == 0x80) --n;
    }
    request_id.assign(id.data(), n);
  }
  void StampNow(TraceStamp stamp) { Stamp(stamp, SteadyNowNs()); }
  // Level TENSORS: keeps a copy of a tensor, while the trace's bytes stay within the bound.
  void AddTensor(bool output, const std::string& name, const std::string& datatype, const std::vector<int64_t>& shape, const void* data,
                 size_t byte_size) {
    if (!keep_tensors) return;
    if (tensor_bytes + byte_size > kMaxTracedTensorBytes) {
      tensors_left_out = true;
      return;
    }
    const auto* p = static_cast<const uint8_t*>(data);
    tensors.push_back({output, name, datatype, shape, std::vector<uint8_t>(p, p + (p != nullptr ? byte_size : 0))});
    tensor_bytes += byte_size;
  }
};

// Any thread: some setting traces (its level is TIMESTAMPS and its count is not used up), or, with
// context propagation on, some setting's level is on.
bool TracingOn();

// OpenTelemetry context propagation (server/otel-exporter.ts turns it on in mode opentelemetry, as
// Triton does): a request whose client sent a valid W3C `traceparent` is traced whenever its
// setting's level is on, whatever the setting's rate and count, as a span of the client's trace.
void SetContextPropagation(bool on);
// `00-<32 hex>-<16 hex>-<2 hex>`, the ids not all zeros (W3C Trace Context, version 00).
bool ValidTraceparent(std::string_view value);

// Any thread: a trace for this request of `model` when the setting that governs the model (its
// own, or the global one) samples it, or when `traceparent` propagates a client's context (above);
// null otherwise (and always while TracingOn() is false).
std::unique_ptr<RequestTrace> SampleTrace(const std::string& model, const std::string& version, TraceProtocol protocol,
                                          std::string_view traceparent = {});

// Any thread: the trace of a step of a traced ensemble request (`parent_id`): always made, as
// Triton traces every step of a traced ensemble, whatever the step's model's own setting.
// It traces what its parent traces (`timestamps`, `tensors`).
std::unique_ptr<RequestTrace> ChildTrace(const std::string& model, const std::string& version, uint64_t parent_id, bool timestamps,
                                         bool tensors);

// Any thread: a traced request is done; its trace waits for JS (TakeTraces). Null is ignored.
void CollectTrace(std::unique_ptr<RequestTrace> trace);

// A trace setting as JS sets it (server/trace-settings.ts checks the values).
struct TraceSettingValues {
  bool on = false;     // trace_level includes TIMESTAMPS or TENSORS
  bool timestamps = true;  // it includes TIMESTAMPS
  bool tensors = false;    // it includes TENSORS
  uint64_t rate = 1000;  // trace_rate
  int64_t count = -1;  // trace_count: traces left to take, -1 without limit
  bool set_count = true;  // false: a setting that exists keeps the traces it has left
};

// JS thread: sets the global setting (model null) or a model's own (values null: the model
// follows the global setting again). A setting that exists keeps its sampling counter (and, without
// set_count, the traces it has left).
void SetTraceSetting(const std::string* model, const TraceSettingValues* values);

// JS thread: the traces a setting may still take (-1: no limit); the global one's for a model
// without its own.
int64_t TraceCountLeft(const std::string* model);

// JS thread: the finished traces since the last call, in the order they finished, and how many
// were dropped because JS had not taken them (a bounded number waits).
std::vector<std::unique_ptr<RequestTrace>> TakeTraces(uint64_t* dropped);

}  // namespace gebe
