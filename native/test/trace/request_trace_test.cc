// The trace extension's sampler (trace/request_trace.h): every rate-th request of a setting, its
// count and the trace that uses it up, a model's own setting over the global one and back, the
// bound on traces waiting for JS, exact counts while several threads sample at once (the HTTP and
// gRPC loops and the JS thread do) and the settings change under them, and OpenTelemetry context
// propagation (a valid traceparent is traced whatever the rate and count).
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "trace/request_trace.h"

using namespace gebe;

namespace {

const std::string kModel = "m";
const std::string kOther = "other";

TraceSettingValues Values(bool on, uint64_t rate, int64_t count) {
  TraceSettingValues v;
  v.on = on;
  v.rate = rate;
  v.count = count;
  return v;
}

// Every setting off and nothing waiting: each case starts from here.
void Reset() {
  TraceSettingValues off = Values(false, 1000, -1);
  SetTraceSetting(nullptr, &off);
  SetTraceSetting(&kModel, nullptr);
  SetTraceSetting(&kOther, nullptr);
  SetContextPropagation(false);
  uint64_t dropped = 0;
  TakeTraces(&dropped);
}

// Samples `n` requests of `model` and collects the traces; how many were traced.
int SampleMany(const std::string& model, int n) {
  int traced = 0;
  for (int i = 0; i < n; ++i) {
    std::unique_ptr<RequestTrace> t = SampleTrace(model, "1", TraceProtocol::kHttp);
    if (t) ++traced;
    CollectTrace(std::move(t));
  }
  return traced;
}

}  // namespace

TEST(NothingIsSampledWhileEverySettingIsOff) {
  Reset();
  CHECK(!TracingOn());
  CHECK_EQ(SampleMany(kModel, 100), 0);
}

TEST(EveryRateThRequestUntilTheCountRunsOut) {
  Reset();
  TraceSettingValues v = Values(true, 3, 4);
  SetTraceSetting(nullptr, &v);
  CHECK(TracingOn());
  CHECK_EQ(SampleMany(kModel, 11), 3);  // the 3rd, 6th and 9th
  CHECK_EQ(TraceCountLeft(nullptr), int64_t(1));
  CHECK_EQ(SampleMany(kModel, 100), 1);
  CHECK_EQ(TraceCountLeft(nullptr), int64_t(0));
  CHECK(!TracingOn());  // used up: requests pay one load again
  uint64_t dropped = 0;
  std::vector<std::unique_ptr<RequestTrace>> traces = TakeTraces(&dropped);
  CHECK_EQ(traces.size(), size_t(4));
  for (size_t i = 0; i < traces.size(); ++i) {
    CHECK_EQ(traces[i]->last, i == 3);
    CHECK_EQ(traces[i]->model, kModel);
    if (i > 0) CHECK(traces[i]->id > traces[i - 1]->id);
  }
}

TEST(AModelsOwnSettingGovernsItAloneAndRemovingItRestoresTheGlobalOne) {
  Reset();
  TraceSettingValues mine = Values(true, 1, -1);
  SetTraceSetting(&kModel, &mine);
  CHECK_EQ(SampleMany(kModel, 5), 5);
  CHECK_EQ(SampleMany(kOther, 5), 0);  // the global setting: off
  CHECK_EQ(TraceCountLeft(&kOther), int64_t(-1));
  // Changing it keeps its sampling counter and, without set_count, what it has left.
  TraceSettingValues counted = Values(true, 2, 3);
  SetTraceSetting(&kModel, &counted);
  CHECK_EQ(SampleMany(kModel, 2), 1);
  TraceSettingValues keep = Values(true, 2, 99);
  keep.set_count = false;
  SetTraceSetting(&kModel, &keep);
  CHECK_EQ(TraceCountLeft(&kModel), int64_t(2));
  SetTraceSetting(&kModel, nullptr);
  CHECK(!TracingOn());
  CHECK_EQ(SampleMany(kModel, 5), 0);
}

TEST(TracesWaitingForJsAreBounded) {
  Reset();
  TraceSettingValues all = Values(true, 1, -1);
  SetTraceSetting(nullptr, &all);
  SampleMany(kModel, 70000);
  uint64_t dropped = 0;
  CHECK_EQ(TakeTraces(&dropped).size(), size_t(65536));
  CHECK_EQ(dropped, uint64_t(70000 - 65536));
  TakeTraces(&dropped);
  CHECK_EQ(dropped, uint64_t(0));
  Reset();
}

