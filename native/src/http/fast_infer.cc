// The KServe v2 HTTP infer route in native code (see fast_path.h): decodes each infer request of a
// published model once (json_infer_request.h: JSON tensors, binary tensors, or both), checks it
// with Normalize (the serving core's one check), queues it on the model's scheduler, and answers
// from the scheduler thread with the bytes the JS codec would send (JSON `data` or binary parts).
// A request Normalize refuses is answered here, in the wording every path shares; what it cannot
// decode as the JS codec would is declined: the JS handler answers it with the codec's wording.
// Outputs asked for as classes are answered with the classification every path shares.
#include <string_view>

#include "executor/answer_output.h"
#include "executor/classification.h"
#include "executor/model_core.h"
#include "executor/normalize.h"
#include "http/fast_path.h"
#include "http/infer_response.h"
#include "http/infer_route.h"
#include "http/json_infer_request.h"
#include "net/published_models.h"
#include "net/queue_taken.h"

namespace gebe {

namespace {

// What a binary answer with class results points into until it is written.
struct ClassifiedAnswer {
  std::shared_ptr<BatchOutputs> batch;
  std::vector<ClassResult> results;
};

// One taken request: what its answer needs, alive until the answer is handed over.
class FastCall : public NativeCall {
 public:
  FastCall(Respond respond, std::shared_ptr<std::vector<uint8_t>> body_owner, std::shared_ptr<const RequestContract> contract,
           std::shared_ptr<FailureTable> failures, std::shared_ptr<CallCancel> cancel)
      : respond_(std::move(respond)), body_owner_(std::move(body_owner)), contract_(std::move(contract)),
        failures_(std::move(failures)), cancel_(std::move(cancel)) {}

  std::vector<size_t> outputs;       // model output indexes, in response order
  std::vector<bool> binary;          // per entry of outputs: sent in the binary part
  std::vector<int64_t> class_count;  // per entry of outputs: k of the classification extension (0: the tensor)
  std::shared_ptr<const OutputLabels> labels;  // the model's, for class results
  bool has_id = false;
  std::string id;
  std::vector<std::vector<uint8_t>> json_inputs;  // inputs decoded from JSON `data` (the views point here)

  void Finished(std::unique_ptr<ScheduledRequest> request, std::shared_ptr<BatchOutputs> batch) override {
    if (request->trace) request->trace->StampNow(TraceStamp::kRequestEnd);
    HttpResponse response;
    RequestFailure answered = RequestFailure::Of(FailureReason::kInternal, kOutputsMismatch);
    if (request->ok() && batch) answered = Answer(*request, batch, &response);
    if (request->trace) request->trace->StampNow(TraceStamp::kInferResponseComplete);
    if (request->ok() && answered.ok()) {
      response.trace = std::move(request->trace);
      respond_(std::move(response));
      return;
    }
    // Class results of an output type that has none fail the request after it ran, as on the JS path.
    if (request->ok()) request->Fail(answered.reason, answered.message);
    Refuse(request->failure, request->error, std::move(request->trace));
  }

  // The client reset its connection: a request still queued is dropped (counted CANCELED).
  FailureReason CancelReason() const override { return cancel_->Reason(); }

  // Answers a failed request: the table's HTTP status and {"error": message}, counted by reason.
  void Refuse(FailureReason reason, const std::string& message, std::unique_ptr<RequestTrace> trace = nullptr) {
    failures_->Count(contract_->model_name, contract_->version, TraitsOf(reason).metric_reason);
    HttpResponse response;
    response.trace = std::move(trace);
    response.status = TraitsOf(reason).http_status;
    response.headers = "Content-Type: application/json\r\n";
    response.owned_body = EncodeErrorBody(message);
    respond_(std::move(response));
  }

 private:
  static constexpr const char* kOutputsMismatch = "internal error: the batch outputs do not match the model's outputs";

  RequestFailure Answer(const ScheduledRequest& request, const std::shared_ptr<BatchOutputs>& batch, HttpResponse* response) {
    const RequestFailure mismatch = RequestFailure::Of(FailureReason::kInternal, kOutputsMismatch);
    std::vector<ResponseOutput> described;
    described.reserve(outputs.size());
    std::shared_ptr<ClassifiedAnswer> classified;  // only when classes were asked for
    bool any_binary = false;
    for (size_t i = 0; i < outputs.size(); ++i) {
      AnsweredOutput answered;
      if (!AnswerOutput(*contract_, request, *batch, outputs[i], &answered)) return mismatch;
      const OutputSlice& slice = *answered.slice;
      const ContractTensor& meta = *answered.meta;
      const uint8_t* data = answered.data;
      ResponseOutput out{&meta.name, meta.dtype, &slice.shape, slice.byte_size, data, binary[i]};
      if (class_count[i] > 0) {
        if (!classified) {
          classified = std::make_shared<ClassifiedAnswer>();
          classified->batch = batch;
          classified->results.reserve(outputs.size());  // `described` points into it: no reallocation
        }
        ClassResult& result = classified->results.emplace_back();
        RequestFailure failure = Classify(meta.name, meta.dtype, slice.shape, contract_->batched, data, slice.byte_size,
                                          uint64_t(class_count[i]), FindLabels(labels.get(), meta.name), &result);
        if (!failure.ok()) return failure;
        out = {&meta.name, DataType::kString, &result.shape, result.bytes.size(), result.bytes.data(), binary[i]};
      }
      described.push_back(out);
      if (binary[i]) {
        response->pieces.emplace_back(out.data, out.byte_size);
        any_binary = true;
      }
    }
    if (!EncodeInferResponseJson(contract_->model_name, contract_->version, has_id ? &id : nullptr, described, &response->owned_body)) {
      return mismatch;
    }
    response->status = 200;
    if (any_binary) {
      response->headers = "Content-Type: application/octet-stream\r\nInference-Header-Content-Length: " +
                          std::to_string(response->owned_body.size()) + "\r\n";
      if (classified) response->hold = classified;
      else response->hold = batch;
    } else {
      response->headers = "Content-Type: application/json\r\n";
    }
    return RequestFailure::None();
  }

