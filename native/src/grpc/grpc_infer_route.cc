#include "grpc/grpc_infer_route.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include "executor/answer_output.h"
#include "executor/classification.h"
#include "executor/model_core.h"
#include "executor/normalize.h"
#include "grpc/infer_message.h"
#include "net/published_models.h"
#include "net/queue_taken.h"

namespace gebe {

namespace {

// One taken call: what its answer needs, alive until the answer is handed over.
class GrpcCall : public NativeCall {
 public:
  GrpcCall(std::shared_ptr<std::string> message, std::shared_ptr<const RequestContract> contract, std::shared_ptr<FailureTable> failures,
           std::shared_ptr<CallCancel> cancel, GrpcInferRoute::Reply reply, bool stream)
      : message_(std::move(message)), contract_(std::move(contract)), failures_(std::move(failures)), cancel_(std::move(cancel)),
        reply_(std::move(reply)), stream_(stream) {}

  std::vector<size_t> outputs;                // model output indexes, in response order
  std::vector<int64_t> class_count;           // per entry of outputs: k of the classification extension (0: the tensor)
  std::shared_ptr<const OutputLabels> labels;  // the model's, for class results
  std::string id;
  std::string requested_version;            // as the client sent it ("" for the default): a stream's in-band error echoes it, as the JS path does
  std::vector<std::vector<uint8_t>> typed;  // inputs sent as typed contents, as bytes

  void Finished(std::unique_ptr<ScheduledRequest> request, std::shared_ptr<BatchOutputs> batch) override {
    if (request->trace) request->trace->StampNow(TraceStamp::kRequestEnd);
    GrpcAnswer answer;
    answer.final = !stream_;
    RequestFailure answered = RequestFailure::Of(FailureReason::kInternal, kOutputsMismatch);
    if (request->ok() && batch) answered = Answer(*request, *batch, &answer);
    if (request->trace) request->trace->StampNow(TraceStamp::kInferResponseComplete);
    if (request->ok() && answered.ok()) {
      answer.trace = std::move(request->trace);
      reply_(std::move(answer));
      return;
    }
    // Class results of an output type that has none fail the request after it ran, as on the JS path.
    if (request->ok()) request->Fail(answered.reason, answered.message);
    Refuse(request->failure, request->error, std::move(request->trace));
  }

  FailureReason CancelReason() const override { return cancel_->Reason(); }

  // Answers a failed request: the table's gRPC code (in band on a stream), counted by reason.
  void Refuse(FailureReason reason, const std::string& message, std::unique_ptr<RequestTrace> trace = nullptr) {
    failures_->Count(contract_->model_name, contract_->version, TraitsOf(reason).metric_reason);
    GrpcAnswer answer;
    answer.trace = std::move(trace);
    answer.final = !stream_;
    if (stream_) {
      answer.framed = EncodeStreamError(message, contract_->model_name, requested_version, id);
    } else {
      answer.code = GrpcCode(TraitsOf(reason).grpc_code);
      answer.message = message;
    }
    reply_(std::move(answer));
  }

 private:
  static constexpr const char* kOutputsMismatch = "internal error: the batch outputs do not match the model's outputs";

  RequestFailure Answer(const ScheduledRequest& request, const BatchOutputs& batch, GrpcAnswer* answer) {
    const RequestFailure mismatch = RequestFailure::Of(FailureReason::kInternal, kOutputsMismatch);
    std::vector<GrpcResponseOutput> described;
    described.reserve(outputs.size());
    std::vector<ClassResult> classified;
    classified.reserve(outputs.size());  // `described` points into it: no reallocation
    for (size_t i = 0; i < outputs.size(); ++i) {
      AnsweredOutput answered;
      if (!AnswerOutput(*contract_, request, batch, outputs[i], &answered)) return mismatch;
      const OutputSlice& slice = *answered.slice;
      const ContractTensor& meta = *answered.meta;
      const uint8_t* data = answered.data;
      if (class_count[i] > 0) {
        ClassResult& result = classified.emplace_back();
        RequestFailure failure = Classify(meta.name, meta.dtype, slice.shape, contract_->batched, data, slice.byte_size,
                                          uint64_t(class_count[i]), FindLabels(labels.get(), meta.name), &result);
        if (!failure.ok()) return failure;
        described.push_back({&meta.name, DataTypeName(DataType::kString), &result.shape, result.bytes.data(), result.bytes.size()});
        continue;
      }
      described.push_back({&meta.name, DataTypeName(meta.dtype), &slice.shape, data, slice.byte_size});
    }
    answer->framed = EncodeModelInferResponse(contract_->model_name, contract_->version, id, described, stream_);
    return RequestFailure::None();
  }