TEST(ThreadsSamplingTogetherTakeExactlyTheCountWhileSettingsChange) {
  Reset();
  TraceSettingValues v = Values(true, 3, 1000);
  SetTraceSetting(nullptr, &v);
  std::atomic<int> traced{0}, lasts{0};
  std::atomic<bool> stop{false};
  // The JS thread turns a model's own setting on and off meanwhile.
  std::thread changer([&] {
    TraceSettingValues other = Values(true, 1, -1);
    while (!stop.load()) {
      SetTraceSetting(&kOther, &other);
      SetTraceSetting(&kOther, nullptr);
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 3000; ++i) {
        std::unique_ptr<RequestTrace> trace = SampleTrace(kModel, "1", TraceProtocol::kGrpc);
        if (!trace) continue;
        traced.fetch_add(1);
        if (trace->last) lasts.fetch_add(1);
        trace->StampNow(TraceStamp::kRequestStart);
        CollectTrace(std::move(trace));
      }
    });
  }
  for (auto& t : threads) t.join();
  stop.store(true);
  changer.join();
  // 12000 requests, every 3rd: 4000 candidates, of which the count lets 1000 through.
  CHECK_EQ(traced.load(), 1000);
  CHECK_EQ(lasts.load(), 1);
  uint64_t dropped = 0;
  CHECK_EQ(TakeTraces(&dropped).size(), size_t(1000));
  Reset();
}

TEST(TraceparentsAreCheckedAsW3CVersion00) {
  CHECK(ValidTraceparent("00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01"));
  CHECK(ValidTraceparent("00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-00"));
  CHECK(!ValidTraceparent("01-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01"));   // another version
  CHECK(!ValidTraceparent("00-0AF7651916CD43DD8448EB211C12666C-b7ad6b7169242424-01"));   // upper case
  CHECK(!ValidTraceparent("00-00000000000000000000000000000000-b7ad6b7169242424-01"));   // zero trace id
  CHECK(!ValidTraceparent("00-0af7651916cd43dd8448eb211c12666c-0000000000000000-01"));   // zero span id
  CHECK(!ValidTraceparent("00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01-x"));
  CHECK(!ValidTraceparent("00-0af7651916cd43dd8448eb211c12666c_b7ad6b7169242424-01"));
  CHECK(!ValidTraceparent(""));
}

TEST(ARequestIdIsKeptUpToItsBoundCutAtACharactersStart) {
  RequestTrace t;
  t.SetRequestId("req-7");
  CHECK_EQ(t.request_id, std::string("req-7"));
  t.SetRequestId(std::string(kMaxTracedRequestIdBytes + 100, 'x'));
  CHECK_EQ(t.request_id.size(), kMaxTracedRequestIdBytes);
  // A two-byte character (é) across the bound: cut before it, never inside it.
  std::string id(kMaxTracedRequestIdBytes - 1, 'a');
  id += "\xC3\xA9tail";
  t.SetRequestId(id);
  CHECK_EQ(t.request_id, std::string(kMaxTracedRequestIdBytes - 1, 'a'));
  t.SetRequestId("");
  CHECK(t.request_id.empty());
}

TEST(APropagatedContextIsTracedWhateverTheRateAndCount) {
  Reset();
  const std::string context = "00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01";
  // Rate 0 samples nothing by itself; the count is used up by no propagated request.
  TraceSettingValues v = Values(true, 0, 1);
  SetTraceSetting(nullptr, &v);
  CHECK(SampleTrace(kModel, "1", TraceProtocol::kHttp, context) == nullptr);  // propagation off
  SetContextPropagation(true);
  for (int i = 0; i < 3; ++i) {
    std::unique_ptr<RequestTrace> t = SampleTrace(kModel, "1", TraceProtocol::kGrpc, context);
    CHECK(t != nullptr);
    if (t) CHECK_EQ(t->context, context);
  }
  CHECK(SampleTrace(kModel, "1", TraceProtocol::kGrpc, "00-bad") == nullptr);
  CHECK(SampleTrace(kModel, "1", TraceProtocol::kGrpc) == nullptr);
  CHECK_EQ(TraceCountLeft(nullptr), int64_t(1));
  // Level OFF: nothing, context or not.
  TraceSettingValues off = Values(false, 1, -1);
  SetTraceSetting(nullptr, &off);
  CHECK(!TracingOn());
  CHECK(SampleTrace(kModel, "1", TraceProtocol::kHttp, context) == nullptr);
  Reset();
}
