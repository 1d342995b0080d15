#include "ascend/acl_library.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>

#include "engine/engine.h"

namespace gebe::acl {

namespace {

std::mutex g_mu;
Api g_api;            // guarded by g_mu until g_loaded
bool g_loaded = false;

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool UnderDevlib(const std::string& dir) {
  return dir.find("/devlib") != std::string::npos;
}

// The library sets to try in one directory: the older single library, or the newer split pair.
const std::vector<std::vector<const char*>>& LibrarySets() {
  static const std::vector<std::vector<const char*>> sets = {{"libascendcl.so"}, {"libacl_rt.so", "libacl_mdl.so"}};
  return sets;
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// Tries one directory; returns "" on success, otherwise why it failed.
std::string TryDirectory(const std::string& dir, Api& api) {
  for (const auto& set : LibrarySets()) {
    std::vector<void*> handles;
    bool present = true;
    for (const char* lib : set) present = present && FileExists(dir + "/" + lib);
    if (!present) continue;
    for (const char* lib : set) {
      void* handle = ::dlopen((dir + "/" + lib).c_str(), RTLD_NOW | RTLD_GLOBAL);
      if (handle == nullptr) {
        const char* err = ::dlerror();
        return std::string("dlopen failed: ") + (err ? err : "unknown error") +
               " (is LD_LIBRARY_PATH set by CANN's set_env.sh?)";
      }
      handles.push_back(handle);
    }
    std::vector<std::string> missing;
    auto resolve = [&](const char* name) -> void* {
      for (void* h : handles) {
        if (void* sym = ::dlsym(h, name)) return sym;
      }
      missing.push_back(name);
      return nullptr;
    };
#define GEBE_ACL_RESOLVE(name, ret, params) api.name = reinterpret_cast<ret(*) params>(resolve(#name));
    GEBE_ACL_FUNCTIONS(GEBE_ACL_RESOLVE)
#undef GEBE_ACL_RESOLVE
    if (!missing.empty()) return "the library lacks " + Join(missing, ", ") + " (CANN too old?)";
    return "";
  }
  return "not there";
}

}  // namespace

std::vector<std::string> SearchDirectories() {
  std::vector<std::string> dirs;
  for (const char* env : {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"}) {
    const char* value = std::getenv(env);
    if (value && *value) dirs.push_back(std::string(value) + "/lib64");
  }
  dirs.push_back("/usr/local/Ascend/cann/lib64");
  dirs.push_back("/usr/local/Ascend/ascend-toolkit/latest/lib64");
  return dirs;
}

const Api& Library() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_loaded) return g_api;
  std::vector<std::string> tried;
  for (const std::string& dir : SearchDirectories()) {
    if (UnderDevlib(dir)) {
      tried.push_back(dir + " (skipped: devlib/ holds link-only stubs)");
      continue;
    }
    Api api;
    std::string why = TryDirectory(dir, api);
    if (why.empty()) {
      aclError ret = api.aclInit(nullptr);
      if (ret != kSuccess && ret != kRepeatInitialize) {
        const char* msg = api.aclGetRecentErrMsg ? api.aclGetRecentErrMsg() : nullptr;
        throw EngineError("aclInit failed with AscendCL error " + std::to_string(ret) + (msg && *msg ? ": " + std::string(msg) : "") +
                          " (AscendCL loaded from " + dir + ")");
      }
      g_api = api;
      g_loaded = true;
      return g_api;
    }
    tried.push_back(dir + " (" + why + ")");
  }
  const char* home = std::getenv("ASCEND_HOME_PATH");
  throw EngineError(
      "AscendCL (CANN) was not found, so .om models cannot run here. Looked for libascendcl.so (or libacl_rt.so + "
      "libacl_mdl.so) in: " + Join(tried, "; ") + (home && *home ? "" : "; ASCEND_HOME_PATH is not set") +
      ". On an Ascend host run `source <CANN install>/set_env.sh` (it sets ASCEND_HOME_PATH); elsewhere serve the .onnx "
      "model with the cpu engine.");
}

void Check(aclError ret, const char* function, const std::string& context) {
  if (ret == kSuccess) return;
  const char* recent = g_api.aclGetRecentErrMsg ? g_api.aclGetRecentErrMsg() : nullptr;
  std::string message = std::string(function) + " failed with AscendCL error " + std::to_string(ret);
  if (recent && *recent) message += ": " + std::string(recent);
  if (!context.empty()) message += " (" + context + ")";
  throw EngineError(message);
}

}  // namespace gebe::acl
