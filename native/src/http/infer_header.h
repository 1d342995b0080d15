// A strict reader for the JSON header of a binary KServe v2 infer request, limited to exactly
// the keys and types the native infer route understands:
//
//   {"id": string, "parameters": {"binary_data_output": bool, "priority": uint, "timeout": uint},
//    "inputs": [{"name": string, "datatype": string, "shape": [uint...],
//                "parameters": {"binary_data_size": uint}}...],
//    "outputs": [{"name": string, "parameters": {"binary_data": bool}}...]}
//
// Anything else (another key, null, a fraction or exponent, a negative number, a duplicate key,
// a lone surrogate escape, invalid UTF-8, a control character in a string, trailing bytes) makes
// it return false: the request then goes to the JS server, which answers it with its own
// wording. Integers are limited to 2^53 - 1 (JavaScript's safe integers). No recursion beyond
// the fixed schema, so nesting depth costs nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gebe {

struct HeaderInput {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;
  bool has_binary_data_size = false;
  uint64_t binary_data_size = 0;
};

struct HeaderOutput {
  std::string name;
  int binary_data = -1;  // -1 absent, 0 false, 1 true
};

struct InferHeader {
  bool has_id = false;
  std::string id;  // UTF-8, escapes decoded
  std::vector<HeaderInput> inputs;
  bool has_inputs = false;
  bool has_outputs = false;
  std::vector<HeaderOutput> outputs;
  bool has_parameters = false;
  int binary_data_output = -1;  // -1 absent, 0 false, 1 true
  bool has_priority = false;
  uint64_t priority = 0;
  bool has_timeout = false;
  uint64_t timeout = 0;
};

// Reads `size` bytes of JSON into `out`. False: not in the subset (decline the request).
bool ReadInferHeader(const char* data, size_t size, InferHeader* out);

}  // namespace gebe
