// Names the calling thread, so `top -H`, `perf` and /proc/<pid>/task/*/comm tell the front ends'
// loops, the batchers and the model instances apart. Linux keeps at most 15 characters.
#pragma once

#include <pthread.h>

#include <string>

namespace gebe {

inline void NameThisThread(const std::string& name) {
#ifdef __linux__
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
#else
  (void)name;
#endif
}

}  // namespace gebe
