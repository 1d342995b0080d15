#include "executor/model_options.h"

#include "executor/rate_limiter_js.h"

namespace gebe {

namespace {

// The executor's own caps on what allocates per unit (threads, queues, gears). The config
// limits users see (src/core/config/limits.ts, rule CONFIG_LIMIT) are tighter and checked
// before a load reaches this; these only keep a caller that skipped them from exhausting the host.
constexpr double kMaxInstances = 4096;      // MAX_INSTANCES_CAP in limits.ts
constexpr double kMaxPriorityLevels = 1 << 16;
constexpr uint32_t kMaxListLength = 4096;   // preferred sizes, gears, device ids

Napi::Value Field(const Napi::Object& obj, const char* name) { return obj.Get(name); }

double Bounded(const Napi::Object& obj, const char* name, double fallback, double max) {
  Napi::Value v = Field(obj, name);
  if (v.IsUndefined() || v.IsNull()) return fallback;
  const double n = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
  if (!(n >= 0 && n <= max)) {
    throw Napi::RangeError::New(obj.Env(), std::string("Expected a number from 0 to ") + std::to_string(int64_t(max)) + " for options." + name);
  }
  return n;
}

double Number(const Napi::Object& obj, const char* name, double fallback) {
  Napi::Value v = Field(obj, name);
  if (v.IsUndefined() || v.IsNull()) return fallback;
  if (!v.IsNumber()) throw Napi::TypeError::New(obj.Env(), std::string("Expected a number for options.") + name);
  return v.As<Napi::Number>().DoubleValue();
}

bool Bool(const Napi::Object& obj, const char* name) {
  Napi::Value v = Field(obj, name);
  if (v.IsUndefined() || v.IsNull()) return false;
  if (!v.IsBoolean()) throw Napi::TypeError::New(obj.Env(), std::string("Expected a boolean for options.") + name);
  return v.As<Napi::Boolean>().Value();
}

std::vector<int64_t> Ints(const Napi::Object& obj, const char* name) {
  std::vector<int64_t> out;
  Napi::Value v = Field(obj, name);
  if (v.IsUndefined() || v.IsNull()) return out;
  if (!v.IsArray()) throw Napi::TypeError::New(obj.Env(), std::string("Expected an array for options.") + name);
  Napi::Array a = v.As<Napi::Array>();
  if (a.Length() > kMaxListLength) {
    throw Napi::RangeError::New(obj.Env(), std::string("Expected at most ") + std::to_string(kMaxListLength) + " entries in options." + name);
  }
  for (uint32_t i = 0; i < a.Length(); ++i) out.push_back(static_cast<int64_t>(a.Get(i).As<Napi::Number>().Int64Value()));
  return out;
}

QueuePolicy ReadQueuePolicy(const Napi::Object& obj) {
  QueuePolicy p;
  p.timeout_action = Number(obj, "timeoutAction", 0) == 1 ? TimeoutAction::kDelay : TimeoutAction::kReject;
  p.default_timeout_us = static_cast<uint64_t>(Number(obj, "defaultTimeoutUs", 0));
  p.allow_timeout_override = Bool(obj, "allowTimeoutOverride");
  p.max_queue_size = static_cast<uint32_t>(Number(obj, "maxQueueSize", 0));
  return p;
}

// A required string field; `what` is the path of `obj` in the options, for the error.
std::string Text(const Napi::Object& obj, const char* name, const char* what) {
  Napi::Value v = Field(obj, name);
  if (!v.IsString()) throw Napi::TypeError::New(obj.Env(), std::string("Expected a string for ") + what + name);
  return v.As<Napi::String>().Utf8Value();
}

constexpr const char* kSequence = "options.sequence.";

ControlKind ReadControlKind(const Napi::Object& obj) {
  const std::string kind = Text(obj, "kind", kSequence);
  if (kind == "start") return ControlKind::kStart;
  if (kind == "end") return ControlKind::kEnd;
  if (kind == "ready") return ControlKind::kReady;
  if (kind == "corrid") return ControlKind::kCorrId;
  throw Napi::TypeError::New(obj.Env(), "Expected start, end, ready or corrid for options.sequence.controls[].kind");
}

// options.sequence: the sequence batcher's settings (load-options.ts builds them from the config).
SequenceConfig ReadSequenceConfig(const Napi::Object& obj) {
  SequenceConfig out;
  out.enabled = true;
  out.oldest = Bool(obj, "oldest");
  out.slots_per_instance = static_cast<int64_t>(Bounded(obj, "slotsPerInstance", 1, kMaxListLength));
  out.max_idle_us = static_cast<uint64_t>(Number(obj, "maxIdleUs", 1000000));
  Napi::Value controls = obj.Get("controls");
  if (controls.IsArray()) {
    Napi::Array a = controls.As<Napi::Array>();
    if (a.Length() > 16) throw Napi::RangeError::New(obj.Env(), "Expected at most 16 options.sequence.controls");
    for (uint32_t i = 0; i < a.Length(); ++i) {
      Napi::Object c = a.Get(i).As<Napi::Object>();
      SequenceControl control;
      control.name = Text(c, "name", kSequence);
      control.kind = ReadControlKind(c);
      control.dtype = static_cast<DataType>(static_cast<int>(Number(c, "dtype", 8)));
      control.false_value = Number(c, "falseValue", 0);
      control.true_value = Number(c, "trueValue", 1);
      out.controls.push_back(std::move(control));
    }
  }
  Napi::Value states = obj.Get("states");
  if (states.IsArray()) {
    Napi::Array a = states.As<Napi::Array>();
    if (a.Length() > kMaxListLength) throw Napi::RangeError::New(obj.Env(), "Expected fewer options.sequence.states");
    for (uint32_t i = 0; i < a.Length(); ++i) {
      Napi::Object st = a.Get(i).As<Napi::Object>();
      SequenceState state;
      state.input_name = Text(st, "inputName", kSequence);
      state.output_name = Text(st, "outputName", kSequence);
      state.dtype = static_cast<DataType>(static_cast<int>(Number(st, "dtype", 11)));
      state.dims = Ints(st, "dims");
      Napi::Value initial = st.Get("initial");
      if (initial.IsTypedArray()) {
        Napi::TypedArray bytes = initial.As<Napi::TypedArray>();
        const auto* data = static_cast<const uint8_t*>(bytes.ArrayBuffer().Data()) + bytes.ByteOffset();
        state.initial.assign(data, data + bytes.ByteLength());
      }
      out.states.push_back(std::move(state));
    }
  }
  return out;
}

std::vector<std::string> Names(const Napi::Object& obj, const char* name, const char* what) {
  std::vector<std::string> out;
  Napi::Value v = Field(obj, name);
  if (v.IsUndefined() || v.IsNull()) return out;
  if (!v.IsArray()) throw Napi::TypeError::New(obj.Env(), std::string("Expected an array of strings for ") + what + name);
  Napi::Array a = v.As<Napi::Array>();
  if (a.Length() > kMaxListLength) throw Napi::RangeError::New(obj.Env(), std::string("Expected fewer entries in ") + what + name);
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value e = a.Get(i);
    if (!e.IsString()) throw Napi::TypeError::New(obj.Env(), std::string("Expected an array of strings for ") + what + name);
    out.push_back(e.As<Napi::String>().Utf8Value());
  }
  return out;
}

// The objects of an optional array field (at most kMaxListLength of them).
std::vector<Napi::Object> Objects(const Napi::Object& obj, const char* name) {
  std::vector<Napi::Object> out;
  Napi::Value v = Field(obj, name);
  if (!v.IsArray()) return out;
  Napi::Array a = v.As<Napi::Array>();
  if (a.Length() > kMaxListLength) throw Napi::RangeError::New(obj.Env(), std::string("Expected fewer options.") + name);
  for (uint32_t i = 0; i < a.Length(); ++i) {
    if (!a.Get(i).IsObject()) throw Napi::TypeError::New(obj.Env(), std::string("Expected objects in options.") + name);
    out.push_back(a.Get(i).As<Napi::Object>());
  }
  return out;
}

// options.batchInputs ({kind, dtype, source, targets}) and options.batchOutputs ({output,
// source, shape}): the config's batch_input and batch_output (load-options.ts builds them).
void ReadBatchIo(const Napi::Object& options, ModelOptions& out) {
  for (const Napi::Object& e : Objects(options, "batchInputs")) {
    BatchInputOption bi;
    bi.kind = static_cast<BatchInputKind>(static_cast<int>(Bounded(e, "kind", 0, 5)));
    bi.dtype = Number(e, "dtype", 8) == 11 ? DataType::kFloat32 : DataType::kInt32;
    bi.source = Text(e, "source", "options.batchInputs[].");
    bi.targets = Names(e, "targets", "options.batchInputs[].");
    out.batch_inputs.push_back(std::move(bi));
  }
  for (const Napi::Object& e : Objects(options, "batchOutputs")) {
    BatchOutputOption bo;
    bo.output = Text(e, "output", "options.batchOutputs[].");
    bo.source = Text(e, "source", "options.batchOutputs[].");
    bo.shape = Ints(e, "shape");
    out.batch_outputs.push_back(std::move(bo));
  }
}

// options.instanceRateLimits: one {resources: [{name, global, count}], priority} per instance;
// each instance's per-device resources count on its device (deviceIds, as the sessions load).
std::vector<InstanceRateLimit> ReadInstanceRateLimits(const Napi::Object& options, const ModelOptions& model) {
  Napi::Env env = options.Env();
  Napi::Value value = options.Get("instanceRateLimits");
  std::vector<InstanceRateLimit> out;
  if (!value.IsArray()) return out;
  Napi::Array list = value.As<Napi::Array>();
  if (list.Length() > uint32_t(model.instance_count)) throw Napi::RangeError::New(env, "Expected at most one options.instanceRateLimits entry per instance");
  for (uint32_t i = 0; i < list.Length(); ++i) {
    Napi::Value entry = list.Get(i);
    if (!entry.IsObject()) throw Napi::TypeError::New(env, "Expected objects in options.instanceRateLimits");
    const int device = model.device_ids.empty() ? 0 : model.device_ids[i % model.device_ids.size()];
    InstanceRateLimit limit = InstanceRateLimitFromJs(entry.As<Napi::Object>(), device);
    out.push_back(std::move(limit));
  }
  return out;
}

}  // namespace

