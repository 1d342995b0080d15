#include "scheduler/rate_limiter.h"

#include <algorithm>
#include <stdexcept>

namespace gebe {

RateLimiter::RateLimiter(std::vector<RateLimitResource> server_resources) : explicit_(std::move(server_resources)) {}

const RateLimitResource* RateLimiter::ExplicitLocked(const Key& key) const {
  const RateLimitResource* every_device = nullptr;
  for (const auto& r : explicit_) {
    if (r.name != key.name) continue;
    if (r.device == -1) every_device = &r;
    else if (key.device != kGlobal && r.device == key.device) return &r;
  }
  return every_device;
}

int64_t RateLimiter::CapacityLocked(const Key& key) const {
  if (const RateLimitResource* given = ExplicitLocked(key)) return given->count;
  int64_t largest = 0;
  for (const auto& [id, instance] : instances_) {
    for (const auto& [k, count] : instance.needs) {
      if (k == key) largest = std::max(largest, count);
    }
  }
  return largest;
}

bool RateLimiter::FitsLocked(const Registered& instance) const {
  for (const auto& [key, count] : instance.needs) {
    const auto used = in_use_.find(key);
    if ((used == in_use_.end() ? 0 : used->second) + count > CapacityLocked(key)) return false;
  }
  return true;
}

bool RateLimiter::FirstInLineLocked(uint64_t seq, const Registered& instance) const {
  for (const Waiter& ahead : waiters_) {
    if (ahead.seq == seq) return true;
    for (const auto& [key, count] : instances_.at(ahead.id).needs) {
      for (const auto& [mine, unused] : instance.needs) {
        if (key == mine) return false;
      }
    }
  }
  return true;
}

int RateLimiter::Register(const InstanceRateLimit& limit) {
  Registered instance;
  instance.stride = std::max<uint32_t>(1, limit.priority);
  for (const auto& need : limit.resources) {
    if (need.count <= 0) continue;
    Key key{need.name, need.global ? kGlobal : limit.device};
    auto same = std::find_if(instance.needs.begin(), instance.needs.end(), [&](const auto& n) { return n.first == key; });
    if (same != instance.needs.end()) same->second += need.count;
    else instance.needs.emplace_back(key, need.count);
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, count] : instance.needs) {
    const RateLimitResource* given = ExplicitLocked(key);
    if (given != nullptr && given->count < count) {
      const std::string where = key.device == kGlobal ? "" : " on device " + std::to_string(key.device);
      throw std::invalid_argument("its rate_limiter needs " + std::to_string(count) + " of resource '" + key.name + "'" + where +
                                  " but --rate-limit-resource gives the server " + std::to_string(given->count) +
                                  ": the instance could never run; raise the count or lower the need");
    }
  }
  instance.pass = global_pass_;
  const int id = next_id_++;
  instances_.emplace(id, std::move(instance));
  // A larger need may have raised a default capacity.
  cv_.notify_all();
  return id;
}

void RateLimiter::Unregister(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  instances_.erase(id);
  cv_.notify_all();
}

void RateLimiter::Acquire(int id) {
  std::unique_lock<std::mutex> lock(mu_);
  Registered& instance = instances_.at(id);
  if (instance.needs.empty()) return;
  // An instance that waited nothing for a while does not bank turns: it starts from the pass of
  // the last instance served.
  instance.pass = std::max(instance.pass, global_pass_);
  const Waiter me{id, instance.pass, next_seq_++};
  const auto before = [](const Waiter& a, const Waiter& b) { return a.pass != b.pass ? a.pass < b.pass : a.seq < b.seq; };
  waiters_.insert(std::upper_bound(waiters_.begin(), waiters_.end(), me, before), me);
  cv_.wait(lock, [&] { return FirstInLineLocked(me.seq, instance) && FitsLocked(instance); });
  waiters_.erase(std::find_if(waiters_.begin(), waiters_.end(), [&](const Waiter& w) { return w.seq == me.seq; }));
  for (const auto& [key, count] : instance.needs) in_use_[key] += count;
  global_pass_ = instance.pass;
  instance.pass += instance.stride;
  // The next in line may fit in what is left.
  cv_.notify_all();
}

void RateLimiter::Release(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto found = instances_.find(id);
  if (found == instances_.end() || found->second.needs.empty()) return;
  for (const auto& [key, count] : found->second.needs) in_use_[key] -= count;
  cv_.notify_all();
}

std::vector<std::pair<std::string, int64_t>> RateLimiter::Capacities() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<Key, int64_t> keys;
  for (const auto& [id, instance] : instances_) {
    for (const auto& [key, count] : instance.needs) keys[key] = 0;
  }
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [key, unused] : keys) {
    out.emplace_back(key.device == kGlobal ? key.name : key.name + "@" + std::to_string(key.device), CapacityLocked(key));
  }
  return out;
}

size_t RateLimiter::Waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiters_.size();
}

RateLimitedInstances::RateLimitedInstances(std::shared_ptr<RateLimiter> limiter, const std::vector<InstanceRateLimit>& instances)
    : limiter_(std::move(limiter)) {
  try {
    for (const auto& instance : instances) ids_.push_back(limiter_->Register(instance));
  } catch (...) {
    for (int id : ids_) limiter_->Unregister(id);
    throw;
  }
}

RateLimitedInstances::~RateLimitedInstances() {
  for (int id : ids_) limiter_->Unregister(id);
}

}  // namespace gebe
