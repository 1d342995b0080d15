// The rate limiter (scheduler/rate_limiter.h): capacities, refusals, holding, priority order.
// Waits are observed through Waiting(), never timed.
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "scheduler/rate_limiter.h"

using gebe::InstanceRateLimit;
using gebe::RateLimiter;

namespace {

InstanceRateLimit Needs(std::vector<gebe::ResourceNeed> resources, uint32_t priority = 1, int device = 0) {
  InstanceRateLimit limit;
  limit.resources = std::move(resources);
  limit.priority = priority;
  limit.device = device;
  return limit;
}

void WaitForWaiting(const RateLimiter& limiter, size_t n) {
  while (limiter.Waiting() != n) std::this_thread::yield();
}

// Records the order in which threads got their resources.
struct GrantLog {
  std::mutex mu;
  std::vector<std::string> order;
  void Add(const std::string& who) {
    std::lock_guard<std::mutex> lock(mu);
    order.push_back(who);
  }
};

}  // namespace

TEST(RateLimiterDefaultsToTheLargestNeedPerDeviceAndGlobal) {
  // Triton's example: A [R1: 4, R2: 4], B [R2: 5, R3: 10, R4: 5], C [R1: 1, R3: 7, R4: 2].
  RateLimiter limiter({});
  limiter.Register(Needs({{"R1", false, 4}, {"R2", false, 4}}));
  limiter.Register(Needs({{"R2", false, 5}, {"R3", false, 10}, {"R4", false, 5}}));
  const int c = limiter.Register(Needs({{"R1", false, 1}, {"R3", false, 7}, {"R4", false, 2}, {"G", true, 3}}, 1, 1));
  using Caps = std::vector<std::pair<std::string, int64_t>>;
  CHECK(limiter.Capacities() == Caps({{"G", 3}, {"R1@0", 4}, {"R1@1", 1}, {"R2@0", 5}, {"R3@0", 10}, {"R3@1", 7}, {"R4@0", 5}, {"R4@1", 2}}));
  // Unregistered, its needs no longer count.
  limiter.Unregister(c);
  CHECK(limiter.Capacities() == Caps({{"R1@0", 4}, {"R2@0", 5}, {"R3@0", 10}, {"R4@0", 5}}));
}

TEST(RateLimiterTakesTheFlagsCountsForADeviceOrEveryDevice) {
  // Triton's example: --rate-limit-resource R1:10 R2:5:0 R2:8:1 R3:2 (R3 global in a model).
  RateLimiter limiter({{"R1", 10, -1}, {"R2", 5, 0}, {"R2", 8, 1}, {"R3", 2, -1}, {"R4", 3, -1}, {"R4", 6, 1}, {"R5", 4, 1}});
  limiter.Register(Needs({{"R1", false, 1}, {"R2", false, 1}, {"R4", false, 1}}, 1, 0));
  limiter.Register(Needs({{"R1", false, 1}, {"R2", false, 1}, {"R3", true, 1}, {"R4", false, 1}, {"R5", true, 1}}, 1, 1));
  using Caps = std::vector<std::pair<std::string, int64_t>>;
  // R4: the larger of a device's own count and the every-device one; R5 (global): the largest given its name.
  CHECK(limiter.Capacities() == Caps({{"R1@0", 10}, {"R1@1", 10}, {"R2@0", 5}, {"R2@1", 8}, {"R3", 2}, {"R4@0", 3}, {"R4@1", 6}, {"R5", 4}}));
}

