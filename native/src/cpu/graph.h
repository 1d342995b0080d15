// The engine's graph IR: what the ONNX reader produces and the optimiser rewrites. Names are
// kept as strings here (they appear in every error message); plans resolve them to slots.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu/tensor.h"

namespace gebe::cpu {

struct Graph;

struct Attribute {
  enum class Kind { kFloat, kInt, kString, kTensor, kFloats, kInts, kStrings, kGraph, kOther };
  Kind kind = Kind::kOther;
  float f = 0;
  int64_t i = 0;
  std::string s;
  ConstTensor t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::shared_ptr<const Graph> g;  // kGraph: a control-flow body (If branches, Loop and Scan bodies)
};

struct Node {
  std::string name;     // never empty: the reader names unnamed nodes "<op_type>_<index>"
  std::string op_type;
  std::string domain;   // "" or "ai.onnx" for the default domain
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attributes;
  // Values of enclosing graphs that this node's subgraphs read (set by the loader, see
  // OuterScopeNames); the node's step takes them as extra inputs after `inputs`.
  std::vector<std::string> outer_inputs;

  bool has(const std::string& key) const { return attributes.count(key) != 0; }
  int64_t get_int(const std::string& key, int64_t fallback) const;
  float get_float(const std::string& key, float fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  const Graph* get_graph(const std::string& key) const;
  std::vector<int64_t> get_ints(const std::string& key, std::vector<int64_t> fallback = {}) const;
  std::vector<float> get_floats(const std::string& key, std::vector<float> fallback = {}) const;
  // "node 'conv1' (Conv)" — the prefix of every error about this node.
  std::string label() const { return "node '" + name + "' (" + op_type + ")"; }
};

struct ValueInfo {
  std::string name;
  DataType dtype = DataType::kInvalid;
  int onnx_elem_type = 0;          // kept to name types the engine does not support
  std::vector<int64_t> dims;       // -1 where dynamic
  std::vector<std::string> dim_names;
  bool has_shape = false;
  bool non_tensor = false;         // a sequence, map, optional or sparse value (not run by the engine)
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;   // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::map<std::string, ConstTensor> initializers;
};

struct Model {
  int64_t ir_version = 0;
  int64_t opset = 0;               // default-domain opset
  std::string producer;
  Graph graph;
};

// Names a graph reads but does not define (from its enclosing graphs), sorted: its own nodes'
// inputs, its nested subgraphs' outer names, and its outputs, less its inputs, initializers and
// node outputs.
std::vector<std::string> OuterScopeNames(const Graph& g);
// The outer names of all of a node's graph attributes together (If: both branches), sorted.
std::vector<std::string> OuterScopeNames(const Node& n);

// ONNX TensorProto.DataType → gebe::DataType (kInvalid for types the engine has no name for).
DataType FromOnnxType(int onnx_type);
const char* OnnxTypeName(int onnx_type);

}  // namespace gebe::cpu
