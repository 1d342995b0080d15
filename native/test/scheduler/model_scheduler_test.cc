// ModelScheduler end to end with the doubling test engine. Event order is forced with gates
// (a run waits until the test opens its gate), never with timing.
#include <thread>

#include "harness.h"

using namespace testing;

namespace {

gebe::BatchPolicy Policy(bool dynamic, int64_t max, std::vector<int64_t> preferred = {}, uint64_t delay_us = 0) {
  gebe::BatchPolicy p;
  p.dynamic_batching = dynamic;
  p.max_batch_size = max;
  p.preferred_batch_sizes = std::move(preferred);
  p.max_queue_delay_us = delay_us;
  return p;
}

gebe::BatchPolicy WithGears(gebe::BatchPolicy p, std::vector<int64_t> gears) {
  p.gears = std::move(gears);
  p.Finalize();
  return p;
}

gebe::BatchPolicy Final(gebe::BatchPolicy p) {
  p.Finalize();
  return p;
}

bool Enqueue(gebe::ModelScheduler& s, std::unique_ptr<gebe::ScheduledRequest> r, uint32_t priority = 0,
             uint64_t timeout_us = 0) {
  return s.Enqueue(r, priority, timeout_us);
}

}  // namespace

TEST(SchedulerWithoutDynamicBatchingRunsEachRequestAlone) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  RunLog log;
  gate.Hold(100);
  gebe::ModelScheduler s("m", Final(Policy(false, 8)), true, Sessions(1, {}, &gate, &log), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 3, 100)));
  for (uint64_t t = 2; t <= 5; ++t) CHECK(Enqueue(s, inputs.Make(t, 1, 3, float(t))));
  CHECK_EQ(s.PendingCount(), size_t(5));
  gate.Open(100);
  sink.WaitDelivered(5);
  CHECK_EQ(log.Snapshot(), (std::vector<int64_t>{1, 1, 1, 1, 1}));
  Result r = sink.Get(3);
  CHECK(r.ok);
  CHECK_EQ(r.y.size(), size_t(3));
  CHECK_EQ(r.y[0], 6.0f);
  CHECK_EQ(r.shape, (std::vector<int64_t>{1, 3}));
  CHECK_EQ(sink.Order(), (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  s.Stop();
  CHECK_EQ(s.PendingCount(), size_t(0));
}

TEST(SchedulerDispatchesPreferredSizesAndBatchesWhatQueuedWhileBusy) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  RunLog log;
  gate.Hold(100);
  // A 1 s delay: only preferred sizes can make these batches go.
  gebe::ModelScheduler s("m", Final(Policy(true, 8, {4, 8}, 1000000)), true, Sessions(1, {}, &gate, &log), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 100)));  // waits for the delay or a preferred size
  for (uint64_t t = 2; t <= 4; ++t) CHECK(Enqueue(s, inputs.Make(t, 1, 2, float(t))));  // 4: dispatched, held
  for (uint64_t t = 5; t <= 12; ++t) CHECK(Enqueue(s, inputs.Make(t, 1, 2, float(t))));  // queued: instance busy
  gate.Open(100);
  sink.WaitDelivered(12);
  CHECK_EQ(log.Snapshot(), (std::vector<int64_t>{4, 8}));
  CHECK_EQ(sink.Batches(), size_t(2));  // one hand-back per batch, not per request
  Result r = sink.Get(9);
  CHECK(r.ok);
  CHECK_EQ(r.y, (std::vector<float>{18, 18}));
  CHECK_EQ(r.shape, (std::vector<int64_t>{1, 2}));
  gebe::StatisticsSnapshot st = s.Stats();
  CHECK_EQ(st.execution_count, uint64_t(2));
  CHECK_EQ(st.inference_count, uint64_t(12));
  CHECK_EQ(st.success.count, uint64_t(12));
  CHECK_EQ(st.queue.count, uint64_t(12));
  CHECK_EQ(st.compute_infer.count, uint64_t(12));
  CHECK_EQ(st.batch_stats.size(), size_t(2));
  CHECK_EQ(st.batch_stats[4].compute_infer.count, uint64_t(1));
  CHECK_EQ(st.batch_stats[8].compute_infer.count, uint64_t(1));
  CHECK(st.last_inference_ms > 0);
  s.Stop();
}