  std::shared_ptr<std::string> message_;  // the input views point into it
  std::shared_ptr<const RequestContract> contract_;
  std::shared_ptr<FailureTable> failures_;
  std::shared_ptr<CallCancel> cancel_;
  GrpcInferRoute::Reply reply_;
  bool stream_;
};

using Entry = PublishedModels::Entry;

ParameterValue ValueOf(const GrpcParameter& p) {
  constexpr double kMaxSafeInteger = 9007199254740991.0;
  switch (p.kind) {
    case GrpcParameter::Kind::kBool: return ParameterValue::Bool(p.bool_value);
    case GrpcParameter::Kind::kInt64: return ParameterValue::Int64(p.int64_value);
    case GrpcParameter::Kind::kUInt64: return ParameterValue::Uint64(p.uint64_value);
    case GrpcParameter::Kind::kDouble: {
      // As the JS codec reads a double_param (a JS number): a whole one within 2^53 is an integer.
      const double v = p.double_value;
      if (std::floor(v) == v && std::fabs(v) <= kMaxSafeInteger) return ParameterValue::Int64(int64_t(v));
      return ParameterValue::Double(v);
    }
    case GrpcParameter::Kind::kString: return ParameterValue::String(std::string(Str(p.string_value)));
    default: return ParameterValue();
  }
}

class GrpcInferImpl : public GrpcInfer {
 public:
  bool TryHandle(std::shared_ptr<std::string> message, bool stream, std::shared_ptr<CallCancel> cancel, Reply reply,
                 int64_t read_start_ns, std::string_view traceparent) override {
    const int64_t read_end_ns = TracingOn() ? SteadyNowNs() : 0;
    GrpcInferRequest req;
    const auto* bytes = reinterpret_cast<const uint8_t*>(message->data());
    if (!DecodeModelInferRequest(bytes, message->size(), &req)) return false;
    Entry entry;
    if (!published_.Find(Str(req.model_name), Str(req.model_version), &entry) || !entry.contract) return false;
    const RequestContract& contract = *entry.contract;

    auto call = std::make_unique<GrpcCall>(message, entry.contract, failures_, cancel, std::move(reply), stream);
    DecodedRequest decoded;
    if (!Decode(req, &decoded, &call->typed)) return false;
    const int64_t request_start_ns = read_end_ns != 0 ? SteadyNowNs() : 0;
    NormalizedRequest normalized;
    RequestFailure failure = Normalize(contract, decoded, &normalized);
    if (failure.ok() && !Answerable(normalized, contract)) return false;
    static const std::string kPost = "POST";
    static const std::string kUnary(kInferPath), kStream(kStreamInferPath);
    log_.Note(kPost, stream ? kStream : kUnary);
    const std::string request_id = read_end_ns != 0 ? decoded.id : std::string();  // for a trace (the id moves into the answer)
    call->id = std::move(decoded.id);
    call->requested_version = std::string(Str(req.model_version));
    if (!failure.ok()) {
      call->Refuse(failure.reason, failure.message);
      return true;
    }
    call->outputs = std::move(normalized.outputs);
    call->class_count = std::move(normalized.class_count);
    call->labels = std::move(entry.labels);
    normalized.request->native_call = std::move(call);
    if (read_end_ns != 0) {
      normalized.request->trace = SampleTrace(contract.model_name, contract.version, TraceProtocol::kGrpc, traceparent);
      if (RequestTrace* trace = normalized.request->trace.get()) {
        trace->SetRequestId(request_id);
        trace->Stamp(TraceStamp::kRecvStart, read_start_ns != 0 ? read_start_ns : read_end_ns);
        trace->Stamp(TraceStamp::kRecvEnd, read_end_ns);
        trace->Stamp(TraceStamp::kRequestStart, request_start_ns);
      }
    }
    // A client that resets its stream or passes its deadline takes its request out of the queue.
    return QueueTaken(entry.core, normalized, *cancel) != TakenOutcome::kDeclined;
  }

  void Publish(const std::string& model, std::vector<PublishedVersion> versions, const std::string& default_version) override {
    published_.Publish(model, std::move(versions), default_version);
  }

  std::vector<FailureCount> TakeFailures() override { return failures_->Take(); }

  void EnableLog(bool on) override { log_.Enable(on); }

  TakenLog TakeLog() override { return log_.Take(); }

