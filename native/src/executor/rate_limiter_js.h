// exports.RateLimiter: the server's rate limiter (scheduler/rate_limiter.h) as JS holds it, to
// hand to loadModel (options.rateLimiter) for every model the server loads:
//   new RateLimiter(resources: Array<{name, count, device}>)   device -1: every device
//   capacities() -> Array<[resource, copies]>                   "name" (global) or "name@device"
// and, for instances JS runs (a Python model's processes):
//   register({resources: [{name, global, count}], priority, device}) -> id   (throws the refusal)
//   acquire(id) -> Promise<void>    settled once the instance holds its resources
//   release(id), unregister(id)
#pragma once

#include <napi.h>

#include <memory>

#include "scheduler/rate_limiter.h"

namespace gebe {

// The limiter behind a RateLimiter JS object; null when `value` is not one.
std::shared_ptr<RateLimiter> RateLimiterOf(Napi::Value value);

// One instance's {resources: [{name, global, count}], priority} as JS gives it (loadModel's
// options.instanceRateLimits entries, register's argument); numbers out of range are clamped.
InstanceRateLimit InstanceRateLimitFromJs(const Napi::Object& entry, int device);

}  // namespace gebe