TEST(SchedulerQueueDelayDispatchesASmallBatch) {
  Collector sink;
  Inputs inputs;
  RunLog log;
  gebe::ModelScheduler s("m", Final(Policy(true, 8, {4}, 2000)), true, Sessions(1, {}, nullptr, &log), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 1)));
  sink.WaitDelivered(1);  // only the batcher thread's timed wake-up can send it
  CHECK_EQ(log.Snapshot(), (std::vector<int64_t>{1}));
  gebe::StatisticsSnapshot st = s.Stats();
  CHECK(st.queue.ns >= 2000 * 1000);  // it waited the whole delay
  s.Stop();
}

// With an idle poll, the instance that just ran keeps the next decision time instead of the
// batcher thread when the delay is short. Either keeper must send the lone request once the
// delay has passed, and not before (a slow machine may find the instance asleep already).
TEST(SchedulerQueueDelayDispatchesASmallBatchWhileAnInstancePolls) {
  for (uint64_t delay_us : {300u, 3000u}) {  // below and above kMaxSpinWaitUs
    Collector sink;
    Inputs inputs;
    RunLog log;
    gebe::ModelScheduler s("m", Final(Policy(true, 8, {4}, delay_us)), true, Sessions(1, {}, nullptr, &log), &sink,
                           /*idle_spin_us=*/20000);
    CHECK(Enqueue(s, inputs.Make(1, 1, 2, 1)));
    sink.WaitDelivered(1);
    CHECK(Enqueue(s, inputs.Make(2, 1, 2, 2)));  // the instance is polling (for 20 ms) by now
    sink.WaitDelivered(2);
    CHECK_EQ(log.Snapshot(), (std::vector<int64_t>{1, 1}));
    gebe::StatisticsSnapshot st = s.Stats();
    CHECK(st.queue.ns >= 2 * delay_us * 1000);  // both waited the whole delay
    s.Stop();
  }
}

TEST(SchedulerPadsToTheNextGearAndDropsPaddingRows) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  RunLog log;
  gate.Hold(100);
  gebe::ModelScheduler s("m", WithGears(Policy(true, 16, {}, 0), {1, 2, 4, 8}), true, Sessions(1, {1, 2, 4, 8}, &gate, &log),
                         &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 100)));
  CHECK(Enqueue(s, inputs.Make(2, 2, 2, 2)));
  CHECK(Enqueue(s, inputs.Make(3, 3, 2, 3)));  // 5 rows queued -> padded to gear 8
  gate.Open(100);
  sink.WaitDelivered(3);
  CHECK_EQ(log.Snapshot(), (std::vector<int64_t>{1, 8}));
  Result r2 = sink.Get(2), r3 = sink.Get(3);
  CHECK(r2.ok && r3.ok);
  CHECK_EQ(r2.shape, (std::vector<int64_t>{2, 2}));
  CHECK_EQ(r2.y, (std::vector<float>{4, 4, 4, 4}));
  CHECK_EQ(r3.shape, (std::vector<int64_t>{3, 2}));
  CHECK_EQ(r3.y, (std::vector<float>{6, 6, 6, 6, 6, 6}));
  gebe::StatisticsSnapshot st = s.Stats();
  CHECK_EQ(st.inference_count, uint64_t(6));  // padding rows are not inferences
  CHECK_EQ(st.batch_stats.count(5), size_t(1));
  s.Stop();
}

TEST(SchedulerRejectsMoreRowsThanTheLargestGear) {
  Collector sink;
  Inputs inputs;
  gebe::ModelScheduler s("m", WithGears(Policy(true, 16), {1, 2, 4}), true, Sessions(1, {1, 2, 4}), &sink);
  auto r = inputs.Make(1, 5, 2, 1);
  CHECK(!s.Enqueue(r, 0, 0));
  CHECK_EQ(TraitsOf(r->failure).http_status, 400);
  CHECK_EQ(r->error, std::string("inference request batch-size must be <= 4 for 'm'"));
  s.Stop();
}

