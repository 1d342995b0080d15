// libFuzzer target: arbitrary bytes as a model file for the cpu engine. Loading must either
// succeed or throw EngineError (the message a user sees); a loaded model then runs on inputs of
// its declared shapes (dynamic dims as 1, at most 1 MB each), once filled with zeros and once with
// each type's edge values (run_on_values.h), and each run must again succeed or throw EngineError. Anything else (a crash, a sanitizer report, another
// exception type, one allocation past -malloc_limit_mb, a run past -timeout) is a finding.
// Built and run by run.sh; seeds are the ONNX node tests and the repository's fixtures. Each finding,
// once fixed, joins fixtures/models/fuzz, which the engine driver replays under ASan+UBSan in CI.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/engine_registry.h"
#include "run_on_values.h"

using namespace gebe;

namespace {

std::string ModelPath() {
  // One file per fuzzing process: the engine loads models by path, as the scheduler does.
  static const std::string path = "/dev/shm/gebe-model-fuzz-" + std::to_string(getpid()) + ".onnx";
  return path;
}

bool WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ModelPath();
  if (!WriteFile(path, data, size)) std::abort();
  const EngineEntry* engine = FindEngineForPath(path);
  if (!engine) std::abort();
  SessionOptions options;
  options.intra_op_threads = 1;
  options.max_tensor_bytes = size_t(64) << 20;
  try {
    std::unique_ptr<Session> session = engine->load(path, options);
    gebe_test::RunOnZerosAndEdges(*session);
  } catch (const EngineError&) {
    // A refusal with a message: what a bad model must get.
  }
  return 0;
}