ModelOptions ReadModelOptions(const Napi::Object& options) {
  ModelOptions out;
  Napi::Value name = options.Get("modelName");
  out.model_name = name.IsString() ? name.As<Napi::String>().Utf8Value() : "model";
  out.instance_count = static_cast<int>(Bounded(options, "instanceCount", 1, kMaxInstances));
  if (out.instance_count < 1) out.instance_count = 1;
  out.session.intra_op_threads = static_cast<int>(Number(options, "intraOpThreads", 0));
  out.idle_spin_us = static_cast<int64_t>(Number(options, "idleSpinUs", 0));
  for (int64_t d : Ints(options, "deviceIds")) out.device_ids.push_back(static_cast<int>(d));

  Napi::Value params = options.Get("parameters");
  if (params.IsObject()) {
    Napi::Object p = params.As<Napi::Object>();
    Napi::Array keys = p.GetPropertyNames();
    for (uint32_t i = 0; i < keys.Length(); ++i) {
      std::string key = keys.Get(i).As<Napi::String>().Utf8Value();
      Napi::Value value = p.Get(key);
      if (value.IsString()) out.session.parameters[key] = value.As<Napi::String>().Utf8Value();
    }
  }

  BatchPolicy& policy = out.policy;
  policy.max_batch_size = static_cast<int64_t>(Number(options, "maxBatchSize", 0));
  out.batched = policy.max_batch_size > 0;
  policy.dynamic_batching = Bool(options, "dynamicBatching") && out.batched;
  policy.preferred_batch_sizes = Ints(options, "preferredBatchSizes");
  policy.max_queue_delay_us = static_cast<uint64_t>(Number(options, "maxQueueDelayUs", 0));
  policy.preserve_ordering = Bool(options, "preserveOrdering");
  policy.priority_levels = static_cast<uint32_t>(Bounded(options, "priorityLevels", 0, kMaxPriorityLevels));
  policy.default_priority_level = static_cast<uint32_t>(Number(options, "defaultPriorityLevel", 0));
  Napi::Value dq = options.Get("defaultQueuePolicy");
  if (dq.IsObject()) policy.default_queue_policy = ReadQueuePolicy(dq.As<Napi::Object>());
  Napi::Value pq = options.Get("priorityQueuePolicy");
  if (pq.IsArray()) {
    Napi::Array entries = pq.As<Napi::Array>();
    if (entries.Length() > kMaxPriorityLevels) throw Napi::RangeError::New(options.Env(), "Expected at most one options.priorityQueuePolicy entry per priority level");
    for (uint32_t i = 0; i < entries.Length(); ++i) {
      Napi::Object entry = entries.Get(i).As<Napi::Object>();
      const auto level = static_cast<uint32_t>(Number(entry, "level", 0));
      Napi::Value qp = entry.Get("policy");
      if (level > 0 && qp.IsObject()) policy.priority_queue_policy[level] = ReadQueuePolicy(qp.As<Napi::Object>());
    }
  }
  policy.gears = Ints(options, "gears");
  out.ragged_inputs = Names(options, "raggedInputs", "options.");
  ReadBatchIo(options, out);
  Napi::Value sequence = options.Get("sequence");
  if (sequence.IsObject()) out.sequence = ReadSequenceConfig(sequence.As<Napi::Object>());
  if (std::shared_ptr<RateLimiter> limiter = RateLimiterOf(options.Get("rateLimiter"))) {
    out.rate_limits = std::make_shared<RateLimitedInstances>(std::move(limiter), ReadInstanceRateLimits(options, out));
  }
  return out;
}

}  // namespace gebe
