// Registers the `ascend` engine for .om offline models. AscendCL is looked up only when a
// model is loaded, so gebe builds and runs the same on hosts without CANN.
#include <memory>

#include "ascend/ascend_session.h"
#include "engine/engine_registry.h"

namespace gebe {

GEBE_REGISTER_ENGINE(ascend, "ascend", {".om"}, [](const std::string& path, const SessionOptions& options) {
  return std::unique_ptr<Session>(new AscendSession(path, options));
});

}  // namespace gebe
