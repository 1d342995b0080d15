// Queues a request a native infer route took (HTTP or gRPC) and says what became of it; one
// place for how each ModelCore::EnqueueNative outcome is handled, and for how a queued request
// hears that its client went away.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "executor/model_core.h"
#include "net/call_cancel.h"

namespace gebe {

enum class TakenOutcome {
  kQueued,    // the scheduler (or a sequence batcher) has it; its NativeCall answers it
  kAnswered,  // refused now (queue full, a sequence error) and answered already, as the JS path answers a rejection
  kDeclined,  // the model is unloading: the route declines it and the JS path answers with its wording
};

// `normalized.request` carries its NativeCall, whose CancelReason reads `cancel`. Once queued, a
// cancellation of the call makes the model's scheduler look for cancelled requests.
inline TakenOutcome QueueTaken(const std::shared_ptr<ModelCore>& core, NormalizedRequest& normalized, CallCancel& cancel) {
  switch (core->EnqueueNative(normalized)) {
    case ModelCore::NativeEnqueue::kQueued: {
      std::weak_ptr<ModelCore> queued_on = core;
      cancel.notify = [queued_on] {
        if (auto c = queued_on.lock()) c->NoteCancellation();
      };
      return TakenOutcome::kQueued;
    }
    case ModelCore::NativeEnqueue::kRejected: {
      std::unique_ptr<ScheduledRequest>& request = normalized.request;
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
