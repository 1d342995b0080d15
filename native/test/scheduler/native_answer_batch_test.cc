// NativeAnswerBatch: the wake-ups deferred while a batch's native answers are handed out run once
// per target when the batch ends, in order, and at once when no batch is open on the thread.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "scheduler/scheduled_request.h"

namespace {

struct Target {
  std::string name;
  std::vector<std::string>* log;
};

void Wake(const std::shared_ptr<void>& target) {
  auto* t = static_cast<Target*>(target.get());
  t->log->push_back(t->name);
}

std::shared_ptr<void> MakeTarget(const char* name, std::vector<std::string>* log) {
  return std::make_shared<Target>(Target{name, log});
}

}  // namespace

TEST(NativeAnswerBatchWakesAtOnceWhenNoneIsOpen) {
  std::vector<std::string> log;
  auto a = MakeTarget("a", &log);
  gebe::NativeAnswerBatch::Defer(a, &Wake);
  gebe::NativeAnswerBatch::Defer(a, &Wake);
  CHECK_EQ(log, (std::vector<std::string>{"a", "a"}));
}

TEST(NativeAnswerBatchWakesEachTargetOnceWhenTheBatchEnds) {
  std::vector<std::string> log;
  auto a = MakeTarget("a", &log);
  auto b = MakeTarget("b", &log);
  {
    gebe::NativeAnswerBatch batch;
    gebe::NativeAnswerBatch::Defer(a, &Wake);
    gebe::NativeAnswerBatch::Defer(b, &Wake);
    gebe::NativeAnswerBatch::Defer(a, &Wake);
    CHECK_EQ(log.size(), size_t(0));
  }
  CHECK_EQ(log, (std::vector<std::string>{"a", "b"}));
  gebe::NativeAnswerBatch::Defer(b, &Wake);  // closed: at once again
  CHECK_EQ(log, (std::vector<std::string>{"a", "b", "b"}));
}

TEST(NativeAnswerBatchKeepsItsTargetAliveUntilTheWake) {
  std::vector<std::string> log;
  {
    gebe::NativeAnswerBatch batch;
    gebe::NativeAnswerBatch::Defer(MakeTarget("gone", &log), &Wake);  // the caller's reference is dropped
  }
  CHECK_EQ(log, (std::vector<std::string>{"gone"}));
}

TEST(NativeAnswerBatchNestsAndIsPerThread) {
  std::vector<std::string> log;
  std::vector<std::string> other_log;
  auto a = MakeTarget("a", &log);
  auto b = MakeTarget("b", &log);
  {
    gebe::NativeAnswerBatch outer;
    gebe::NativeAnswerBatch::Defer(a, &Wake);
    {
      gebe::NativeAnswerBatch inner;
      gebe::NativeAnswerBatch::Defer(b, &Wake);
    }
    CHECK_EQ(log, (std::vector<std::string>{"b"}));  // the inner batch ended
    // Another thread has no batch open: its wake runs at once, on that thread.
    std::thread([&] { gebe::NativeAnswerBatch::Defer(MakeTarget("other", &other_log), &Wake); }).join();
    CHECK_EQ(other_log, (std::vector<std::string>{"other"}));
    CHECK_EQ(log, (std::vector<std::string>{"b"}));
  }
  CHECK_EQ(log, (std::vector<std::string>{"b", "a"}));
}
