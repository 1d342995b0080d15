// The native ModelInfer / ModelStreamInfer route: decodes the request message natively, checks it
// with the native infer route's checks (http/infer_plan.h: exactly what the JS path would accept
// and answer plainly), queues it on the model's scheduler and encodes the answer on the scheduler
// thread. Whatever it does not take goes to the JS handler, which words every refusal.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grpc/grpc_server.h"
#include "http/fast_path.h"

namespace gebe {

class GrpcInfer : public GrpcInferRoute {
 public:
  // JS thread: what ModelInfer of `model` may reach (an empty list withdraws it).
  virtual void Publish(const std::string& model, std::vector<PublishedVersion> versions, const std::string& default_version) = 0;
  // JS thread: failures counted since the last call (then reset).
  virtual std::vector<FailureCount> TakeFailures() = 0;
};

std::shared_ptr<GrpcInfer> MakeGrpcInfer();

}  // namespace gebe
