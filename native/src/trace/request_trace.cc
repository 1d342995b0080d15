#include "trace/request_trace.h"

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace gebe {

namespace {

// One trace setting: the global one, or a model's own. Its counters are atomics so that the loop
// threads sample without the registry's lock held for long.
struct TraceSetting {
  std::atomic<bool> on{false};
  std::atomic<bool> timestamps{true};
  std::atomic<bool> tensors{false};
  std::atomic<uint64_t> rate{1000};
  std::atomic<uint64_t> seen{0};   // requests this setting has governed
  std::atomic<int64_t> left{-1};   // traces it may still take (-1: no limit)

  bool Traces() const { return on.load(std::memory_order_relaxed) && left.load(std::memory_order_relaxed) != 0; }
};

// Finished traces JS has not taken yet: JS takes them a few times a second, so this many means
// it cannot keep up (or tracing runs with nobody writing); beyond it traces are counted, not kept.
// Traces with tensors are bounded by their bytes too.
constexpr size_t kMaxWaitingTraces = 65536;
constexpr size_t kMaxWaitingTensorBytes = 256u << 20;

struct Registry {
  std::mutex mu;  // guards models; never held while a request runs
  const std::shared_ptr<TraceSetting> global = std::make_shared<TraceSetting>();  // changed in place, never replaced
  std::unordered_map<std::string, std::shared_ptr<TraceSetting>> models;
  std::atomic<bool> any_model{false};  // models is not empty: a request must look its model up
  std::atomic<bool> any_on{false};
  std::atomic<bool> any_level{false};    // some setting's level is on, its count used up or not
  std::atomic<bool> propagation{false};  // SetContextPropagation
  std::atomic<uint64_t> next_id{1};

  std::mutex done_mu;
  std::vector<std::unique_ptr<RequestTrace>> done;
  size_t done_tensor_bytes = 0;
  uint64_t dropped = 0;

  // Under mu: whether any setting traces, after a change.
  void Refresh() {
    bool on = global->Traces();
    bool level = global->on.load(std::memory_order_relaxed);
    for (const auto& entry : models) {
      on = on || entry.second->Traces();
      level = level || entry.second->on.load(std::memory_order_relaxed);
    }
    any_on.store(on, std::memory_order_relaxed);
    any_level.store(level, std::memory_order_relaxed);
  }
};

// Never destroyed: scheduler and loop threads may sample while the process exits.
Registry& R() {
  static Registry* registry = new Registry;
  return *registry;
}

// Takes one of the setting's traces; false once its count is used up. *last: this was the last.
bool TakeOne(TraceSetting& s, bool* last) {
  int64_t left = s.left.load(std::memory_order_relaxed);
  while (true) {
    if (left == 0) return false;
    if (left < 0) return true;
    if (s.left.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) {
      *last = left == 1;
      return true;
    }
  }
}

}  // namespace

bool TracingOn() {
  const Registry& r = R();
  return r.any_on.load(std::memory_order_relaxed) || (r.propagation.load(std::memory_order_relaxed) && r.any_level.load(std::memory_order_relaxed));
}

void SetContextPropagation(bool on) { R().propagation.store(on, std::memory_order_relaxed); }

bool ValidTraceparent(std::string_view v) {
  if (v.size() != 55 || v.substr(0, 3) != "00-" || v[35] != '-' || v[52] != '-') return false;
  auto hex = [&](size_t from, size_t n, bool* zero) {
    *zero = true;
    for (size_t i = from; i < from + n; ++i) {
      const char c = v[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
      if (c != '0') *zero = false;
    }
    return true;
  };
  bool zero_trace = false, zero_span = false, unused = false;
  return hex(3, 32, &zero_trace) && hex(36, 16, &zero_span) && hex(53, 2, &unused) && !zero_trace && !zero_span;
}

std::unique_ptr<RequestTrace> SampleTrace(const std::string& model, const std::string& version, TraceProtocol protocol,
                                          std::string_view traceparent) {
  Registry& r = R();
  if (!TracingOn()) return nullptr;
  const bool propagated = !traceparent.empty() && r.propagation.load(std::memory_order_relaxed) && ValidTraceparent(traceparent);
  // Without models' own settings (the usual case) the global one needs no lock: it is never replaced.
  std::shared_ptr<TraceSetting> own;
  if (r.any_model.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.models.find(model);
    if (it != r.models.end()) own = it->second;
  }
  TraceSetting* setting = own ? own.get() : r.global.get();
  if (!setting->on.load(std::memory_order_relaxed)) return nullptr;
  bool last = false;
  if (!propagated) {
    const uint64_t rate = setting->rate.load(std::memory_order_relaxed);
    const uint64_t n = setting->seen.fetch_add(1, std::memory_order_relaxed) + 1;
    if (rate == 0 || n % rate != 0) return nullptr;
    if (!TakeOne(*setting, &last)) return nullptr;
  }
  if (last) {
    std::lock_guard<std::mutex> lock(r.mu);
    r.Refresh();
  }
  auto trace = std::make_unique<RequestTrace>();
  trace->id = r.next_id.fetch_add(1, std::memory_order_relaxed);
  trace->model = model;
  trace->version = version;
  trace->protocol = protocol;
  trace->last = last;
  trace->timestamps = setting->timestamps.load(std::memory_order_relaxed);
  trace->keep_tensors = setting->tensors.load(std::memory_order_relaxed);
  if (propagated) trace->context = std::string(traceparent);
  return trace;
}

std::unique_ptr<RequestTrace> ChildTrace(const std::string& model, const std::string& version, uint64_t parent_id, bool timestamps,
                                         bool tensors) {
  auto trace = std::make_unique<RequestTrace>();
  trace->id = R().next_id.fetch_add(1, std::memory_order_relaxed);
  trace->parent_id = parent_id;
  trace->timestamps = timestamps;
  trace->keep_tensors = tensors;
  trace->model = model;
  trace->version = version;
  return trace;
}

void CollectTrace(std::unique_ptr<RequestTrace> trace) {
  if (!trace) return;
  Registry& r = R();
  std::lock_guard<std::mutex> lock(r.done_mu);
  if (r.done.size() >= kMaxWaitingTraces || r.done_tensor_bytes + trace->tensor_bytes > kMaxWaitingTensorBytes) {
    ++r.dropped;
    return;
  }
  r.done_tensor_bytes += trace->tensor_bytes;
  r.done.push_back(std::move(trace));
}

void SetTraceSetting(const std::string* model, const TraceSettingValues* values) {
  Registry& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  if (model != nullptr && values == nullptr) {
    r.models.erase(*model);
  } else {
    TraceSetting* slot = r.global.get();
    bool made = false;
    if (model != nullptr) {
      std::shared_ptr<TraceSetting>& entry = r.models[*model];
      made = !entry;
      if (made) entry = std::make_shared<TraceSetting>();
      slot = entry.get();
    }
    slot->rate.store(values->rate, std::memory_order_relaxed);
    slot->timestamps.store(values->timestamps, std::memory_order_relaxed);
    slot->tensors.store(values->tensors, std::memory_order_relaxed);
    if (made || values->set_count) slot->left.store(values->count, std::memory_order_relaxed);
    slot->on.store(values->on, std::memory_order_relaxed);
  }
  r.any_model.store(!r.models.empty(), std::memory_order_release);
  r.Refresh();
}

int64_t TraceCountLeft(const std::string* model) {
  Registry& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  if (model != nullptr) {
    auto it = r.models.find(*model);
    if (it != r.models.end()) return it->second->left.load(std::memory_order_relaxed);
  }
  return r.global->left.load(std::memory_order_relaxed);
}

std::vector<std::unique_ptr<RequestTrace>> TakeTraces(uint64_t* dropped) {
  Registry& r = R();
  std::vector<std::unique_ptr<RequestTrace>> out;
  std::lock_guard<std::mutex> lock(r.done_mu);
  std::swap(out, r.done);
  r.done_tensor_bytes = 0;
  *dropped = r.dropped;
  r.dropped = 0;
  return out;
}

}  // namespace gebe