TEST(RateLimiterRefusesANeedAboveTheGivenCountInTritonsWords) {
  RateLimiter limiter({{"R1", 2, -1}});
  auto refusal = [&](std::vector<InstanceRateLimit> instances) {
    try {
      gebe::RateLimitedInstances registered(std::shared_ptr<RateLimiter>(&limiter, [](RateLimiter*) {}), instances);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_EQ(refusal({Needs({{"R1", false, 1}}), Needs({{"R1", false, 4}})}),
           std::string("Resource count for \"R1\" is limited to 2 which will prevent scheduling of one or more model instances, "
                       "the minimum required count is 4"));
  // With the flag given, a resource it does not name has no copies.
  CHECK_EQ(refusal({Needs({{"R9", false, 1}})}),
           std::string("Resource count for \"R9\" is limited to 0 which will prevent scheduling of one or more model instances, "
                       "the minimum required count is 1"));
  // The first instances, registered before each refusal, were let go.
  CHECK(limiter.Capacities().empty());
  // One name, global for one instance and per-device for another.
  RateLimiter mixed({});
  mixed.Register(Needs({{"G", true, 1}}));
  std::string message;
  try {
    mixed.Register(Needs({{"G", false, 1}}));
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK_EQ(message, std::string("Resource \"G\" is present as both global and device-specific resource in the model configuration."));
  // Within one instance too.
  message.clear();
  try {
    mixed.Register(Needs({{"H", true, 1}, {"H", false, 1}}));
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK_EQ(message, std::string("Resource \"H\" is present as both global and device-specific resource in the model configuration."));
}

TEST(RateLimiterHoldsAnInstanceUntilItsResourcesAreFree) {
  RateLimiter limiter({});
  const int a = limiter.Register(Needs({{"R", false, 1}}));
  const int b = limiter.Register(Needs({{"R", false, 1}}));
  const int free_instance = limiter.Register(Needs({}));
  const int other_device = limiter.Register(Needs({{"R", false, 1}}, 1, 1));
  limiter.Acquire(a);
  std::atomic<bool> b_ran{false};
  std::thread tb([&] {
    limiter.Acquire(b);
    b_ran = true;
    limiter.Release(b);
  });
  WaitForWaiting(limiter, 1);
  // Neither an instance that needs nothing nor one whose resource is on another device waits.
  limiter.Acquire(free_instance);
  limiter.Acquire(other_device);
  limiter.Release(other_device);
  limiter.Release(free_instance);
  CHECK(!b_ran);
  CHECK_EQ(limiter.Waiting(), size_t(1));
  limiter.Release(a);
  tb.join();
  CHECK(b_ran);
}

TEST(RateLimiterRunsTogetherWhatFits) {
  RateLimiter limiter({{"R", 3, -1}});
  const int a = limiter.Register(Needs({{"R", false, 1}}));
  const int b = limiter.Register(Needs({{"R", false, 2}}));
  const int c = limiter.Register(Needs({{"R", false, 1}}));
  limiter.Acquire(a);
  limiter.Acquire(b);  // 1 + 2 of 3: both run
  std::thread tc([&] { limiter.Acquire(c); });
  WaitForWaiting(limiter, 1);
  limiter.Release(a);
  tc.join();
  limiter.Release(b);
  limiter.Release(c);
  CHECK_EQ(limiter.Waiting(), size_t(0));
}

TEST(RateLimiterServesLowerPassFirstAndTiesInArrivalOrder) {
  RateLimiter limiter({});
  const int h = limiter.Register(Needs({{"R", false, 1}}, 1));
  const int fast = limiter.Register(Needs({{"R", false, 1}}, 1));
  const int slow = limiter.Register(Needs({{"R", false, 1}}, 2));
  // One turn each, alone: fast's pass is now 1, slow's 2 (priority 2 takes twice the stride).
  for (int id : {fast, slow}) {
    limiter.Acquire(id);
    limiter.Release(id);
  }
  GrantLog log;
  auto contender = [&](int id, const char* name) {
    return std::thread([&, id, name] {
      limiter.Acquire(id);
      log.Add(name);
      limiter.Release(id);
    });
  };
  limiter.Acquire(h);
  std::thread t1 = contender(slow, "slow");
  WaitForWaiting(limiter, 1);
  std::thread t2 = contender(fast, "fast");
  WaitForWaiting(limiter, 2);
  limiter.Release(h);
  t1.join();
  t2.join();
  // slow came first but fast's pass is lower.
  CHECK(log.order == std::vector<std::string>({"fast", "slow"}));

  // Equal passes: first come, first served. Both start again from the last pass served.
  RateLimiter fifo({});
  const int holder = fifo.Register(Needs({{"R", false, 1}}));
  const int x = fifo.Register(Needs({{"R", false, 1}}));
  const int y = fifo.Register(Needs({{"R", false, 1}}));
  GrantLog order;
  fifo.Acquire(holder);
  std::thread ty([&] { fifo.Acquire(y); order.Add("y"); fifo.Release(y); });
  WaitForWaiting(fifo, 1);
  std::thread tx([&] { fifo.Acquire(x); order.Add("x"); fifo.Release(x); });
  WaitForWaiting(fifo, 2);
  fifo.Release(holder);
  ty.join();
  tx.join();
  CHECK(order.order == std::vector<std::string>({"y", "x"}));
}

TEST(RateLimiterDoesNotLetSmallNeedsStarveTheFirstInLine) {
  RateLimiter limiter({{"R", 2, -1}});
  const int small_a = limiter.Register(Needs({{"R", false, 1}}));
  const int big = limiter.Register(Needs({{"R", false, 2}}));
  const int small_b = limiter.Register(Needs({{"R", false, 1}}));
  GrantLog log;
  limiter.Acquire(small_a);
  std::thread tbig([&] { limiter.Acquire(big); log.Add("big"); limiter.Release(big); });
  WaitForWaiting(limiter, 1);
  // One copy is free and small_b needs one, but big is first in line: small_b waits behind it.
  std::thread tsmall([&] { limiter.Acquire(small_b); log.Add("small"); limiter.Release(small_b); });
  WaitForWaiting(limiter, 2);
  limiter.Release(small_a);
  tbig.join();
  tsmall.join();
  CHECK(log.order == std::vector<std::string>({"big", "small"}));
}

TEST(RateLimiterCallsBackAnInstanceThatDoesNotBlock) {
  RateLimiter limiter({});
  const int a = limiter.Register(Needs({{"R", false, 1}}));
  const int js = limiter.Register(Needs({{"R", false, 1}}));
  const int none = limiter.Register(Needs({}));
  std::atomic<int> granted{0};
  limiter.AcquireAsync(none, [&] { granted += 10; });  // needs nothing: called at once
  CHECK_EQ(granted.load(), 10);
  limiter.Acquire(a);
  limiter.AcquireAsync(js, [&] { granted += 1; });
  CHECK_EQ(granted.load(), 10);
  CHECK_EQ(limiter.Waiting(), size_t(1));
  // The holder gives R back on another thread: the callback runs there.
  std::thread([&] { limiter.Release(a); }).join();
  CHECK_EQ(granted.load(), 11);
  // js holds R now: a blocking waiter waits for its release.
  std::atomic<bool> a_again{false};
  std::thread ta([&] {
    limiter.Acquire(a);
    a_again = true;
    limiter.Release(a);
  });
  WaitForWaiting(limiter, 1);
  CHECK(!a_again);
  limiter.Release(js);
  ta.join();
  CHECK(a_again);
}

TEST(RateLimiterLetsGoTheWaitersOfAnInstanceItForgets) {
  RateLimiter limiter({});
  const int a = limiter.Register(Needs({{"R", false, 1}}));
  const int gone = limiter.Register(Needs({{"R", false, 1}}));
  limiter.Acquire(a);
  bool called = false;
  limiter.AcquireAsync(gone, [&] { called = true; });
  limiter.Unregister(gone);  // its model unloaded while it waited
  CHECK(called);
  CHECK_EQ(limiter.Waiting(), size_t(0));
  limiter.Release(gone);  // holds nothing: changes nothing
  limiter.Release(a);
  limiter.Acquire(a);
  limiter.Release(a);
}
