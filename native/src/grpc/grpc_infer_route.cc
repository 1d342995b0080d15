#include "grpc/grpc_infer_route.h"

#include <cstring>
#include <map>
#include <mutex>
#include <string_view>
#include <tuple>

#include "executor/model_core.h"
#include "grpc/infer_message.h"
#include "http/infer_header.h"
#include "http/infer_plan.h"

namespace gebe {

namespace {

// Failed requests by (model, version, reason), shared with calls that finish after the route.
class Failures {
 public:
  void Count(const std::string& model, const std::string& version, const char* reason) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_[std::make_tuple(model, version, std::string(reason))];
  }
  std::vector<FailureCount> Take() {
    std::map<std::tuple<std::string, std::string, std::string>, uint64_t> taken;
    {
      std::lock_guard<std::mutex> lock(mu_);
      taken.swap(counts_);
    }
    std::vector<FailureCount> out;
    for (auto& [key, count] : taken) out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), count});
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> counts_;
};

// The gRPC code of a scheduler failure, as protocol-error.ts maps it (Triton's HTTP↔gRPC table;
// a full queue is RESOURCE_EXHAUSTED).
GrpcCode CodeOf(const ScheduledRequest& request) {
  if (request.status == 503 && request.failure == FailureReason::kRejected && request.error.rfind("Exceeds maximum queue size", 0) == 0) {
    return GrpcCode::kResourceExhausted;
  }
  switch (request.status) {
    case 400: return GrpcCode::kInvalidArgument;
    case 404: return GrpcCode::kNotFound;
    case 413: return GrpcCode::kResourceExhausted;
    case 501: return GrpcCode::kUnimplemented;
    case 503: return GrpcCode::kUnavailable;
    default: return GrpcCode::kInternal;
  }
}

// One taken call: what its answer needs, alive until the answer is handed over.
class GrpcCall : public NativeCall {
 public:
  GrpcCall(std::shared_ptr<std::string> message, std::shared_ptr<const InferContract> contract, std::shared_ptr<Failures> failures,
           std::shared_ptr<GrpcCallCancel> cancel, GrpcInferRoute::Reply reply, bool stream)
      : message_(std::move(message)), contract_(std::move(contract)), failures_(std::move(failures)), cancel_(std::move(cancel)),
        reply_(std::move(reply)), stream_(stream) {}

  std::vector<size_t> outputs;             // model output indexes, in response order
  std::string id;
  std::vector<std::vector<uint8_t>> typed;  // inputs sent as typed contents, as bytes
  std::vector<AlignedBuffer> copies;        // inputs that were misaligned in the message

  void Finished(std::unique_ptr<ScheduledRequest> request, std::shared_ptr<BatchOutputs> batch) override {
    GrpcAnswer answer;
    answer.final = !stream_;
    if (request->ok() && batch && Answer(*request, *batch, &answer)) {
      reply_(std::move(answer));
      return;
    }
    if (request->ok()) request->Fail(FailureReason::kOther, 500, "internal error: the batch outputs do not match the model's outputs");
    failures_->Count(contract_->model_name, contract_->version, FailureReasonName(request->failure));
    if (stream_) {
      answer.framed = EncodeStreamError(request->error, contract_->model_name, contract_->version, id);
    } else {
      answer.code = CodeOf(*request);
      answer.message = request->error;
    }
    reply_(std::move(answer));
  }

 private:
  bool Answer(const ScheduledRequest& request, const BatchOutputs& batch, GrpcAnswer* answer) {
    std::vector<GrpcResponseOutput> described;
    described.reserve(outputs.size());
    for (size_t o : outputs) {
      if (o >= request.outputs.size() || o >= batch.tensors.size()) return false;
      const OutputSlice& slice = request.outputs[o];
      const Tensor& tensor = batch.tensors[o];
      if (slice.offset + slice.byte_size > tensor.buffer.size()) return false;
      const ContractTensor& meta = contract_->outputs[o];
      described.push_back({&meta.name, DataTypeName(meta.dtype), &slice.shape,
                           static_cast<const uint8_t*>(tensor.buffer.data()) + slice.offset, slice.byte_size});
    }
    answer->framed = EncodeModelInferResponse(contract_->model_name, contract_->version, id, described, stream_);
    return true;
  }

