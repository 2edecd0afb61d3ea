// Progress from the wire is untrusted: what could crash or corrupt the live model is refused.
#include "controller/live/progress_check.h"

#include <gtest/gtest.h>

#include "core/base/histogram.h"

namespace iofleet::controller {
namespace {

v1::Progress WithReadDelta(std::vector<uint32_t> buckets, std::vector<uint64_t> counts) {
  v1::Progress p;
  auto* h = p.mutable_read()->mutable_latency_ns_delta();
  for (auto b : buckets) h->add_bucket(b);
  for (auto c : counts) h->add_count(c);
  return p;
}

TEST(CheckProgress, AcceptsAWellFormedDelta) {
  EXPECT_TRUE(CheckProgress(WithReadDelta({1, 700}, {5, 6}), nullptr).ok());
}

TEST(CheckProgress, RefusesABucketOutOfRange) {
  Status s = CheckProgress(WithReadDelta({LatencyHistogram::kBuckets}, {1}), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("read.latency_ns_delta: bucket 3776 out of range"), std::string::npos) << s.message();
  EXPECT_FALSE(CheckProgress(WithReadDelta({UINT32_MAX}, {1}), nullptr).ok());
}

TEST(CheckProgress, RefusesBucketsAndCountsOfDifferentLengths) {
  Status s = CheckProgress(WithReadDelta({1, 2}, {1}), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("2 buckets but 1 counts"), std::string::npos) << s.message();
  v1::Progress p;
  p.mutable_write()->mutable_latency_ns_delta()->add_count(1);
  EXPECT_FALSE(CheckProgress(p, nullptr).ok());
}

TEST(CheckProgress, RefusesAStartInstantAboveInt64Max) {
  v1::Progress p;
  p.set_started_at_unix_ns(static_cast<uint64_t>(INT64_MAX) + 1);
  Status s = CheckProgress(p, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("started_at_unix_ns"), std::string::npos) << s.message();
  p.set_started_at_unix_ns(static_cast<uint64_t>(INT64_MAX));
  EXPECT_TRUE(CheckProgress(p, nullptr).ok());
}

TEST(CheckLatencySumFits, RefusesASumThatWouldOverflow) {
  v1::Progress p = WithReadDelta({1}, {1});
  p.mutable_read()->mutable_latency_ns_delta()->set_sum(100);
  EXPECT_TRUE(CheckLatencySumFits(p, UINT64_MAX - 100).ok());
  Status s = CheckLatencySumFits(p, UINT64_MAX - 99);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("read.latency_ns_delta.sum"), std::string::npos) << s.message();
  p.mutable_write()->mutable_latency_ns_delta()->set_sum(UINT64_MAX);
  EXPECT_FALSE(CheckLatencySumFits(p, 0).ok());  // read and write together
}

TEST(CheckProgress, RefusesCountsThatWouldOverflow) {
  EXPECT_FALSE(CheckProgress(WithReadDelta({1, 2}, {UINT64_MAX, UINT64_MAX}), nullptr).ok());
  EXPECT_FALSE(CheckProgress(WithReadDelta({1}, {kMaxDeltaCount + 1}), nullptr).ok());
}

TEST(CheckProgress, RefusesCumulativeFiguresGoingBackwards) {
  v1::Progress before, now;
  before.set_ops(10);
  before.mutable_write()->set_bytes(4096);
  now.set_ops(11);
  now.mutable_write()->set_bytes(4095);
  Status s = CheckProgress(now, &before);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("write.bytes went backwards"), std::string::npos) << s.message();
  now.mutable_write()->set_bytes(8192);
  EXPECT_TRUE(CheckProgress(now, &before).ok());
}

}  // namespace
}  // namespace iofleet::controller
