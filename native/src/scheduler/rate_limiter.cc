#include "scheduler/rate_limiter.h"

#include <algorithm>
#include <future>
#include <stdexcept>

namespace gebe {

RateLimiter::RateLimiter(std::vector<RateLimitResource> server_resources) : explicit_(std::move(server_resources)) {}

int64_t RateLimiter::ExplicitCount(const Key& key) const {
  int64_t count = 0;
  for (const auto& r : explicit_) {
    if (r.name != key.name) continue;
    // A global resource takes the largest count the flag gives its name, whatever the device; a
    // per-device one the larger of its device's and the every-device count.
    if (key.device == kGlobal || r.device == -1 || r.device == key.device) count = std::max(count, r.count);
  }
  return count;
}

int64_t RateLimiter::CapacityLocked(const Key& key) const {
  if (!explicit_.empty()) return ExplicitCount(key);
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

void RateLimiter::EnqueueLocked(int id, std::function<void()> on_grant) {
  Registered& instance = instances_.at(id);
  // An instance that waited nothing for a while does not bank turns: it starts from the pass of
  // the last instance served.
  instance.pass = std::max(instance.pass, global_pass_);
  Waiter waiter{id, instance.pass, next_seq_++, std::move(on_grant)};
  const auto before = [](const Waiter& a, const Waiter& b) { return a.pass != b.pass ? a.pass < b.pass : a.seq < b.seq; };
  const auto at = std::upper_bound(waiters_.begin(), waiters_.end(), waiter, before);
  waiters_.insert(at, std::move(waiter));
}

void RateLimiter::GrantLocked(Callbacks& callbacks) {
  std::vector<Key> blocked;  // needed by a waiter left in line: nobody behind it takes them
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    Waiter& w = *it;
    Registered& instance = instances_.at(w.id);
    bool behind = false;
    for (const auto& [key, count] : instance.needs) behind |= std::find(blocked.begin(), blocked.end(), key) != blocked.end();
    if (behind || !FitsLocked(instance)) {
      for (const auto& [key, count] : instance.needs) blocked.push_back(key);
      ++it;
      continue;
    }
    for (const auto& [key, count] : instance.needs) in_use_[key] += count;
    global_pass_ = instance.pass;
    instance.pass += instance.stride;
    callbacks.push_back(std::move(w.on_grant));
    it = waiters_.erase(it);
  }
}

void RateLimiter::Call(Callbacks& callbacks) {
  for (auto& callback : callbacks) callback();
}

int RateLimiter::Register(const InstanceRateLimit& limit) {
  Registered instance;
  instance.stride = std::max<uint32_t>(1, limit.priority);
  for (const auto& need : limit.resources) {
    if (need.count <= 0) continue;
    Key key{need.name, need.global ? kGlobal : limit.device};
    // A name listed twice: the last count stands, as in Triton.
    auto same = std::find_if(instance.needs.begin(), instance.needs.end(), [&](const auto& n) { return n.first == key; });
    if (same != instance.needs.end()) same->second = need.count;
    else instance.needs.emplace_back(key, need.count);
  }
  // Triton's refusals, in its words. The flag's counts never change: reading them needs no lock.
  if (!explicit_.empty()) {
    for (const auto& [key, count] : instance.needs) {
      const int64_t given = ExplicitCount(key);
      if (given < count) {
        throw std::invalid_argument("Resource count for \"" + key.name + "\" is limited to " + std::to_string(given) +
                                    " which will prevent scheduling of one or more model instances, the minimum required count is " +
                                    std::to_string(count));
      }
    }
  }
  Callbacks callbacks;
  int id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // One name both global and per-device, in this instance or against one registered before.
    const auto clash = [&](const std::vector<std::pair<Key, int64_t>>& others) {
      for (const auto& [key, count] : instance.needs) {
        for (const auto& [other_key, other_count] : others) {
          if (other_key.name == key.name && (other_key.device == kGlobal) != (key.device == kGlobal)) {
            throw std::invalid_argument("Resource \"" + key.name + "\" is present as both global and device-specific resource in the model configuration.");
          }
        }
      }
    };
    clash(instance.needs);
    for (const auto& [other_id, other] : instances_) clash(other.needs);
    instance.pass = global_pass_;
    id = next_id_++;
    instances_.emplace(id, std::move(instance));
    // A larger need may have raised a default capacity.
    GrantLocked(callbacks);
  }
  Call(callbacks);
  return id;
}

void RateLimiter::Unregister(int id) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Its waiters (a model unloading while one of its instances waits) go at once, holding
    // nothing: their Release finds no instance.
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->id != id) {
        ++it;
        continue;
      }
      callbacks.push_back(std::move(it->on_grant));
      it = waiters_.erase(it);
    }
    instances_.erase(id);
    GrantLocked(callbacks);
  }
  Call(callbacks);
}

void RateLimiter::Acquire(int id) {
  // A thread that blocks is a waiter like any other, whose callback wakes it. The callback owns
  // the promise: it outlives the wake-up even when this thread returns at once.
  auto granted = std::make_shared<std::promise<void>>();
  std::future<void> done = granted->get_future();
  AcquireAsync(id, [granted] { granted->set_value(); });
  done.wait();
}

void RateLimiter::AcquireAsync(int id, std::function<void()> granted) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto found = instances_.find(id);
    if (found == instances_.end() || found->second.needs.empty()) {
      callbacks.push_back(std::move(granted));
    } else {
      EnqueueLocked(id, std::move(granted));
      GrantLocked(callbacks);
    }
  }
  Call(callbacks);
}

void RateLimiter::Release(int id) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto found = instances_.find(id);
    if (found == instances_.end() || found->second.needs.empty()) return;
    for (const auto& [key, count] : found->second.needs) in_use_[key] -= count;
    GrantLocked(callbacks);
  }
  Call(callbacks);
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
