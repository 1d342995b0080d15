// The native ModelInfer / ModelStreamInfer route: decodes the request message natively, checks it
// with Normalize (the serving core's one check, as the HTTP route and the JS binding do), queues
// it on the model's scheduler and encodes the answer on the scheduler thread. What it cannot decode
// or answer as the JS path would goes to the JS handler.
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
  // JS thread: from now on (on: true; until on: false) the calls this route takes are noted as
  // ("POST", method path), for verbose logging; TakeLog returns and resets what was noted.
  virtual void EnableLog(bool on) = 0;
  virtual TakenLog TakeLog() = 0;
};

std::shared_ptr<GrpcInfer> MakeGrpcInfer();

}  // namespace gebe
