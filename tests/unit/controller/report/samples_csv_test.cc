#include "controller/report/samples_csv.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/base/histogram.h"
#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

v1::Progress Sample(uint64_t elapsed_ns, uint64_t bytes, uint64_t ops) {
  v1::Progress p;
  p.set_elapsed_ns(elapsed_ns);
  p.set_bytes(bytes);
  p.set_ops(ops);
  return p;
}

TEST(SamplesCsv, ARowHasTheIntervalsRatesAndLatency) {
  const SampleStep step{2, "read", "io", 1, 3, -1};
  v1::Progress before = Sample(1'000'000'000, 1'000'000, 100);
  v1::Progress now = Sample(1'500'000'000, 3'000'000, 300);
  auto* read = now.mutable_read()->mutable_latency_ns_delta();
  read->add_bucket(LatencyHistogram::BucketOf(40));  // exact below 64 ns
  read->add_count(150);
  read->add_bucket(LatencyHistogram::BucketOf(50));
  read->add_count(50);
  read->set_sum(150 * 40 + 50 * 50);
  EXPECT_EQ(SamplesCsv::Row(step, "node01", now, &before), "2,read,io,1,3,,node01,1.500000,3000000,300,4000000.000,400.000,40,50,0,\n");
  // The first sample: its interval starts at the step's start; no latency completed in it.
  EXPECT_EQ(SamplesCsv::Row(step, "node01", before, nullptr), "2,read,io,1,3,,node01,1.000000,1000000,100,1000000.000,100.000,,,0,\n");
}

// The ramp was written as zero throughput (bytes 0 rows) and the charts climbed from 0.
TEST(SamplesCsv, RampSamplesRateTheRampsIoAndAreMarked) {
  SampleStep step{0, "mixed", "io", 0, 0, -1};
  step.ramp_ns = 2'000'000'000;
  v1::Progress first = Sample(1'000'000'000, 0, 0);
  first.set_ramp_bytes(50'000'000);
  first.set_ramp_ops(500);
  v1::Progress second = Sample(2'000'000'000, 0, 0);
  second.set_ramp_bytes(150'000'000);
  second.set_ramp_ops(1500);
  v1::Progress third = Sample(3'000'000'000, 80'000'000, 800);  // the window opened at 2 s
  third.set_ramp_bytes(150'000'000);
  third.set_ramp_ops(1500);
  EXPECT_EQ(SamplesCsv::Row(step, "a", first, nullptr), "0,mixed,io,0,0,,a,1.000000,0,0,50000000.000,500.000,,,1,\n");
  EXPECT_EQ(SamplesCsv::Row(step, "a", second, &first), "0,mixed,io,0,0,,a,2.000000,0,0,100000000.000,1000.000,,,1,\n");
  EXPECT_EQ(SamplesCsv::Row(step, "a", third, &second), "0,mixed,io,0,0,,a,3.000000,80000000,800,80000000.000,800.000,,,0,\n");
  // A sample that spans the ramp's end rates the window's bytes over the time after the ramp.
  v1::Progress late = Sample(2'500'000'000, 40'000'000, 400);
  EXPECT_EQ(SamplesCsv::Row(step, "a", late, &first), "0,mixed,io,0,0,,a,2.500000,40000000,400,80000000.000,800.000,,,0,\n");
}

TEST(SamplesCsv, AGroupsStepAndQuotedNames) {
  const SampleStep step{0, "a,b", "copy", 0, 0, 4};
  EXPECT_EQ(SamplesCsv::Row(step, "x\"y", Sample(2'000'000'000, 0, 0), nullptr), "0,\"a,b\",copy,0,0,4,\"x\"\"y\",2.000000,0,0,0.000,0.000,,,0,\n");
}

// A step of streams: after the agent's row, a row per stream with its own counters and rates,
// named in the last column; during the ramp a stream's rates are empty.
TEST(SamplesCsv, AStepOfStreamsHasARowPerStream) {
  SampleStep step{1, "mix", "io", 0, 0, -1, 0, {"probe", "load"}};
  v1::Progress before = Sample(1'000'000'000, 1'000'000, 100);
  v1::Progress now = Sample(2'000'000'000, 3'000'000, 300);
  for (v1::Progress* p : {&before, &now}) {
    const uint64_t scale = p == &before ? 1 : 2;
    v1::StreamProgress* probe = p->add_streams();
    probe->set_ops(40 * scale);
    probe->set_bytes(40 * 4096 * scale);
    v1::StreamProgress* load = p->add_streams();
    load->set_ops(p->ops() - probe->ops());
    load->set_bytes(p->bytes() - probe->bytes());
  }
  EXPECT_EQ(SamplesCsv::Row(step, "a", now, &before),
            "1,mix,io,0,0,,a,2.000000,3000000,300,2000000.000,200.000,,,0,\n"
            "1,mix,io,0,0,,a,2.000000,327680,80,163840.000,40.000,,,0,probe\n"
            "1,mix,io,0,0,,a,2.000000,2672320,220,1836160.000,160.000,,,0,load\n");
  step.ramp_ns = 5'000'000'000;
  const std::string ramp = SamplesCsv::Row(step, "a", now, &before);
  EXPECT_NE(ramp.find(",a,2.000000,327680,80,,,,,1,probe\n"), std::string::npos) << ramp;
}

TEST(SamplesCsv, WritesRowsFromManyThreadsWhole) {
  testing::TempDir dir;
  auto csv = SamplesCsv::Create(dir / "samples.csv");
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  const SampleStep step{0, "write", "io", 0, 0, -1};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 1; i <= 250; ++i) (*csv)->Add(step, "agent" + std::to_string(t), Sample(i * 1'000'000'000ull, i, i), nullptr);
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE((*csv)->Close().ok());
  auto text = (*csv)->Text();
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->rfind(SamplesCsv::kHeader, 0), 0u);
  size_t lines = 0;
  for (char c : *text) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 4 * 250);
}

TEST(SamplesCsv, AFailedWriteIsAnErrorNamingTheFile) {
  auto csv = SamplesCsv::Create("/dev/full");
  ASSERT_TRUE(csv.ok());
  for (int i = 0; i < 2000; ++i) (*csv)->Add({0, "w", "io", 0, 0, -1}, "a", Sample(1, 1, 1), nullptr);
  Status closed = (*csv)->Close();
  EXPECT_FALSE(closed.ok());
  EXPECT_NE(closed.message().find("/dev/full"), std::string::npos) << closed.message();
  EXPECT_FALSE(SamplesCsv::Create("/nonexistent-dir/samples.csv").ok());
}

}  // namespace
}  // namespace iofleet::controller
