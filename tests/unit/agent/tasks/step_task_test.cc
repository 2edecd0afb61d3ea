// The StartGate every task of a step waits on: the two ways a step ends before its threads are
// done, asked from outside or ended by a job (job_end), and the flags that follow its stop.
#include "agent/tasks/step_task.h"

#include <gtest/gtest.h>

#include <atomic>

namespace iofleet::agent {
namespace {

// A stop asked from outside is stopped early; a job's end is not, and registered flags follow
// either (a task's own flag is how job_end: stream stops its jobs alone).
TEST(StartGate, EndStepStopsWithoutSayingStopRequested) {
  StartGate ended;
  std::atomic<bool> before{false}, after{false};
  ended.AlsoStop(before);
  ended.EndStep();
  ended.AlsoStop(after);
  EXPECT_TRUE(ended.stop().load());
  EXPECT_TRUE(before.load());
  EXPECT_TRUE(after.load());
  EXPECT_FALSE(ended.stop_requested());

  StartGate asked;
  std::atomic<bool> flag{false};
  asked.AlsoStop(flag);
  asked.RequestStop();
  EXPECT_TRUE(flag.load());
  EXPECT_TRUE(asked.stop_requested());
}

}  // namespace
}  // namespace iofleet::agent
