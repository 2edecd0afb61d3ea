// fio's latency target imported as an io step's `target_latency` with `vary: queue_depth`
// (controller/workload/fio_latency_options.cc).
#include <gtest/gtest.h>

#include "controller/workload/fio_import.h"
#include "core/rules/defaults.h"

namespace iofleet::controller {
namespace {

std::string LatencyLines(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& e : list) out += e + "\n";
  return out;
}

bool LatencyHas(const std::vector<std::string>& list, const std::string& text) {
  return LatencyLines(list).find(text) != std::string::npos;
}

constexpr uint64_t kMillisecond = 1'000'000;

TEST(FioLatencyOptions, FiosLatencyProfileExampleSearchesTheQueueDepth) {
  // fio's examples/latency-profile.fio, with a file instead of /dev/sda.
  FioImport imp = ImportFioJobText(R"([global]
bs=4k
rw=randread
random_generator=lfsr
direct=1
ioengine=libaio
iodepth=128
# Set max acceptable latency to 500msec
latency_target=500000
# profile over a 5s window
latency_window=5000000
# 99.9% of IOs must be below the target
latency_percentile=99.9

[device]
size=64m
)", "latency-profile.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << LatencyLines(imp.errors);
  ASSERT_EQ(imp.workload.steps_size(), 1);
  const v1::IoSpec io = rules::ResolveIo(imp.workload, 0);
  ASSERT_TRUE(io.has_target_latency());
  EXPECT_EQ(io.target_latency().vary(), v1::SEARCH_VARY_QUEUE_DEPTH);
  EXPECT_EQ(io.target_latency().max_latency(), 500 * kMillisecond);  // a bare number is microseconds
  EXPECT_EQ(io.target_latency().probe(), 5000 * kMillisecond);
  EXPECT_EQ(io.target_latency().percentile(), "99.9");
  EXPECT_EQ(io.queue_depth(), 128u);  // the deepest the search tries, as fio's iodepth is
  EXPECT_EQ(io.runtime(), rules::CutStepRuntimeNs(io)) << "the search's own bound: the job's size no longer ends it";
  EXPECT_FALSE(io.has_io_size());
}

TEST(FioLatencyOptions, FiosDefaultsAreEveryIoAndTheSearchesOwnWindow) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nrw=randread\nioengine=libaio\niodepth=8\nlatency_target=2ms\n", "d.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << LatencyLines(imp.errors);
  const v1::TargetLatency& t = imp.workload.steps(0).io().target_latency();
  EXPECT_EQ(t.percentile(), "100") << "fio's latency_percentile default: every I/O of the window";
  EXPECT_EQ(t.max_latency(), 2 * kMillisecond);
  EXPECT_FALSE(t.has_probe());
  EXPECT_TRUE(LatencyHas(imp.warnings, "d.fio:6:1: latency_target: fio judges every completion without latency_window")) << LatencyLines(imp.warnings);
}

TEST(FioLatencyOptions, WhatFioDoesDifferentlyIsSaid) {
  FioImport imp = ImportFioJobText(
      "[a]\nsize=1m\nrw=randread\nioengine=libaio\niodepth=8\nnumjobs=4\ntime_based\nruntime=30\nlatency_target=2ms\nlatency_window=1s\n",
      "w.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << LatencyLines(imp.errors);
  const v1::IoSpec io = rules::ResolveIo(imp.workload, 0);
  EXPECT_EQ(io.runtime(), rules::CutStepRuntimeNs(io));
  EXPECT_TRUE(LatencyHas(imp.warnings, "w.fio:8:1: runtime: fio ends the latency search at 30s (job [a])")) << LatencyLines(imp.warnings);
  EXPECT_TRUE(LatencyHas(imp.warnings, "w.fio:9:1: latency_target: fio searches each of the 4 jobs' queue depth alone")) << LatencyLines(imp.warnings);
}

TEST(FioLatencyOptions, WhatCannotMeanTheSameIsRefusedAtItsPlace) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nioengine=libaio\niodepth=8\nlatency_target=2ms\nlatency_run=1\n", "a.fio", false);
  EXPECT_TRUE(LatencyHas(imp.errors, "a.fio:6:1: latency_run: keeps changing the queue depth")) << LatencyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\nioengine=libaio\niodepth=8\nlatency_target=2ms\nlatency_percentile=100.5\n", "b.fio", false);
  EXPECT_TRUE(LatencyHas(imp.errors, "b.fio:6:20: latency_percentile: \"100.5\" is not a percentage above 0 and at most 100")) << LatencyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\nioengine=libaio\niodepth=8\nlatency_target=2ms\nlatency_window=50ms\n", "c.fio", false);
  EXPECT_TRUE(LatencyHas(imp.errors, "c.fio:6:16: latency_window: 50ms is below the minimum")) << LatencyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\nioengine=libaio\niodepth=8\nlatency_target=fast\n", "e.fio", false);
  EXPECT_TRUE(LatencyHas(imp.errors, "e.fio:5:16: latency_target:")) << LatencyLines(imp.errors);
  // A depth of one leaves nothing to search.
  imp = ImportFioJobText("[a]\nsize=1m\nioengine=libaio\niodepth=1\nlatency_target=2ms\n", "f.fio", false);
  EXPECT_TRUE(LatencyHas(imp.errors, "f.fio:5:1: latency_target: with iodepth=1 (job [a]) leaves no depth to search")) << LatencyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\nlatency_target=2ms\n", "p.fio", false);  // fio's default iodepth, 1
  EXPECT_TRUE(LatencyHas(imp.errors, "p.fio:3:1: latency_target: with iodepth=1 (job [a])")) << LatencyLines(imp.errors);
  // Two searches among jobs that run at once: one stream's depth is searched per step.
  imp = ImportFioJobText("[a]\nsize=1m\nioengine=libaio\niodepth=8\nlatency_target=2ms\n[b]\nsize=1m\nioengine=libaio\niodepth=4\nlatency_target=3ms\n",
                         "g.fio", false);
  EXPECT_TRUE(LatencyHas(imp.errors, "g.fio:10:1: latency_target: in a second job that runs at once with job [a]")) << LatencyLines(imp.errors);
  // With --allow-unsupported what cannot be honoured is left out, with a warning.
  imp = ImportFioJobText("[a]\nsize=1m\nioengine=libaio\niodepth=8\nlatency_target=2ms\nlatency_run=1\n", "h.fio", true);
  EXPECT_TRUE(imp.errors.empty()) << LatencyLines(imp.errors);
  EXPECT_TRUE(imp.workload.steps(0).io().has_target_latency());
}