  Respond respond_;
  std::shared_ptr<std::vector<uint8_t>> body_owner_;  // the input views point into it
  std::shared_ptr<const RequestContract> contract_;
  std::shared_ptr<FailureTable> failures_;
  std::shared_ptr<CallCancel> cancel_;
};

class FastInfer : public FastPath {
 public:
  bool TryHandle(HttpRequest& request, Respond respond) override {
    if (request.method != "POST") return false;
    // The connection timed the request's arrival while tracing was on; one that came just before
    // is timed from here.
    const int64_t recv_end_ns = request.recv_end_ns != 0 ? request.recv_end_ns : TracingOn() ? SteadyNowNs() : 0;
    InferUrl url;
    if (!MatchInferUrl(request.url, &url)) return false;
    PublishedModels::Entry entry;
    if (!published_.Find(url.model, url.version, &entry) || !entry.contract) return false;
    bool has_binary = false;
    size_t header_length = 0;
    if (!InferHeaderLength(request.headers, &has_binary, &header_length)) return false;
    if (!has_binary) header_length = request.body_size;
    if (header_length > request.body_size) return false;
    DecodedHttpInfer decoded;
    if (!DecodeHttpInferJson(request.body, header_length, request.body + header_length, request.body_size - header_length, &decoded)) {
      return false;
    }
    const int64_t request_start_ns = recv_end_ns != 0 ? SteadyNowNs() : 0;
    NormalizedRequest normalized;
    RequestFailure failure = Normalize(*entry.contract, decoded.request, &normalized);
    std::vector<bool> binary = normalized.binary;
    for (size_t i = 0; failure.ok() && i < normalized.outputs.size(); ++i) {
      const DataType dtype = entry.contract->outputs[normalized.outputs[i]].dtype;
      // Class results are BYTES (or a refusal), whatever the output's type.
      if ((dtype != DataType::kFloat16 && dtype != DataType::kBFloat16) || normalized.class_count[i] > 0) continue;
      // No JSON form: binary unless the client asked for JSON, which the JS path refuses.
      const bool asked_json = decoded.request.has_outputs && decoded.request.outputs[i].binary_data.present() &&
                              !decoded.request.outputs[i].binary_data.bool_value;
      if (asked_json) return false;
      binary[i] = true;
    }

    log_.Note(request.method, request.url);
    request.cancel = std::make_shared<CallCancel>();
    auto call = std::make_unique<FastCall>(std::move(respond), request.body_owner, entry.contract, failures_, request.cancel);
    if (!failure.ok()) {
      call->Refuse(failure.reason, failure.message);
      return true;
    }
    call->outputs = std::move(normalized.outputs);
    call->binary = std::move(binary);
    call->class_count = std::move(normalized.class_count);
    call->labels = std::move(entry.labels);
    call->has_id = decoded.request.has_id;
    // Kept for a trace only while tracing is on (the id itself moves into the answer).
    const std::string request_id = recv_end_ns != 0 ? decoded.request.id : std::string();
    call->id = std::move(decoded.request.id);
    call->json_inputs = std::move(decoded.owned);
    normalized.request->native_call = std::move(call);
    if (recv_end_ns != 0) {
      const std::string* traceparent = request.Header("traceparent");
      normalized.request->trace = SampleTrace(entry.contract->model_name, entry.contract->version, TraceProtocol::kHttp,
                                              traceparent != nullptr ? std::string_view(*traceparent) : std::string_view());
      if (RequestTrace* trace = normalized.request->trace.get()) {
        trace->SetRequestId(request_id);
        trace->Stamp(TraceStamp::kRecvStart, request.recv_start_ns != 0 ? request.recv_start_ns : recv_end_ns);
        trace->Stamp(TraceStamp::kRecvEnd, recv_end_ns);
        trace->Stamp(TraceStamp::kRequestStart, request_start_ns);
      }
    }
    return QueueTaken(entry.core, normalized, *request.cancel) != TakenOutcome::kDeclined;
  }

  void Publish(const std::string& model, std::vector<PublishedVersion> versions, const std::string& default_version) override {
    published_.Publish(model, std::move(versions), default_version);
  }

  std::vector<FailureCount> TakeFailures() override { return failures_->Take(); }

  void EnableLog(bool on) override { log_.Enable(on); }

  TakenLog TakeLog() override { return log_.Take(); }

 private:
  PublishedModels published_;
  std::shared_ptr<FailureTable> failures_ = std::make_shared<FailureTable>();
  TakenRequestLog log_;
};

}  // namespace

std::unique_ptr<FastPath> MakeFastInfer() { return std::make_unique<FastInfer>(); }

}  // namespace gebe