  std::shared_ptr<std::string> message_;  // the input views point into it
  std::shared_ptr<const InferContract> contract_;
  std::shared_ptr<Failures> failures_;
  std::shared_ptr<GrpcCallCancel> cancel_;
  GrpcInferRoute::Reply reply_;
  bool stream_;
};

struct Entry {
  std::shared_ptr<ModelCore> core;
  std::shared_ptr<const InferContract> contract;  // null: the native route cannot serve it
};

struct Model {
  std::map<std::string, Entry, std::less<>> versions;
  std::string default_version;
};

using Table = std::map<std::string, Model, std::less<>>;

std::shared_ptr<const InferContract> ContractOf(const std::string& version, ModelCore& core) {
  const auto& shapes = core.client_shapes();
  if (shapes.size() != core.inputs().size()) return nullptr;
  auto contract = std::make_shared<InferContract>();
  contract->model_name = core.options().model_name;
  contract->version = version;
  contract->batched = core.options().batched;
  contract->max_request_batch = core.options().policy.effective_max_batch;
  for (size_t i = 0; i < shapes.size(); ++i) contract->inputs.push_back({core.inputs()[i].name, core.inputs()[i].dtype, shapes[i]});
  for (const TensorDesc& o : core.outputs()) contract->outputs.push_back({o.name, o.dtype, o.dims});
  return contract;
}

DataType DataTypeByName(std::string_view name) {
  for (int t = int(DataType::kBool); t <= int(DataType::kBFloat16); ++t) {
    if (name == DataTypeName(DataType(t))) return DataType(t);
  }
  return DataType::kInvalid;
}

// A request parameter as decode-request reads priority and timeout: a non-negative integer.
bool NonNegative(const GrpcParameter& p, uint64_t* out) {
  if (p.kind == GrpcParameter::Kind::kUInt64) *out = p.uint64_value;
  else if (p.kind == GrpcParameter::Kind::kInt64 && p.int64_value >= 0) *out = uint64_t(p.int64_value);
  else return false;
  return *out <= (uint64_t(1) << 53) - 1;  // JavaScript's safe integers, as the JS path checks
}