// A QD-searching probe beside background load (issue 22): fio searches the probe job's depth on its
// own latency while the other job runs; the import makes them one step whose search names the
// probe's stream, and the background runs as long as the search does.
TEST(FioLatencyOptions, AJobBesideOthersIsTheStreamSearched) {
  FioImport imp = ImportFioJobText("[global]\nioengine=libaio\ndirect=1\nsize=1m\ntime_based\nruntime=20\n"
                                   "[probe]\nrw=randread\niodepth=16\nlatency_target=5ms\nlatency_window=2s\n"
                                   "[load]\nrw=write\nbs=64k\niodepth=1\n",
                                   "s.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << LatencyLines(imp.errors);
  ASSERT_EQ(imp.workload.steps_size(), 1);
  const v1::IoSpec& written = imp.workload.steps(0).io();
  ASSERT_EQ(written.streams_size(), 2);
  EXPECT_FALSE(written.streams(0).has_target_latency()) << "the search is the step's";
  const v1::TargetLatency& t = written.target_latency();
  EXPECT_EQ(t.vary(), v1::SEARCH_VARY_QUEUE_DEPTH);
  EXPECT_EQ(t.stream(), "probe");
  EXPECT_EQ(t.max_latency(), 5 * kMillisecond);
  EXPECT_EQ(t.probe(), 2000 * kMillisecond);
  const v1::IoSpec io = rules::ResolveIo(imp.workload, 0);
  EXPECT_EQ(io.runtime(), rules::CutStepRuntimeNs(io)) << "neither job's runtime ends the search";
  EXPECT_EQ(io.streams(0).queue_depth(), 16u);
  EXPECT_EQ(io.streams(1).queue_depth(), 1u) << "the load's depth is its own";
  EXPECT_TRUE(LatencyHas(imp.warnings, "s.fio:6:1: runtime: fio ends this job, beside job [probe]'s latency search, at 20s (job [load])"))
      << LatencyLines(imp.warnings);
  // What would hold the load back beside a search is refused at its place in the job file.
  imp = ImportFioJobText("[global]\nioengine=libaio\nsize=1m\n[probe]\nrw=randread\niodepth=16\nlatency_target=5ms\n"
                         "[load]\nrw=write\nrate_iops=100\n",
                         "r.fio", false);
  EXPECT_TRUE(LatencyHas(imp.errors, "r.fio:10:1: ")) << LatencyLines(imp.errors);
  EXPECT_TRUE(LatencyHas(imp.errors, "is set by the target_latency step's windows")) << LatencyLines(imp.errors);
}

TEST(FioLatencyOptions, AWindowOrPercentileAloneHasNoEffectAsInFio) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nlatency_window=5s\nlatency_percentile=99\n", "n.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << LatencyLines(imp.errors);
  EXPECT_FALSE(imp.workload.steps(0).io().has_target_latency());
  EXPECT_TRUE(LatencyHas(imp.warnings, "n.fio:3:16: latency_window: has no effect without latency_target")) << LatencyLines(imp.warnings);
}

}  // namespace
}  // namespace iofleet::controller
