#include "http/json_infer_request.h"

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "simdjson.h"

namespace gebe {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr int kMaxDataDepth = 32;                   // json-tensor.ts MAX_DATA_DEPTH: deeper `data` is refused
constexpr double kMaxSafeInteger = 9007199254740991;  // Number.MAX_SAFE_INTEGER

// A JSON number as JS reads it (a double), when it is one.
bool NumberOf(element e, double* out) {
  switch (e.type()) {
    case element_type::INT64: *out = double(int64_t(e.get_int64().value_unsafe())); return true;
    case element_type::UINT64: *out = double(uint64_t(e.get_uint64().value_unsafe())); return true;
    case element_type::DOUBLE: *out = e.get_double().value_unsafe(); return true;
    default: return false;
  }
}

// A non-negative safe integer, as Number.isSafeInteger(v) && v >= 0.
bool SafeCount(element e, uint64_t* out) {
  double v;
  if (!NumberOf(e, &v) || !(v >= 0) || v > kMaxSafeInteger || std::floor(v) != v) return false;
  *out = uint64_t(v);
  return true;
}

// A request or tensor parameter, typed as JS sees it (integers that fit stay exact). null is a
// parameter not sent; an array or an object a value no parameter takes (named as js_request.cc
// names them, so the in-process path words them alike).
void ParameterOf(element e, ParameterValue* out) {
  double v;
  switch (e.type()) {
    case element_type::BOOL: *out = ParameterValue::Bool(e.get_bool().value_unsafe()); return;
    case element_type::STRING: *out = ParameterValue::String(std::string(e.get_string().value_unsafe())); return;
    case element_type::NULL_VALUE: *out = ParameterValue(); return;
    case element_type::ARRAY: *out = ParameterValue::Other("an array"); return;
    case element_type::OBJECT: *out = ParameterValue::Other("an object"); return;
    default: break;
  }
  if (!NumberOf(e, &v)) return;
  if (std::floor(v) == v && std::fabs(v) <= kMaxSafeInteger) *out = v < 0 ? ParameterValue::Int64(int64_t(v)) : ParameterValue::Uint64(uint64_t(v));
  else *out = ParameterValue::Double(v);
}

// Iterates the fields of an object, refusing a duplicate of any key in `keys` (JSON.parse would
// keep the last one; simdjson finds the first: decline rather than differ). `on(key_index, value)`
// returns false to decline.
template <size_t N, typename F>
bool ForFields(element e, const char* const (&keys)[N], F on) {
  simdjson::dom::object object;
  if (e.get_object().get(object) != simdjson::SUCCESS) return false;
  bool seen[N] = {};
  for (auto field : object) {
    for (size_t k = 0; k < N; ++k) {
      if (field.key != keys[k]) continue;
      if (seen[k]) return false;
      seen[k] = true;
      if (!on(k, field.value)) return false;
    }
  }
  return true;
}

// Writes the elements of JSON `data` (nested arrays walked depth first) as `dtype`, `count` of
// them, with json-tensor.ts's rules: BOOL takes booleans, integer types integers in their range
// (INT64/UINT64: safe integers), FP32/FP64 any number, BYTES strings (4-byte length, then bytes).
// Each type walks the elements with its own conversion inlined (one dtype switch a tensor, not one
// an element: a 784-float image spent a fifth of its decode there).
class DataWriter {
 public:
  DataWriter(DataType dtype, uint64_t count, std::vector<uint8_t>* out) : dtype_(dtype), count_(count), out_(out) {
    const size_t element = ElementSize(dtype);
    if (element > 0) out->resize(size_t(count) * element);
  }

  bool Write(element data) {
    switch (dtype_) {
      case DataType::kBool:
        return Walk<uint8_t>(data, 0, [](element v, uint8_t* to) {
          if (v.type() != element_type::BOOL) return false;
          *to = v.get_bool().value_unsafe() ? 1 : 0;
          return true;
        });
      case DataType::kString: return WalkStrings(data, 0);
      case DataType::kUInt8: return Integers<uint8_t>(data, 0, 255);
      case DataType::kUInt16: return Integers<uint16_t>(data, 0, 65535);
      case DataType::kUInt32: return Integers<uint32_t>(data, 0, 4294967295.0);
      case DataType::kUInt64: return Integers<uint64_t>(data, 0, kMaxSafeInteger);
      case DataType::kInt8: return Integers<int8_t>(data, -128, 127);
      case DataType::kInt16: return Integers<int16_t>(data, -32768, 32767);
      case DataType::kInt32: return Integers<int32_t>(data, -2147483648.0, 2147483647.0);
      case DataType::kInt64: return Integers<int64_t>(data, -kMaxSafeInteger, kMaxSafeInteger);
      // As a Float32Array store: round to nearest.
      case DataType::kFloat32: return Walk<float>(data, 0, [](element v, float* to) { double d; return NumberOf(v, &d) && (*to = float(d), true); });
      case DataType::kFloat64: return Walk<double>(data, 0, [](element v, double* to) { return NumberOf(v, to); });
      default: return false;
    }
  }

