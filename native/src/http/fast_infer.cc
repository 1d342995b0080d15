// The binary KServe v2 infer route in native code (see fast_path.h): decodes the infer requests
// whose tensors all travel binary, has Normalize check them (answering a bad one here, in the
// wording every path shares), queues them on the model's scheduler, and answers them from the
// scheduler thread with the bytes the JS server would send. What it does not decode (JSON tensor
// data) or cannot answer plainly (JSON outputs) is declined.
#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string_view>
#include <tuple>

#include "executor/model_core.h"
#include "http/fast_path.h"
#include "http/infer_header.h"
#include "http/infer_plan.h"
#include "http/infer_response.h"

namespace gebe {

namespace {


// Failed requests by (model, version, reason). Shared with the calls in flight, which may finish
// after the fast path itself is gone.
class FailureTable {
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

// One taken request: what its answer needs, alive until the answer is handed over.
class FastCall : public NativeCall {
 public:
  FastCall(Respond respond, std::shared_ptr<std::vector<uint8_t>> body_owner, std::shared_ptr<const RequestContract> contract,
           std::shared_ptr<FailureTable> failures)
      : respond_(std::move(respond)), body_owner_(std::move(body_owner)), contract_(std::move(contract)),
        failures_(std::move(failures)) {}

  std::vector<size_t> outputs;  // model output indexes, in response order
  bool has_id = false;
  std::string id;

  void Finished(std::unique_ptr<ScheduledRequest> request, std::shared_ptr<BatchOutputs> batch) override {
    HttpResponse response;
    if (request->ok() && batch && Answer(*request, batch, &response)) {
      respond_(std::move(response));
      return;
    }
    if (request->ok()) request->Fail(FailureReason::kInternal, "internal error: the batch outputs do not match the model's outputs");
    Refuse(request->failure, request->error);
  }

  // Answers a failed request: the table's HTTP status and {"error": message}, counted by reason.
  void Refuse(FailureReason reason, const std::string& message) {
    failures_->Count(contract_->model_name, contract_->version, TraitsOf(reason).metric_reason);
    HttpResponse response;
    response.status = TraitsOf(reason).http_status;
    response.headers = "Content-Type: application/json\r\n";
    response.owned_body = EncodeErrorBody(message);
    respond_(std::move(response));
  }

 private:
  bool Answer(const ScheduledRequest& request, const std::shared_ptr<BatchOutputs>& batch, HttpResponse* response) {
    std::vector<ResponseOutput> described;
    described.reserve(outputs.size());
    for (size_t o : outputs) {
      if (o >= request.outputs.size() || o >= batch->tensors.size()) return false;
      const OutputSlice& slice = request.outputs[o];
      const Tensor& tensor = batch->tensors[o];
      if (slice.offset + slice.byte_size > tensor.buffer.size()) return false;
      const ContractTensor& meta = contract_->outputs[o];
      described.push_back({&meta.name, DataTypeName(meta.dtype), &slice.shape, slice.byte_size});
      response->pieces.emplace_back(static_cast<const uint8_t*>(tensor.buffer.data()) + slice.offset, slice.byte_size);
    }
    response->owned_body = EncodeInferResponseHeader(contract_->model_name, contract_->version, has_id ? &id : nullptr, described);
    response->status = 200;
    response->headers = "Content-Type: application/octet-stream\r\nInference-Header-Content-Length: " +
                        std::to_string(response->owned_body.size()) + "\r\n";
    response->hold = batch;
    return true;
  }

