// Reads the options object the TS facade passes to loadModel (already validated there) into
// the scheduler's BatchPolicy and the engine's SessionOptions. Throws Napi::TypeError naming
// the field when a value has the wrong type, so a facade bug is caught at the boundary.
#pragma once

#include <napi.h>

#include <string>
#include <vector>

#include "engine/engine.h"
#include "scheduler/batch_layout.h"
#include "scheduler/batch_policy.h"
#include "scheduler/rate_limiter.h"
#include "scheduler/sequence_config.h"

namespace gebe {

// The config's ragged batching by name (options.raggedInputs, batchInputs, batchOutputs);
// ModelCore resolves the names to the engine's tensors (BatchLayout).
struct BatchInputOption {
  BatchInputKind kind = BatchInputKind::kElementCount;
  DataType dtype = DataType::kInt32;
  std::string source;
  std::vector<std::string> targets;
};
struct BatchOutputOption {
  std::string output;
  std::string source;
  std::vector<int64_t> shape;  // as clients see it, batch dimension first when batched
};

struct ModelOptions {
  std::string model_name;
  int instance_count = 1;
  bool batched = false;  // max_batch_size > 0
  BatchPolicy policy;    // gears: from the config; the engine's own gears win at load
  SessionOptions session;
  std::vector<int> device_ids;  // instance i runs on device_ids[i % size]
  int64_t idle_spin_us = 0;     // see ModelScheduler
  SequenceConfig sequence;      // enabled for sequence_batching models
  std::vector<std::string> ragged_inputs;  // allow_ragged_batch inputs (batched models)
  std::vector<BatchInputOption> batch_inputs;
  std::vector<BatchOutputOption> batch_outputs;
  // The instances as registered with the server's rate limiter (options.rateLimiter with
  // options.instanceRateLimits); none when the server does not limit.
  std::shared_ptr<RateLimitedInstances> rate_limits;
};

// Throws std::invalid_argument when the server's rate limiter cannot take the instances (a need
// above a resource's given count), Napi errors for a malformed options object.
ModelOptions ReadModelOptions(const Napi::Object& options);

}  // namespace gebe
