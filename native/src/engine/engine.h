// The engine interface shared by the scheduler and every engine (cpu, ascend, test engines).
// Engines know nothing about batching, queues or JS: the scheduler hands a session one formed
// batch at a time. Nothing here may touch N-API, so engines run on plain native threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gebe {

// Element types. The numbers are Triton's inference.DataType values (model_config.proto).
enum class DataType : int {
  kInvalid = 0,
  kBool = 1,
  kUInt8 = 2,
  kUInt16 = 3,
  kUInt32 = 4,
  kUInt64 = 5,
  kInt8 = 6,
  kInt16 = 7,
  kInt32 = 8,
  kInt64 = 9,
  kFloat16 = 10,
  kFloat32 = 11,
  kFloat64 = 12,
  kString = 13,
  kBFloat16 = 14,
};

// Bytes per element; 0 for kString and kInvalid (variable size).
size_t ElementSize(DataType type);
// KServe v2 datatype name ("FP32", "INT64", "BYTES", ...).
const char* DataTypeName(DataType type);
// The datatype a KServe v2 name names (DataTypeName backwards); kInvalid for any other text.
DataType DataTypeFromName(std::string_view name);
int64_t ElementCount(const std::vector<int64_t>& shape);

// A tensor as an engine declares it. dims use -1 for a dynamic extent; dim_names holds the
// symbolic name of each dim ("" when it has none), so introspection can show "batch" or "seq".
struct TensorDesc {
  std::string name;
  DataType dtype = DataType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_names;
};

// A non-owning view of host memory holding one tensor (row-major, little-endian).
struct TensorView {
  std::string name;
  DataType dtype = DataType::kInvalid;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  size_t byte_size = 0;
};

// Host memory aligned for SIMD loads. Move-only.
class AlignedBuffer {
 public:
  static constexpr size_t kAlignment = 64;
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// An owning host tensor: what a session returns.
struct Tensor {
  std::string name;
  DataType dtype = DataType::kInvalid;
  std::vector<int64_t> shape;
  AlignedBuffer buffer;

  TensorView view() const { return {name, dtype, shape, buffer.data(), buffer.size()}; }
};

// Input shapes by input name, for ahead-of-time compilation (warmup).
struct NamedShape {
  std::string name;
  std::vector<int64_t> shape;
};

struct SessionOptions {
  // Intra-op threads for this session; 0 = one per core.
  int intra_op_threads = 0;
  // Refuse to allocate any single tensor larger than this (bad models must not eat the machine).
  size_t max_tensor_bytes = size_t(4) << 30;
  // Device for engines that have one (ascend): the first of config `device_ids`.
  int device_id = 0;
  // Free-form engine options (config.pbtxt `parameters`, string values).
  std::map<std::string, std::string> parameters;
};

struct CompileReport {
  double compile_ms = 0;    // time spent compiling this signature (0 when it was cached)
  size_t arena_bytes = 0;   // planned intermediate memory for the signature
  bool cached = false;      // the plan already existed
};

// Thrown by engines for every failure a user can cause or see; the message names the model,
// node or tensor and what to do.
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An engine failure the request's own data caused (a value the model refuses to take): the
// scheduler answers it as a client error (400 / INVALID_ARGUMENT), not a server error.
class InputError : public EngineError {
 public:
  using EngineError::EngineError;
};

// Asked by a run between its steps: whether nobody waits for its results any more (every request
// of the batch was cancelled: its client went away or its deadline passed). Any thread may cause
// the answer to change; the running thread asks.
class RunStop {
 public:
  virtual ~RunStop() = default;
  virtual bool Requested() const = 0;
};

// Thrown by an engine that stopped a run midway because its RunStop asked it to.
class RunCancelled : public EngineError {
 public:
  using EngineError::EngineError;
};

// One loaded model in one engine. A session is driven by one thread at a time (one session per
// model instance); different sessions may run concurrently.
class Session {
 public:
  virtual ~Session() = default;
  virtual const std::vector<TensorDesc>& inputs() const = 0;
  virtual const std::vector<TensorDesc>& outputs() const = 0;
  // Batch sizes the session can run when it only runs fixed ones (.om gears); empty = any.
  virtual std::vector<int64_t> gears() const { return {}; }
  // Prepares the plan for these input shapes ahead of the first run.
  virtual CompileReport compile(const std::vector<NamedShape>& shapes) = 0;
  // Runs one batch: inputs in any order, matched by name. Fills `outputs` (one per declared output).
  // `stop` (may be null): an engine that can stop between steps asks it and throws RunCancelled
  // (the CPU engine does, between steps and loop iterations; AscendCL runs a model in one call).
  virtual void run(const std::vector<TensorView>& inputs, std::vector<Tensor>& outputs, const RunStop* stop = nullptr) = 0;
  // Short engine name for tables and stats: "cpu", "ascend", "test".
  virtual const char* engine_name() const = 0;
};

}  // namespace gebe