  Respond respond_;
  std::shared_ptr<std::vector<uint8_t>> body_owner_;  // the input views point into it
  std::shared_ptr<const RequestContract> contract_;
  std::shared_ptr<FailureTable> failures_;
};

struct PublishedEntry {
  std::shared_ptr<ModelCore> core;
  std::shared_ptr<const RequestContract> contract;  // null: the native route cannot serve it
};

struct PublishedModel {
  std::map<std::string, PublishedEntry, std::less<>> versions;
  std::string default_version;
};

using PublishedTable = std::map<std::string, PublishedModel, std::less<>>;

class FastInfer : public FastPath {
 public:
  bool TryHandle(HttpRequest& request, Respond respond) override {
    if (request.method != "POST") return false;
    InferUrl url;
    if (!MatchInferUrl(request.url, &url)) return false;
    PublishedEntry entry;
    if (!Find(url, &entry) || !entry.contract) return false;
    size_t header_length = 0;
    if (!BinaryHeaderLength(request.headers, &header_length) || header_length > request.body_size) return false;
    const char* json = reinterpret_cast<const char*>(request.body);
    InferHeader header;
    if (!ReadInferHeader(json, header_length, &header)) return false;
    DecodedRequest decoded;
    if (!DecodeBinaryInfer(header, request.body + header_length, request.body_size - header_length, &decoded)) return false;
    NormalizedRequest normalized;
    RequestFailure failure = Normalize(*entry.contract, decoded, &normalized);
    if (failure.ok() && !NativeRouteAnswers(normalized, *entry.contract)) return false;

    if (log_enabled_.load(std::memory_order_relaxed)) Note(request);
    auto call = std::make_unique<FastCall>(std::move(respond), request.body_owner, entry.contract, failures_);
    if (!failure.ok()) {
      call->Refuse(failure.reason, failure.message);
      return true;
    }
    call->outputs = std::move(normalized.outputs);
    call->has_id = decoded.has_id;
    call->id = std::move(decoded.id);
    std::unique_ptr<ScheduledRequest>& scheduled = normalized.request;
    scheduled->native_call = std::move(call);
    switch (entry.core->EnqueueNative(scheduled, normalized.priority, normalized.timeout_us)) {
      case ModelCore::NativeEnqueue::kQueued:
        return true;
      case ModelCore::NativeEnqueue::kRefused:
        return false;  // unloading: the JS path answers with its wording
      case ModelCore::NativeEnqueue::kRejected: {
        // Refused now (queue full): answered here, as the JS path answers a rejection.
        std::unique_ptr<NativeCall> rejected = std::move(scheduled->native_call);
        rejected->Finished(std::move(scheduled), nullptr);
        return true;
      }
    }
    return false;
  }

  void Publish(const std::string& model, std::vector<PublishedVersion> versions, const std::string& default_version) override {
    PublishedModel published;
    published.default_version = default_version;
    for (PublishedVersion& v : versions) {
      if (!v.core) continue;
      PublishedEntry entry;
      entry.contract = v.core->contract();
      entry.core = std::move(v.core);
      published.versions[v.version] = std::move(entry);
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto next = std::make_shared<PublishedTable>(*table_);
    if (published.versions.empty()) next->erase(model);
    else (*next)[model] = std::move(published);
    table_ = std::move(next);
  }

  std::vector<FailureCount> TakeFailures() override { return failures_->Take(); }

  void EnableLog() override { log_enabled_.store(true, std::memory_order_relaxed); }

  TakenLog TakeLog() override {
    TakenLog out;
    std::lock_guard<std::mutex> lock(log_mu_);
    std::swap(out, log_);
    return out;
  }

 private:
  // Bounds what an undrained log may hold (JS drains it a few times a second).
  static constexpr size_t kLogCap = 4096;

  void Note(const HttpRequest& request) {
    std::lock_guard<std::mutex> lock(log_mu_);
    if (log_.requests.size() < kLogCap) log_.requests.emplace_back(request.method, request.url);
    else ++log_.dropped;
  }

  bool Find(const InferUrl& url, PublishedEntry* out) {
    std::shared_ptr<const PublishedTable> table;
    {
      std::lock_guard<std::mutex> lock(mu_);
      table = table_;
    }
    auto model = table->find(url.model);
    if (model == table->end()) return false;
    const std::string_view version = url.versioned ? url.version : std::string_view(model->second.default_version);
    if (version.empty()) return false;
    auto entry = model->second.versions.find(version);
    if (entry == model->second.versions.end()) return false;
    *out = entry->second;
    return true;
  }

  std::mutex mu_;  // guards the pointer; the table it points to is never changed
  std::shared_ptr<const PublishedTable> table_ = std::make_shared<PublishedTable>();
  std::shared_ptr<FailureTable> failures_ = std::make_shared<FailureTable>();
  std::atomic<bool> log_enabled_{false};
  std::mutex log_mu_;
  TakenLog log_;
};

}  // namespace

std::unique_ptr<FastPath> MakeFastInfer() { return std::make_unique<FastInfer>(); }

}  // namespace gebe
