// The requests a native infer route (HTTP or gRPC) took, for verbose logging: JS logs what it
// answers itself and, when verbose, drains this a few times a second, so that `--log-verbose`
// shows every request whichever path answers it (and never changes that path).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gebe {

struct TakenLog {
  std::vector<std::pair<std::string, std::string>> requests;  // (method, url or gRPC path), in arrival order
  uint64_t dropped = 0;  // taken beyond the cap since the last Take
};

class TakenRequestLog {
 public:
  // JS thread: from now on, Note records (on: true) or stops recording (nothing is recorded before,
  // so a quiet server pays nothing).
  void Enable(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  // Loop thread: one taken request (copied only when enabled).
  void Note(const std::string& method, const std::string& target) {
    if (!enabled_.load(std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (log_.requests.size() < kCap) log_.requests.emplace_back(method, target);
    else ++log_.dropped;
  }
  // JS thread: what was noted since the last call (then reset).
  TakenLog Take() {
    TakenLog out;
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(out, log_);
    return out;
  }

 private:
  // Bounds what an undrained log may hold (JS drains it a few times a second).
  static constexpr size_t kCap = 4096;
  std::atomic<bool> enabled_{false};
  std::mutex mu_;
  TakenLog log_;
};

}  // namespace gebe