  bool Complete() const { return written_ == count_; }

 private:
  template <typename T>
  bool Integers(element data, double lo, double hi) {
    return Walk<T>(data, 0, [lo, hi](element v, T* to) {
      double d;
      if (!NumberOf(v, &d) || std::floor(d) != d || d < lo || d > hi) return false;
      *to = T(d);
      return true;
    });
  }

  // `put(v, to)` converts one element into *to (the output is sized for count_ of T), or returns
  // false to decline.
  template <typename T, typename Put>
  bool Walk(element data, int depth, const Put& put) {
    if (depth > kMaxDataDepth) return false;
    simdjson::dom::array items;
    if (data.get_array().get(items) != simdjson::SUCCESS) return false;
    T* base = reinterpret_cast<T*>(out_->data());
    for (element v : items) {
      if (v.type() == element_type::ARRAY) {
        if (!Walk<T>(v, depth + 1, put)) return false;
        continue;
      }
      T value;
      if (written_ >= count_ || !put(v, &value)) return false;
      std::memcpy(base + written_, &value, sizeof(T));
      ++written_;
    }
    return true;
  }

  bool WalkStrings(element data, int depth) {
    if (depth > kMaxDataDepth) return false;
    simdjson::dom::array items;
    if (data.get_array().get(items) != simdjson::SUCCESS) return false;
    for (element v : items) {
      if (v.type() == element_type::ARRAY) {
        if (!WalkStrings(v, depth + 1)) return false;
        continue;
      }
      std::string_view s;
      if (written_ >= count_ || v.get_string().get(s) != simdjson::SUCCESS || s.size() > UINT32_MAX) return false;
      const uint32_t length = uint32_t(s.size());
      const size_t at = out_->size();
      out_->resize(at + 4 + s.size());
      std::memcpy(out_->data() + at, &length, 4);  // little-endian hosts only, as Normalize
      std::memcpy(out_->data() + at + 4, s.data(), s.size());
      ++written_;
    }
    return true;
  }

  DataType dtype_;
  uint64_t count_;
  uint64_t written_ = 0;
  std::vector<uint8_t>* out_;
};

struct Cursor {
  const uint8_t* binary;
  size_t binary_size;
  size_t offset = 0;       // into the binary part
  size_t body_size;        // JSON and binary together: bounds what a JSON element count can be
};

bool DecodeShape(element e, std::vector<int64_t>* shape) {
  simdjson::dom::array dims;
  if (e.get_array().get(dims) != simdjson::SUCCESS) return false;
  shape->reserve(dims.size());  // bounded by the body: each dimension is at least two bytes of it
  for (element d : dims) {
    uint64_t n;
    if (!SafeCount(d, &n)) return false;
    shape->push_back(int64_t(n));
  }
  return true;
}

bool DecodeInput(element e, Cursor* cursor, DecodedHttpInfer* out) {
  static const char* const kKeys[] = {"name", "datatype", "shape", "parameters", "data"};
  element fields[5];
  bool present[5] = {};
  if (!ForFields(e, kKeys, [&](size_t k, element v) { fields[k] = v; present[k] = true; return true; })) return false;
  DecodedInput input;
  std::string_view text;
  if (!present[0] || fields[0].get_string().get(text) != simdjson::SUCCESS || text.empty()) return false;
  input.name = std::string(text);
  if (!present[1] || fields[1].get_string().get(text) != simdjson::SUCCESS) return false;
  const DataType dtype = DataTypeFromName(text);  // the names the JS codec's isDatatype takes
  if (dtype == DataType::kInvalid) return false;
  input.datatype = std::string(text);
  if (!present[2] || !DecodeShape(fields[2], &input.shape)) return false;
  // The element count as the JS codec computes it (a double product; past 2^53 it declines).
  double count = 1;
  for (int64_t d : input.shape) count *= double(d);
  if (count > kMaxSafeInteger) return false;

  bool has_size = false;
  uint64_t size = 0;
  if (present[3]) {
    // An input in a shared-memory region (Triton's shared_memory_region) is the JS path's.
    static const char* const kParams[] = {"binary_data_size", "shared_memory_region"};
    bool ok = ForFields(fields[3], kParams, [&](size_t k, element v) { has_size = true; return k == 0 && SafeCount(v, &size); });
    if (!ok) return false;
  }
  if (has_size) {
    if (present[4] || size > cursor->binary_size - cursor->offset) return false;
    input.bytes = ByteView{cursor->binary + cursor->offset, size_t(size)};
    cursor->offset += size_t(size);
  } else {
    // Each JSON element takes at least one byte: a larger count is refused before allocating.
    if (!present[4] || count > double(cursor->body_size)) return false;
    if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16) return false;  // binary only
    out->owned.emplace_back();
    std::vector<uint8_t>& bytes = out->owned.back();
    DataWriter writer(dtype, uint64_t(count), &bytes);
    if (!writer.Write(fields[4]) || !writer.Complete()) return false;
    input.bytes = ByteView{bytes.data(), bytes.size()};
  }
  out->request.inputs.push_back(std::move(input));
  return true;
}

