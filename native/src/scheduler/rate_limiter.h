// Triton's rate limiter (`--rate-limit execution_count`): across every model of a server, an
// instance runs a batch only once it holds the resources its instance group's `rate_limiter`
// names, and gives them back when the batch ends. So models that would not fit in a device's
// memory together take turns instead of failing.
//
// Resources are counted per device (the instance's), or once for the whole server when the
// config marks one `global`. A server has as many copies of a resource as `--rate-limit-resource
// name:count[:device]` says, or else as many as the largest need among the instances registered
// now (so every instance can run, one at a time if need be). Instances that name no resources are
// never held.
//
// Waiting instances are served in order of a pass value (stride scheduling): each run adds the
// instance's priority to its pass, so an instance of priority 2 gets half the turns of one of
// priority 1 when both keep waiting; equal passes go first come first served. Of the waiters that
// need a resource, only the first in that order may take it, and it waits until enough is free: a
// large need is not starved by small ones slipping past it. Waiters with no resource in common do
// not wait for each other.
#pragma once

#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gebe {

// --rate-limit-resource name:count[:device]; device -1: every device, and the global copy.
struct RateLimitResource {
  std::string name;
  int64_t count = 0;
  int device = -1;
};

// One resource an instance needs while it runs a batch.
struct ResourceNeed {
  std::string name;
  bool global = false;
  int64_t count = 0;
};

// An instance group's rate_limiter, for one instance.
struct InstanceRateLimit {
  std::vector<ResourceNeed> resources;
  uint32_t priority = 0;  // 0 counts as 1
  int device = 0;         // the device the instance runs on (per-device resources count there)
};

class RateLimiter {
 public:
  explicit RateLimiter(std::vector<RateLimitResource> server_resources);

  // Registers an instance; returns its id. Throws std::invalid_argument, in Triton's words, when
  // the flag gives fewer copies of a resource than the instance needs (it could never run), or
  // when a name is global for one instance and per-device for another.
  int Register(const InstanceRateLimit& limit);
  // Its waiters, if any, are let go at once, holding nothing.
  void Unregister(int id);

  // Blocks until the instance holds its resources (at once when it needs none, or is not registered).
  void Acquire(int id);
  // The same without blocking, for an instance JS runs (a Python model's): `granted` is called once
  // it holds them, on whichever thread gave them back (or this one), with no lock held.
  void AcquireAsync(int id, std::function<void()> granted);
  void Release(int id);

  // How many copies of each resource the server has now: "name" (global) or "name@device".
  std::vector<std::pair<std::string, int64_t>> Capacities() const;
  // Instances waiting in Acquire or AcquireAsync now.
  size_t Waiting() const;

 private:
  struct Key {
    std::string name;
    int device;  // kGlobal for a global resource
    bool operator<(const Key& o) const { return name != o.name ? name < o.name : device < o.device; }
    bool operator==(const Key& o) const { return name == o.name && device == o.device; }
  };
  static constexpr int kGlobal = -1;
  struct Registered {
    std::vector<std::pair<Key, int64_t>> needs;
    uint64_t stride = 1;
    uint64_t pass = 0;
  };
  struct Waiter {
    int id;
    uint64_t pass;
    uint64_t seq;
    std::function<void()> on_grant;
  };
  using Callbacks = std::vector<std::function<void()>>;

  // The server's copies of a resource: with no --rate-limit-resource, the largest registered
  // need; with any, the flag's count (ExplicitCount), 0 for a resource it does not name.
  int64_t CapacityLocked(const Key& key) const;
  // The flag's count for a resource, 0 when it names it nowhere (explicit_ never changes: no lock needed).
  int64_t ExplicitCount(const Key& key) const;
  bool FitsLocked(const Registered& instance) const;
  // Queues a waiter in (pass, seq) order.
  void EnqueueLocked(int id, std::function<void()> on_grant);
  // Gives resources to every waiter that is first in line for all it needs and fits, in order,
  // and collects their callbacks (to call with no lock held).
  void GrantLocked(Callbacks& callbacks);
  static void Call(Callbacks& callbacks);

  const std::vector<RateLimitResource> explicit_;
  mutable std::mutex mu_;
  std::map<int, Registered> instances_;
  std::map<Key, int64_t> in_use_;
  std::vector<Waiter> waiters_;  // sorted by (pass, seq)
  uint64_t global_pass_ = 0;
  uint64_t next_seq_ = 0;
  int next_id_ = 0;
};

// One model's instances as registered with a rate limiter: registered when made, unregistered
// when destroyed (the model unloads).
class RateLimitedInstances {
 public:
  // Throws std::invalid_argument as RateLimiter::Register does (nothing stays registered then).
  RateLimitedInstances(std::shared_ptr<RateLimiter> limiter, const std::vector<InstanceRateLimit>& instances);
  ~RateLimitedInstances();
  RateLimitedInstances(const RateLimitedInstances&) = delete;
  RateLimitedInstances& operator=(const RateLimitedInstances&) = delete;

  // An instance past the registered ones needs nothing.
  void Acquire(size_t instance) {
    if (instance < ids_.size()) limiter_->Acquire(ids_[instance]);
  }
  void Release(size_t instance) {
    if (instance < ids_.size()) limiter_->Release(ids_[instance]);
  }

 private:
  std::shared_ptr<RateLimiter> limiter_;
  std::vector<int> ids_;
};

}  // namespace gebe
