// What a front end hands the serving core after decoding one infer request, and nothing that
// belongs to a protocol: HTTP JSON, HTTP binary, gRPC and the in-process JS `infer` all produce
// this, and Normalize (normalize.h) checks it against the model once, in one wording.
//
// A front end only decodes: it does not check names, datatypes, shapes or sizes against the
// model (Normalize does), it only makes sure what it hands over is well-formed for its wire
// (valid JSON, valid protobuf, a body as long as it says).
//
// Ownership: every byte view points into memory the front end owns (the received body, or a
// buffer it filled while decoding JSON / typed protobuf contents) and keeps alive until the
// request is answered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gebe {

// A read-only view of bytes the front end owns.
struct ByteView {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// One request or tensor parameter as the client typed it. Normalize judges the type and range
// (a priority that is negative, fractional or a string fails there, in one wording).
// A number sent as a JS-style number (JSON, a JS number, a gRPC double_param) is typed as JS reads
// it, so every front end hands Normalize the same value for the same request: a whole number
// within 2^53 is an integer, any other number a double. gRPC int64/uint64 params stay exact.
struct ParameterValue {
  // kOther: a value no parameter takes (a JSON array or object, a bigint past 64 bits);
  // string_value says what it was, for the message ("an array", "an object", the digits).
  enum class Kind : uint8_t { kAbsent, kBool, kInt64, kUint64, kDouble, kString, kOther };
  Kind kind = Kind::kAbsent;
  bool bool_value = false;
  int64_t int64_value = 0;
  uint64_t uint64_value = 0;
  double double_value = 0;
  std::string string_value;

  bool present() const { return kind != Kind::kAbsent; }
  static ParameterValue Bool(bool v) { ParameterValue p; p.kind = Kind::kBool; p.bool_value = v; return p; }
  static ParameterValue Int64(int64_t v) { ParameterValue p; p.kind = Kind::kInt64; p.int64_value = v; return p; }
  static ParameterValue Uint64(uint64_t v) { ParameterValue p; p.kind = Kind::kUint64; p.uint64_value = v; return p; }
  static ParameterValue Double(double v) { ParameterValue p; p.kind = Kind::kDouble; p.double_value = v; return p; }
  static ParameterValue String(std::string v) { ParameterValue p; p.kind = Kind::kString; p.string_value = std::move(v); return p; }
  static ParameterValue Other(std::string what) { ParameterValue p; p.kind = Kind::kOther; p.string_value = std::move(what); return p; }
};

// One input tensor.
struct DecodedInput {
  std::string name;
  std::string datatype;         // the KServe name as sent: "FP32", "BYTES", ... (Normalize checks it)
  std::vector<int64_t> shape;   // as sent; a negative extent fails in Normalize
  // The tensor's bytes: row-major, little-endian, BOOL one byte per element, BYTES in KServe's
  // layout (each element a 4-byte little-endian length, then its bytes). Front ends that decode
  // JSON or typed protobuf contents write this layout into a buffer they own and point here.
  ByteView bytes;
};

// One requested output.
struct DecodedOutput {
  std::string name;
  ParameterValue binary_data;   // HTTP: send this output in the binary part (absent: request default)
  ParameterValue class_count;   // the classification extension: top-k classes instead of the tensor
};

struct DecodedRequest {
  bool has_id = false;
  std::string id;                        // echoed in the response
  std::vector<DecodedInput> inputs;      // in the client's order
  bool has_outputs = false;              // false: every output, in the model's order
  std::vector<DecodedOutput> outputs;    // in the client's order (the response keeps it)

  // Request-level parameters Triton gives meaning to.
  ParameterValue priority;               // scheduler priority level (0 = the model's default)
  ParameterValue timeout_us;             // queue timeout in microseconds (0 = the model's default)
  ParameterValue binary_data_output;     // HTTP: default for outputs that do not say
  // Triton's sequence batcher parameters, as sent; Normalize reads them for every model
  // (sequence_parameters.h), so a bad one is refused in one wording whatever the path.
  ParameterValue sequence_id;
  ParameterValue sequence_start;
  ParameterValue sequence_end;
};

}  // namespace gebe
