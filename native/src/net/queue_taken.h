// Queues a request a native infer route took (HTTP or gRPC) and says what became of it; one
// place for how each ModelCore::EnqueueNative outcome is handled.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "executor/model_core.h"

namespace gebe {

enum class TakenOutcome {
  kQueued,    // the scheduler has it; its NativeCall answers it
  kAnswered,  // refused now (queue full) and answered already, as the JS path answers a rejection
  kDeclined,  // the model is unloading: the route declines it and the JS path answers with its wording
};

// `request` carries its NativeCall.
inline TakenOutcome QueueTaken(ModelCore& core, std::unique_ptr<ScheduledRequest>& request, uint32_t priority, uint64_t timeout_us) {
  switch (core.EnqueueNative(request, priority, timeout_us)) {
    case ModelCore::NativeEnqueue::kQueued:
      return TakenOutcome::kQueued;
    case ModelCore::NativeEnqueue::kRejected: {
      std::unique_ptr<NativeCall> rejected = std::move(request->native_call);
      rejected->Finished(std::move(request), nullptr);
      return TakenOutcome::kAnswered;
    }
    case ModelCore::NativeEnqueue::kRefused:
      break;
  }
  return TakenOutcome::kDeclined;
}

}  // namespace gebe