class GrpcInferImpl : public GrpcInfer {
 public:
  bool TryHandle(std::shared_ptr<std::string> message, bool stream, std::shared_ptr<GrpcCallCancel> cancel, Reply reply) override {
    GrpcInferRequest req;
    const auto* bytes = reinterpret_cast<const uint8_t*>(message->data());
    if (!DecodeModelInferRequest(bytes, message->size(), &req)) return false;
    Entry entry;
    if (!Find(req.model_name.str(), req.model_version.str(), &entry) || !entry.contract) return false;
    const InferContract& contract = *entry.contract;

    auto call = std::make_unique<GrpcCall>(message, entry.contract, failures_, cancel, std::move(reply), stream);
    // The request as the binary HTTP route reads it: every input with a byte size, every output raw.
    InferHeader header;
    header.has_id = !req.id.empty();
    header.id = std::string(req.id.str());
    for (const GrpcNamedParameter& p : req.parameters) {
      const std::string_view key = p.key.str();
      if (key == "priority") {
        if (!NonNegative(p.value, &header.priority)) return false;
        header.has_priority = true;
      } else if (key == "timeout") {
        if (!NonNegative(p.value, &header.timeout)) return false;
        header.has_timeout = true;
      }
      // Other parameters (sequence_* among them) are not read by the JS path for these models either.
    }
    const bool raw = !req.raw_input_contents.empty();
    if (raw && req.raw_input_contents.size() != req.inputs.size()) return false;
    std::vector<ByteView> views(req.inputs.size());
    for (size_t i = 0; i < req.inputs.size(); ++i) {
      const GrpcInferInput& in = req.inputs[i];
      if (!in.parameters.empty()) return false;
      HeaderInput h;
      h.name = std::string(in.name.str());
      h.datatype = std::string(in.datatype.str());
      uint64_t count = 1;
      for (int64_t d : in.shape) {
        if (d < 0 || (d > 0 && count > (uint64_t(1) << 40) / uint64_t(d))) return false;
        count *= uint64_t(d);
      }
      h.shape = in.shape;
      if (raw) {
        if (in.has_contents) return false;
        views[i] = req.raw_input_contents[i];
      } else {
        const DataType dtype = DataTypeByName(h.datatype);
        if (!in.has_contents || !NativeRouteDatatype(dtype)) return false;
        call->typed.emplace_back();
        if (!TypedContentsToBytes(in.contents, dtype, count, &call->typed.back())) return false;
        views[i] = ByteView{call->typed.back().data(), call->typed.back().size()};
      }
      h.has_binary_data_size = true;
      h.binary_data_size = views[i].size;
      header.inputs.push_back(std::move(h));
    }
    header.has_inputs = true;
    header.binary_data_output = 1;  // gRPC answers carry raw_output_contents
    for (const GrpcRequestedOutput& o : req.outputs) {
      if (!o.parameters.empty()) return false;  // classification and the like: the JS path
      header.outputs.push_back(HeaderOutput{std::string(o.name.str()), 1});
    }
    header.has_outputs = !header.outputs.empty();
    size_t total = 0;
    for (const ByteView& v : views) total += v.size;
    InferPlan plan;
    if (!PlanInfer(header, contract, total, &plan)) return false;

    call->outputs = std::move(plan.outputs);
    call->id = std::move(header.id);
    auto scheduled = std::make_unique<ScheduledRequest>();
    const auto& descs = entry.core->inputs();
    scheduled->inputs.resize(plan.inputs.size());
    for (size_t i = 0; i < header.inputs.size(); ++i) {
      size_t index = 0;
      while (index < contract.inputs.size() && contract.inputs[index].name != header.inputs[i].name) ++index;
      InferPlan::Input& in = plan.inputs[index];
      TensorView& view = scheduled->inputs[index];
      view.name = descs[index].name;
      view.dtype = descs[index].dtype;
      view.shape = std::move(in.shape);
      view.byte_size = in.byte_size;
      const uint8_t* data = views[i].data;
      const size_t element = ElementSize(view.dtype);
      if (in.byte_size > 0 && reinterpret_cast<uintptr_t>(data) % element != 0) {
        // Engines read elements in place: a misaligned tensor is copied once into aligned memory.
        call->copies.emplace_back(in.byte_size);
        std::memcpy(call->copies.back().data(), data, in.byte_size);
        data = static_cast<const uint8_t*>(call->copies.back().data());
      }
      view.data = data;
    }
    scheduled->info.rows = plan.rows;
    scheduled->output_mask = plan.output_mask;
    scheduled->native_call = std::move(call);
    switch (entry.core->EnqueueNative(scheduled, plan.priority, plan.timeout_us)) {
      case ModelCore::NativeEnqueue::kQueued:
        return true;
      case ModelCore::NativeEnqueue::kRefused:
        return false;  // unloading: the JS path answers with its wording
      case ModelCore::NativeEnqueue::kRejected: {
        std::unique_ptr<NativeCall> rejected = std::move(scheduled->native_call);
        rejected->Finished(std::move(scheduled), nullptr);
        return true;
      }
    }
    return false;
  }

  void Publish(const std::string& model, std::vector<PublishedVersion> versions, const std::string& default_version) override {
    Model published;
    published.default_version = default_version;
    for (PublishedVersion& v : versions) {
      if (!v.core) continue;
      Entry entry;
      entry.contract = ContractOf(v.version, *v.core);
      entry.core = std::move(v.core);
      published.versions[v.version] = std::move(entry);
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto next = std::make_shared<Table>(*table_);
    if (published.versions.empty()) next->erase(model);
    else (*next)[model] = std::move(published);
    table_ = std::move(next);
  }

  std::vector<FailureCount> TakeFailures() override { return failures_->Take(); }

 private:
  bool Find(std::string_view model_name, std::string_view version, Entry* out) {
    std::shared_ptr<const Table> table;
    {
      std::lock_guard<std::mutex> lock(mu_);
      table = table_;
    }
    auto model = table->find(model_name);
    if (model == table->end()) return false;
    const std::string_view chosen = version.empty() ? std::string_view(model->second.default_version) : version;
    if (chosen.empty()) return false;
    auto entry = model->second.versions.find(chosen);
    if (entry == model->second.versions.end()) return false;
    *out = entry->second;
    return true;
  }

  std::mutex mu_;
  std::shared_ptr<const Table> table_ = std::make_shared<Table>();
  std::shared_ptr<Failures> failures_ = std::make_shared<Failures>();
};

}  // namespace

std::shared_ptr<GrpcInfer> MakeGrpcInfer() { return std::make_shared<GrpcInferImpl>(); }

}  // namespace gebe