TEST(SchedulerNeverMixesNonBatchShapes) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  RunLog log;
  gate.Hold(100);
  gebe::ModelScheduler s("m", Final(Policy(true, 8, {}, 0)), true, Sessions(1, {}, &gate, &log), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 100)));
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 2)));
  CHECK(Enqueue(s, inputs.Make(3, 1, 3, 3)));
  CHECK(Enqueue(s, inputs.Make(4, 1, 3, 4)));
  CHECK(Enqueue(s, inputs.Make(5, 1, 2, 5)));
  gate.Open(100);
  sink.WaitDelivered(5);
  CHECK_EQ(log.Snapshot(), (std::vector<int64_t>{1, 1, 2, 1}));
  CHECK_EQ(sink.Get(4).shape, (std::vector<int64_t>{1, 3}));
  CHECK_EQ(sink.Get(4).y, (std::vector<float>{8, 8, 8}));
  s.Stop();
}

TEST(SchedulerPreservesOrderingAcrossInstances) {
  for (bool preserve : {false, true}) {
    Collector sink;
    Inputs inputs;
    Gate gate;
    RunLog log;
    gate.Hold(1);
    gate.Hold(2);
    gebe::BatchPolicy p = Policy(true, 1, {}, 0);
    p.preserve_ordering = preserve;
    gebe::ModelScheduler s("m", Final(p), true, Sessions(2, {}, &gate, &log), &sink);
    CHECK(Enqueue(s, inputs.Make(1, 1, 1, 1)));  // instance A, held
    CHECK(Enqueue(s, inputs.Make(2, 1, 1, 2)));  // instance B, held
    gate.Open(2);
    log.WaitFor(1);  // request 2 has run
    if (!preserve) {
      sink.WaitDelivered(1);
      CHECK_EQ(sink.Order(), (std::vector<uint64_t>{2}));
    }
    gate.Open(1);
    sink.WaitDelivered(2);
    CHECK_EQ(sink.Order(), preserve ? (std::vector<uint64_t>{1, 2}) : (std::vector<uint64_t>{2, 1}));
    s.Stop();
  }
}

TEST(SchedulerStopDrainsQueuedRequests) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  gate.Hold(100);
  gebe::ModelScheduler s("m", Final(Policy(false, 8)), true, Sessions(1, {}, &gate), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 100)));
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 2)));
  CHECK(Enqueue(s, inputs.Make(3, 1, 2, 3)));
  std::thread stopper([&] { s.Stop(); });
  // Once Stop() has begun, new requests are refused while the accepted ones still wait.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto late = inputs.Make(4, 1, 2, 4);
  CHECK(!s.Enqueue(late, 0, 0));
  CHECK(late->error.find("unloading") != std::string::npos);
  gate.Open(100);
  stopper.join();
  sink.WaitClosed();
  CHECK(sink.Get(1).ok);
  CHECK(sink.Get(2).ok);  // queued behind request 1: run, not rejected
  CHECK(sink.Get(3).ok);
  CHECK_EQ(sink.AfterClose(), 0);
  gebe::StatisticsSnapshot st = s.Stats();
  CHECK_EQ(st.success.count, uint64_t(3));
  CHECK_EQ(st.fail.count, uint64_t(1));
}

TEST(SchedulerStopDoesNotWaitOutTheQueueDelay) {
  Collector sink;
  Inputs inputs;
  // A 60 s queue delay and a preferred size never reached: Stop() dispatches at once.
  gebe::ModelScheduler s("m", Final(Policy(true, 8, {8}, 60000000)), true, Sessions(1, {}), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 1)));
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 2)));
  s.Stop();
  sink.WaitClosed();
  CHECK(sink.Get(1).ok);
  CHECK(sink.Get(2).ok);
}

TEST(SchedulerRejectsWhenTheQueueIsFull) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  gate.Hold(100);
  gebe::BatchPolicy p = Policy(true, 1, {}, 0);
  p.default_queue_policy.max_queue_size = 2;
  gebe::ModelScheduler s("m", Final(p), true, Sessions(1, {}, &gate), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 100)));  // running
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 2)));
  CHECK(Enqueue(s, inputs.Make(3, 1, 2, 3)));
  auto r = inputs.Make(4, 1, 2, 4);
  CHECK(!s.Enqueue(r, 0, 0));
  CHECK_EQ(TraitsOf(r->failure).http_status, 503);
  CHECK(r->error.find("Exceeds maximum queue size for model 'm'") == 0);
  gate.Open(100);
  sink.WaitDelivered(3);
  s.Stop();
}

