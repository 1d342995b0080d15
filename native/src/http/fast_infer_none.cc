// Placeholder until the native infer route (fast_infer.cc) lands: declines every request, so the
// JS server answers all of them. Deleted when fast_infer.cc is merged.
#include "http/fast_path.h"

namespace gebe {

namespace {

class DeclineEverything : public FastPath {
 public:
  bool TryHandle(HttpRequest&, Respond) override { return false; }
  void Publish(const std::string&, std::vector<PublishedVersion>, const std::string&) override {}
  std::vector<FailureCount> TakeFailures() override { return {}; }
};

}  // namespace

std::unique_ptr<FastPath> MakeFastInfer() { return std::make_unique<DeclineEverything>(); }

}  // namespace gebe
