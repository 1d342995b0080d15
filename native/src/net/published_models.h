// What the native infer routes may run: the published model versions (each with its request
// contract) and the version an unversioned request means, swapped whole on every publish so
// front end threads read it without holding a lock while they work; and the failures those
// routes answered, counted for nv_inference_request_failure. Shared by the native front ends
// (the HTTP route in http/fast_infer.cc, the gRPC route in grpc/grpc_infer_route.cc).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "executor/model_core.h"
#include "http/fast_path.h"

namespace gebe {

// Failed requests by (model, version, reason); shared with calls that finish after their route.
class FailureTable {
 public:
  void Count(const std::string& model, const std::string& version, const char* reason) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_[std::make_tuple(model, version, std::string(reason))];
  }
  // The counts since the last call (then reset).
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

class PublishedModels {
 public:
  struct Entry {
    std::shared_ptr<ModelCore> core;
    std::shared_ptr<const RequestContract> contract;  // null: no native route can serve it
    std::shared_ptr<const OutputLabels> labels;       // null: no output has a label file
  };

  // JS thread. Replaces what `model` may reach; an empty `versions` withdraws it.
  void Publish(const std::string& model, std::vector<PublishedVersion> versions, const std::string& default_version) {
    Model published;
    published.default_version = default_version;
    for (PublishedVersion& v : versions) {
      if (!v.core) continue;
      Entry entry;
      entry.contract = v.core->contract();
      entry.core = std::move(v.core);
      entry.labels = std::move(v.labels);
      published.versions[v.version] = std::move(entry);
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto next = std::make_shared<Table>(*table_);
    if (published.versions.empty()) next->erase(model);
    else (*next)[model] = std::move(published);
    table_ = std::move(next);
  }

  // Any thread. `version` empty: the default version (none when no version is ready).
  bool Find(std::string_view model_name, std::string_view version, Entry* out) const {
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

 private:
  struct Model {
    std::map<std::string, Entry, std::less<>> versions;
    std::string default_version;
  };
  using Table = std::map<std::string, Model, std::less<>>;

  mutable std::mutex mu_;  // guards the pointer; the table it points to is never changed
  std::shared_ptr<const Table> table_ = std::make_shared<Table>();
};

}  // namespace gebe