 private:
  // The message as the core reads every request. False: what this route does not decode (typed
  // BYTES contents, typed contents that do not match their datatype, raw and typed contents
  // mixed, a raw_input_contents count that is not the input count): the JS path words those.
  static bool Decode(const GrpcInferRequest& req, DecodedRequest* out, std::vector<std::vector<uint8_t>>* typed) {
    out->has_id = req.id.size > 0;
    out->id = std::string(Str(req.id));
    for (const GrpcNamedParameter& p : req.parameters) {
      const std::string_view key = Str(p.key);
      if (key == "priority") out->priority = ValueOf(p.value);
      else if (key == "timeout") out->timeout_us = ValueOf(p.value);
      else if (key == "sequence_id") out->sequence_id = ValueOf(p.value);
      else if (key == "sequence_start") out->sequence_start = ValueOf(p.value);
      else if (key == "sequence_end") out->sequence_end = ValueOf(p.value);
    }
    const bool raw = !req.raw_input_contents.empty();
    if (raw && req.raw_input_contents.size() != req.inputs.size()) return false;
    // Tensors in shared-memory regions (Triton's shared_memory_region) are the JS path's.
    for (const GrpcInferInput& in : req.inputs) {
      if (NamesSharedMemory(in.parameters)) return false;
    }
    for (const GrpcRequestedOutput& o : req.outputs) {
      if (NamesSharedMemory(o.parameters)) return false;
    }
    typed->reserve(req.inputs.size());
    for (size_t i = 0; i < req.inputs.size(); ++i) {
      const GrpcInferInput& in = req.inputs[i];
      DecodedInput d;
      d.name = std::string(Str(in.name));
      d.datatype = std::string(Str(in.datatype));
      d.shape = in.shape;
      if (raw) {
        if (in.has_contents) return false;
        d.bytes = req.raw_input_contents[i];
      } else {
        // Typed contents: converted to the tensor's bytes here (the count bounded by the bytes sent).
        const DataType dtype = DataTypeFromName(d.datatype);
        uint64_t count = 1;
        for (int64_t dim : in.shape) {
          if (dim < 0 || (dim > 0 && count > (uint64_t(1) << 40) / uint64_t(dim))) return false;
          count *= uint64_t(dim);
        }
        typed->emplace_back();
        if (!in.has_contents || !TypedContentsToBytes(in.contents, dtype, count, &typed->back())) return false;
        d.bytes = ByteView{typed->back().data(), typed->back().size()};
      }
      out->inputs.push_back(std::move(d));
    }
    out->has_outputs = !req.outputs.empty();
    for (const GrpcRequestedOutput& o : req.outputs) {
      DecodedOutput d;
      d.name = std::string(Str(o.name));
      // The classification extension's k, as grpc-infer.ts reads it: the last value of each key
      // (a map), `class_count` winning over `classification`, each a positive safe integer.
      const GrpcParameter* by_key[2] = {nullptr, nullptr};
      for (const GrpcNamedParameter& p : o.parameters) {
        const std::string_view key = Str(p.key);
        if (key == "classification") by_key[0] = &p.value;
        else if (key == "class_count") by_key[1] = &p.value;
      }
      for (const GrpcParameter* value : by_key) {
        if (value == nullptr) continue;
        uint64_t k = 0;
        if (!ClassCount(*value, &k)) return false;
        d.class_count = ParameterValue::Uint64(k);
      }
      out->outputs.push_back(std::move(d));
    }
    return true;
  }

  static bool NamesSharedMemory(const std::vector<GrpcNamedParameter>& parameters) {
    for (const GrpcNamedParameter& p : parameters) {
      if (Str(p.key) == "shared_memory_region") return true;
    }
    return false;
  }

  // A k grpc-infer.ts takes: a whole number from 1 to 2^53 - 1, sent as any numeric kind.
  static bool ClassCount(const GrpcParameter& p, uint64_t* k) {
    constexpr uint64_t kMaxSafeInteger = (uint64_t(1) << 53) - 1;
    switch (p.kind) {
      case GrpcParameter::Kind::kInt64:
        if (p.int64_value < 1) return false;
        *k = uint64_t(p.int64_value);
        break;
      case GrpcParameter::Kind::kUInt64: *k = p.uint64_value; break;
      case GrpcParameter::Kind::kDouble:
        if (!(p.double_value >= 1 && p.double_value <= double(kMaxSafeInteger)) || std::floor(p.double_value) != p.double_value) return false;
        *k = uint64_t(p.double_value);
        break;
      default: return false;
    }
    return *k >= 1 && *k <= kMaxSafeInteger;
  }

  // What a gRPC answer of this route can carry: raw fixed-size outputs and class results (BYTES
  // outputs themselves are the JS path's).
  static bool Answerable(const NormalizedRequest& request, const RequestContract& contract) {
    for (size_t k = 0; k < request.outputs.size(); ++k) {
      if (request.class_count[k] == 0 && ElementSize(contract.outputs[request.outputs[k]].dtype) == 0) return false;
    }
    return true;
  }

  PublishedModels published_;
  std::shared_ptr<FailureTable> failures_ = std::make_shared<FailureTable>();
  TakenRequestLog log_;
};

}  // namespace

std::shared_ptr<GrpcInfer> MakeGrpcInfer() { return std::make_shared<GrpcInferImpl>(); }

}  // namespace gebe
