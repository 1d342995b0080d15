// How a call still queued learns that its client went away (an HTTP connection reset, a gRPC
// stream reset or closed connection) or that its gRPC deadline passed. One per HTTP request or gRPC
// stream: the connection marks it, the taken request's NativeCall reports it to the scheduler's
// cancellation sweep (ScheduledRequest::CancelReason), whether the request waits in the scheduler's
// queue or in a sequence's queue of the sequence batcher (checked when it reaches the scheduler).
#pragma once

#include <atomic>
#include <functional>

#include "executor/request_failure.h"

namespace gebe {

struct CallCancel {
  // FailureReason::kNone while live; otherwise kCancelled or kDeadlineExceeded.
  std::atomic<int> reason{int(FailureReason::kNone)};
  // Loop thread: tells whoever holds the call's request to look (set by QueueTaken when a native
  // route queues it; by the gRPC front end when JS holds the call; for a stream, its latest message).
  std::function<void()> notify;
  // Loop thread: marks the call with `why` (once) and notifies.
  void Cancel(FailureReason why) {
    int live = int(FailureReason::kNone);
    if (reason.compare_exchange_strong(live, int(why)) && notify) notify();
  }
  // Any thread.
  FailureReason Reason() const { return FailureReason(reason.load(std::memory_order_acquire)); }
};

}  // namespace gebe