bool DecodeOutput(element e, DecodedRequest* request) {
  static const char* const kKeys[] = {"name", "parameters"};
  DecodedOutput output;
  bool named = false;
  bool ok = ForFields(e, kKeys, [&](size_t k, element v) {
    if (k == 0) {
      std::string_view name;
      if (v.get_string().get(name) != simdjson::SUCCESS || name.empty()) return false;
      output.name = std::string(name);
      named = true;
      return true;
    }
    // An output to a shared-memory region (Triton's shared_memory_region) is the JS path's.
    static const char* const kParams[] = {"binary_data", "classification", "shared_memory_region"};
    return ForFields(v, kParams, [&](size_t p, element value) {
      if (p == 2) return false;
      if (p == 0) {
        if (value.type() != element_type::BOOL) return false;
        ParameterOf(value, &output.binary_data);
        return true;
      }
      // The classification extension's k: a positive safe integer, or the JS codec's wording.
      ParameterOf(value, &output.class_count);
      return output.class_count.kind == ParameterValue::Kind::kUint64 && output.class_count.uint64_value >= 1;
    });
  });
  if (!ok || !named) return false;
  request->outputs.push_back(std::move(output));
  return true;
}

bool DecodeParameters(element e, DecodedRequest* request) {
  static const char* const kKeys[] = {"binary_data_output", "priority", "timeout", "sequence_id", "sequence_start", "sequence_end"};
  return ForFields(e, kKeys, [&](size_t k, element v) {
    if (k == 0) {
      if (v.type() != element_type::BOOL) return false;
      ParameterOf(v, &request->binary_data_output);
      return true;
    }
    if (k >= 3) {
      // As sent, whatever the type: Normalize reads them for every path (sequence_parameters.h).
      ParameterOf(v, k == 3 ? &request->sequence_id : k == 4 ? &request->sequence_start : &request->sequence_end);
      return true;
    }
    uint64_t n;
    if (!SafeCount(v, &n)) return false;  // negative, fractional or not a number: the JS wording
    (k == 1 ? request->priority : request->timeout_us) = ParameterValue::Uint64(n);
    return true;
  });
}

// simdjson reads the integer literal -0 as 0; JSON.parse reads -0, which a Float32Array keeps. So
// a text spelling it (rare; inside a string too, to keep the scan trivial) is declined.
bool SpellsMinusZero(const uint8_t* json, size_t size) {
  const uint8_t* p = json;
  const uint8_t* end = json + size;
  while ((p = static_cast<const uint8_t*>(std::memchr(p, '-', size_t(end - p)))) != nullptr) {
    ++p;
    if (p < end && *p == '0') {
      const uint8_t next = p + 1 < end ? p[1] : ' ';
      if (!(next >= '0' && next <= '9') && next != '.' && next != 'e' && next != 'E') return true;
    }
  }
  return false;
}

}  // namespace

bool DecodeHttpInferJson(const uint8_t* json, size_t json_size, const uint8_t* binary, size_t binary_size, DecodedHttpInfer* out) {
  // One parser per thread (the server's loop thread): its buffers are reused across requests.
  thread_local simdjson::dom::parser parser;
  element root;
  if (parser.parse(json, json_size).get(root) != simdjson::SUCCESS || SpellsMinusZero(json, json_size)) return false;
  *out = DecodedHttpInfer();
  DecodedRequest& request = out->request;
  Cursor cursor{binary, binary_size, 0, json_size + binary_size};
  element inputs, outputs;
  bool has_inputs = false;
  static const char* const kKeys[] = {"id", "inputs", "outputs", "parameters"};
  bool ok = ForFields(root, kKeys, [&](size_t k, element v) {
    switch (k) {
      case 0: {
        std::string_view id;
        if (v.get_string().get(id) != simdjson::SUCCESS) return false;
        request.has_id = true;
        request.id = std::string(id);
        return true;
      }
      case 1: inputs = v; has_inputs = true; return true;
      case 2: outputs = v; request.has_outputs = true; return true;
      default: return DecodeParameters(v, &request);
    }
  });
  if (!ok || !has_inputs) return false;
  simdjson::dom::array list;
  if (inputs.get_array().get(list) != simdjson::SUCCESS || list.size() == 0) return false;
  out->owned.reserve(list.size());  // the byte views point into these buffers: no reallocation
  for (element input : list) {
    if (!DecodeInput(input, &cursor, out)) return false;
  }
  if (cursor.offset != binary_size) return false;  // bytes left over after the last input
  if (request.has_outputs) {
    if (outputs.get_array().get(list) != simdjson::SUCCESS || list.size() == 0) return false;
    for (element output : list) {
      if (!DecodeOutput(output, &request)) return false;
    }
  }
  return true;
}

}  // namespace gebe
