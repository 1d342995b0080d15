// Reads the options object the TS facade passes to loadModel (already validated there) into
// the scheduler's BatchPolicy and the engine's SessionOptions. Throws Napi::TypeError naming
// the field when a value has the wrong type, so a facade bug is caught at the boundary.
#pragma once

#include <napi.h>

#include <string>
#include <vector>

#include "engine/engine.h"
#include "scheduler/batch_policy.h"
#include "scheduler/rate_limiter.h"
#include "scheduler/sequence_config.h"

namespace gebe {

struct ModelOptions {
  std::string model_name;
  int instance_count = 1;
  bool batched = false;  // max_batch_size > 0
  BatchPolicy policy;    // gears: from the config; the engine's own gears win at load
  SessionOptions session;
  std::vector<int> device_ids;  // instance i runs on device_ids[i % size]
  int64_t idle_spin_us = 0;     // see ModelScheduler
  SequenceConfig sequence;      // enabled for sequence_batching models
  // The instances as registered with the server's rate limiter (options.rateLimiter with
  // options.instanceRateLimits); none when the server does not limit.
  std::shared_ptr<RateLimitedInstances> rate_limits;
};

// Throws std::invalid_argument when the server's rate limiter cannot take the instances (a need
// above a resource's given count), Napi errors for a malformed options object.
ModelOptions ReadModelOptions(const Napi::Object& options);

}  // namespace gebe
