#include "cpu/graph.h"

#include <set>

namespace gebe::cpu {

int64_t Node::get_int(const std::string& key, int64_t fallback) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? fallback : it->second.i;
}

float Node::get_float(const std::string& key, float fallback) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? fallback : it->second.f;
}

std::string Node::get_string(const std::string& key, const std::string& fallback) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? fallback : it->second.s;
}

std::vector<int64_t> Node::get_ints(const std::string& key, std::vector<int64_t> fallback) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? fallback : it->second.ints;
}

std::vector<float> Node::get_floats(const std::string& key, std::vector<float> fallback) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? fallback : it->second.floats;
}

const Graph* Node::get_graph(const std::string& key) const {
  auto it = attributes.find(key);
  return it == attributes.end() || it->second.kind != Attribute::Kind::kGraph ? nullptr : it->second.g.get();
}

std::vector<std::string> OuterScopeNames(const Graph& g) {
  std::set<std::string> defined, used;
  for (const ValueInfo& v : g.inputs) defined.insert(v.name);
  for (const auto& [name, t] : g.initializers) defined.insert(name);
  for (const Node& n : g.nodes) {
    for (const std::string& out : n.outputs) defined.insert(out);
  }
  for (const Node& n : g.nodes) {
    for (const std::string& in : n.inputs) used.insert(in);
    for (const std::string& in : OuterScopeNames(n)) used.insert(in);
  }
  for (const ValueInfo& v : g.outputs) used.insert(v.name);
  std::vector<std::string> out;
  for (const std::string& name : used) {
    if (!name.empty() && !defined.count(name)) out.push_back(name);
  }
  return out;
}

std::vector<std::string> OuterScopeNames(const Node& n) {
  std::set<std::string> names;
  for (const auto& [key, a] : n.attributes) {
    if (a.kind != Attribute::Kind::kGraph || !a.g) continue;
    for (const std::string& name : OuterScopeNames(*a.g)) names.insert(name);
  }
  return {names.begin(), names.end()};
}

}  // namespace gebe::cpu
