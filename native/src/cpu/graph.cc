#include "cpu/graph.h"

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

}  // namespace gebe::cpu
