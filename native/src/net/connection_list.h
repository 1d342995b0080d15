// A front end's open connections by id (loop thread), and the walk the drain makes over them:
// closing a connection removes it from the map, so the walk goes over a copy.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace gebe {

template <typename Connection, typename Visit>
void ForEachConnection(const std::unordered_map<uint64_t, Connection*>& connections, Visit visit) {
  std::vector<Connection*> all;
  all.reserve(connections.size());
  for (const auto& entry : connections) all.push_back(entry.second);
  for (Connection* c : all) visit(c);
}

}  // namespace gebe