TEST(SchedulerTimesOutQueuedRequests) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  gate.Hold(100);
  gebe::BatchPolicy p = Policy(true, 1, {}, 0);
  p.default_queue_policy.default_timeout_us = 1000;
  gebe::ModelScheduler s("m", Final(p), true, Sessions(1, {}, &gate), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 100)));  // running (dispatched before its deadline)
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 2)));    // queued behind the held run: times out
  sink.WaitDelivered(1);
  CHECK_EQ(sink.Get(2).error, std::string("Request timeout expired"));
  CHECK_EQ(sink.Get(2).status, 503);
  gate.Open(100);
  sink.WaitDelivered(2);
  CHECK(sink.Get(1).ok);
  s.Stop();
}

TEST(SchedulerReportsEngineFailuresPerBatch) {
  Collector sink;
  Inputs inputs;
  gebe::ModelScheduler s("m", Final(Policy(false, 8)), true, Sessions(1), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, -1)));
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 1)));
  sink.WaitDelivered(2);
  Result bad = sink.Get(1);
  CHECK(!bad.ok);
  CHECK_EQ(bad.status, 500);
  CHECK_EQ(bad.error, std::string("failed to run model 'm' (test engine): poisoned input"));
  CHECK(sink.Get(2).ok);
  gebe::StatisticsSnapshot st = s.Stats();
  CHECK_EQ(st.fail.count, uint64_t(1));
  CHECK_EQ(st.success.count, uint64_t(1));
  CHECK_EQ(st.execution_count, uint64_t(1));
  s.Stop();
}

TEST(SchedulerServesHigherPriorityFirst) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  gate.Hold(100);
  gebe::BatchPolicy p = Policy(true, 1, {}, 0);
  p.priority_levels = 2;
  p.default_priority_level = 2;
  gebe::ModelScheduler s("m", Final(p), true, Sessions(1, {}, &gate), &sink);
  CHECK(Enqueue(s, inputs.Make(1, 1, 2, 100)));
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 2), 2));
  CHECK(Enqueue(s, inputs.Make(3, 1, 2, 3), 0));
  CHECK(Enqueue(s, inputs.Make(4, 1, 2, 4), 1));
  gate.Open(100);
  sink.WaitDelivered(4);
  CHECK_EQ(sink.Order(), (std::vector<uint64_t>{1, 4, 2, 3}));
  s.Stop();
}

TEST(SchedulerDropsAQueuedRequestItsJsCallerCancelled) {
  Collector sink;
  Inputs inputs;
  // A 60 s queue delay and a preferred size never reached: both wait in the queue.
  gebe::ModelScheduler s("m", Final(Policy(true, 8, {8}, 60000000)), true, Sessions(1, {}), &sink);
  auto cancelled = inputs.Make(1, 1, 2, 1);
  auto flag = std::make_shared<std::atomic<int>>(0);
  cancelled->js_cancel = flag;
  CHECK(Enqueue(s, std::move(cancelled)));
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 2)));
  flag->store(int(gebe::FailureReason::kDeadlineExceeded));
  s.NoteCancellation();
  sink.WaitDelivered(1);  // long before the delay: the cancelled one alone
  CHECK_EQ(sink.Get(1).error, std::string("Deadline Exceeded"));
  CHECK_EQ(sink.Get(1).status, 504);
  CHECK_EQ(sink.Get(2).deliveries, 0);
  s.Stop();
  sink.WaitClosed();
  CHECK(sink.Get(2).ok);
}

TEST(SchedulerStopsARunOnceEveryRequestOfItsBatchIsCancelled) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  gate.Hold(7);
  // A 60 s queue delay: the two go as one batch of the preferred size 2, whose run waits at the gate.
  gebe::ModelScheduler s("m", Final(Policy(true, 8, {2}, 60000000)), true, Sessions(1, {}, &gate), &sink);
  auto first = inputs.Make(1, 1, 2, 7);
  auto flag = std::make_shared<std::atomic<int>>(0);
  first->js_cancel = flag;
  CHECK(Enqueue(s, std::move(first)));
  CHECK(Enqueue(s, inputs.Make(2, 1, 2, 7)));
  gate.WaitArrived(7);
  flag->store(int(gebe::FailureReason::kCancelled));
  s.NoteCancellation();
  gate.Open(7);
  sink.WaitDelivered(2);
  // Someone still waits for the batch: it runs to the end, and both answers go out.
  CHECK(sink.Get(1).ok);
  CHECK(sink.Get(2).ok);
  CHECK_EQ(s.Stats().execution_count, uint64_t(1));
  s.Stop();
}

TEST(SchedulerStopsALoneRunItsCallerCancelled) {
  Collector sink;
  Inputs inputs;
  Gate gate;
  gate.Hold(9);
  gebe::ModelScheduler s("m", Final(Policy(false, 8)), true, Sessions(1, {}, &gate), &sink);
  auto lone = inputs.Make(3, 1, 2, 9);
  auto flag = std::make_shared<std::atomic<int>>(0);
  lone->js_cancel = flag;
  CHECK(Enqueue(s, std::move(lone)));
  gate.WaitArrived(9);  // running, not queued
  flag->store(int(gebe::FailureReason::kDeadlineExceeded));
  s.NoteCancellation();
  gate.Open(9);
  sink.WaitDelivered(1);
  CHECK(!sink.Get(3).ok);
  CHECK_EQ(sink.Get(3).error, std::string("Deadline Exceeded"));
  CHECK_EQ(sink.Get(3).status, 504);
  gebe::StatisticsSnapshot st = s.Stats();
  CHECK_EQ(st.fail.count, uint64_t(1));
  CHECK_EQ(st.execution_count, uint64_t(0));  // a stopped run is no execution
  // The instance is free again.
  CHECK(Enqueue(s, inputs.Make(4, 1, 2, 5)));
  sink.WaitDelivered(2);
  CHECK(sink.Get(4).ok);
  s.Stop();
}

TEST(SchedulerDropsARequestCancelledBeforeItReachedTheQueue) {
  Collector sink;
  Inputs inputs;
  gebe::ModelScheduler s("m", Final(Policy(true, 8, {8}, 60000000)), true, Sessions(1, {}), &sink);
  auto r = inputs.Make(1, 1, 2, 1);
  r->js_cancel = std::make_shared<std::atomic<int>>(int(gebe::FailureReason::kCancelled));
  CHECK(Enqueue(s, std::move(r)));  // as a sequence batcher hands on a step from its backlog
  sink.WaitDelivered(1);
  CHECK_EQ(sink.Get(1).error, std::string("Request was cancelled"));
  s.Stop();
}

TEST(SchedulerInstancesTakeTurnsOnASharedRateLimiterResource) {
  // Two models whose one instance each needs the one copy of R: B's batch waits while A's runs.
  auto limiter = std::make_shared<gebe::RateLimiter>(std::vector<gebe::RateLimitResource>{});
  gebe::InstanceRateLimit needs_r;
  needs_r.resources = {{"R", false, 1}};
  Collector sink_a, sink_b;
  Inputs inputs;
  Gate gate;
  gate.Hold(5);
  gebe::ModelScheduler a("a", Final(Policy(false, 8)), true, Sessions(1, {}, &gate), &sink_a, 0,
                         std::make_shared<gebe::RateLimitedInstances>(limiter, std::vector<gebe::InstanceRateLimit>{needs_r}));
  gebe::ModelScheduler b("b", Final(Policy(false, 8)), true, Sessions(1), &sink_b, 0,
                         std::make_shared<gebe::RateLimitedInstances>(limiter, std::vector<gebe::InstanceRateLimit>{needs_r}));
  CHECK(Enqueue(a, inputs.Make(1, 1, 3, 5)));
  gate.WaitArrived(5);
  CHECK(Enqueue(b, inputs.Make(2, 1, 3, 7)));
  while (limiter->Waiting() != 1) std::this_thread::yield();
  CHECK_EQ(sink_b.Delivered(), size_t(0));
  gate.Open(5);
  sink_a.WaitDelivered(1);
  sink_b.WaitDelivered(1);
  CHECK(sink_b.Get(2).ok);
  CHECK_EQ(sink_b.Get(2).y, (std::vector<float>{14, 14, 14}));
  // Both unloaded: their needs no longer count.
  a.Stop();
  b.Stop();
  CHECK(limiter->Capacities().empty());
}
