// fio's steadystate options imported as an io step's `steady` (controller/workload/fio_steady_options.cc).
#include <gtest/gtest.h>

#include "controller/workload/fio_import.h"

namespace iofleet::controller {
namespace {

std::string SteadyLines(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& e : list) out += e + "\n";
  return out;
}

bool SteadyHas(const std::vector<std::string>& list, const std::string& text) {
  return SteadyLines(list).find(text) != std::string::npos;
}

constexpr uint64_t kSecond = 1'000'000'000;

TEST(FioSteadyOptions, FiosSteadystateExampleBecomesSteadySteps) {
  // fio's examples/steadystate.fio, with files instead of /dev/null and /dev/zero.
  FioImport imp = ImportFioJobText(R"([global]
threads=1
group_reporting
time_based
size=128m

[ss-write]
rw=write
bs=128k
numjobs=4
runtime=5m
ss=iops:10%
ss_dur=30s
ss_ramp=10s

[ss-read]
new_group
stonewall
rw=randread
bs=4k
numjobs=4
runtime=5m
ss=bw_slope:1%
ss_dur=10s
ss_ramp=5s
)", "ss.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << SteadyLines(imp.errors);
  ASSERT_EQ(imp.workload.steps_size(), 2);
  const v1::IoSpec& write = imp.workload.steps(0).io();
  ASSERT_TRUE(write.has_steady());
  EXPECT_EQ(write.steady().metric(), v1::STEADY_METRIC_IOPS);
  EXPECT_EQ(write.steady().criterion(), v1::STEADY_CRITERION_RANGE);  // fio's iops: every sample near the mean
  EXPECT_EQ(write.steady().tolerance_pct(), 10u);
  EXPECT_EQ(write.steady().window(), 30 * kSecond);
  EXPECT_EQ(write.steady().interval(), kSecond);  // fio's default check interval
  EXPECT_EQ(write.steady().timeout(), 300 * kSecond);  // fio runs on to its runtime when not steady
  EXPECT_FALSE(write.steady().require());
  EXPECT_EQ(write.ramp(), 10 * kSecond);
  EXPECT_EQ(write.runtime(), 0u);  // the steady step's own bound
  const v1::IoSpec& read = imp.workload.steps(1).io();
  ASSERT_TRUE(read.has_steady());
  EXPECT_EQ(read.steady().metric(), v1::STEADY_METRIC_BANDWIDTH);
  EXPECT_EQ(read.steady().criterion(), v1::STEADY_CRITERION_SLOPE);
  // fio's 1% is the slope per sample: over a window of 10 samples the line changes 9 times that.
  EXPECT_EQ(read.steady().tolerance_pct(), 9u);
  EXPECT_EQ(read.ramp(), 5 * kSecond);
  EXPECT_TRUE(SteadyHas(imp.warnings, "ss.fio:12:1: ss: job [ss-write]'s figures are its steady window's (the last 30s)"))
      << SteadyLines(imp.warnings);
}

TEST(FioSteadyOptions, LongNamesLatencyAndACheckInterval) {
  // fio's examples/example_latency_steadystate.fio, with a file instead of /dev/nvme3n1.
  FioImport imp = ImportFioJobText(R"([global]
ioengine=libaio
iodepth=32
bs=4k
direct=1
rw=randread
time_based=1
runtime=3600  # Max runtime
steadystate=lat:5%
steadystate_duration=300
steadystate_ramp_time=60
steadystate_check_interval=10
[latency_steady_test]
size=10G
)", "lat.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << SteadyLines(imp.errors);
  const v1::IoSpec& io = imp.workload.steps(0).io();
  EXPECT_EQ(io.steady().metric(), v1::STEADY_METRIC_LATENCY);
  EXPECT_EQ(io.steady().criterion(), v1::STEADY_CRITERION_RANGE);
  EXPECT_EQ(io.steady().tolerance_pct(), 5u);
  EXPECT_EQ(io.steady().window(), 300 * kSecond);
  EXPECT_EQ(io.steady().interval(), 10 * kSecond);
  EXPECT_EQ(io.steady().timeout(), 3600 * kSecond);
  EXPECT_EQ(io.ramp(), 60 * kSecond);
}

TEST(FioSteadyOptions, AFractionalWindowChangeIsRoundedWithAWarning) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=10m\nss=iops_slope:0.3%\nss_dur=60\n", "r.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << SteadyLines(imp.errors);
  EXPECT_EQ(imp.workload.steps(0).io().steady().tolerance_pct(), 18u);  // 0.3% x 59
  EXPECT_TRUE(SteadyHas(imp.warnings, "r.fio:5:1: ss: a limit of 0.3% a sample over 60 samples is a change of 17.7% over the "
                                      "window; iofleet's tolerance is 18%")) << SteadyLines(imp.warnings);
}

TEST(FioSteadyOptions, WhatCannotMeanTheSameIsRefusedAtItsPlace) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=1m\nss=iops:1000\nss_dur=30\n", "a.fio", false);
  EXPECT_TRUE(SteadyHas(imp.errors, "a.fio:5:4: ss: \"iops:1000\": a limit in the metric's own units is not supported")) << SteadyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\nss=iops:10%\nss_dur=30\n", "b.fio", false);
  EXPECT_TRUE(SteadyHas(imp.errors, "b.fio:3:1: ss: in a job without time_based and a runtime (job [a]) is not supported")) << SteadyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=1m\nss=speed:10%\nss_dur=30\n", "c.fio", false);
  EXPECT_TRUE(SteadyHas(imp.errors, "c.fio:5:4: ss: \"speed:10%\" is not iops, bw or lat")) << SteadyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=1m\nss=iops:0%\nss_dur=30\n", "d.fio", false);
  EXPECT_TRUE(SteadyHas(imp.errors, "d.fio:5:4: ss: \"iops:0%\": the limit is a percentage above 0")) << SteadyLines(imp.errors);
  // 5% a sample over 60 samples is 295% over the window: more than any tolerance.
  imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=1m\nss=iops_slope:5%\nss_dur=60\n", "e.fio", false);
  EXPECT_TRUE(SteadyHas(imp.errors, "e.fio:5:1: ss: a limit of 5% is a change of 295% over the window's 60 samples")) << SteadyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=1m\nss=iops:10%\nss_dur=2\n", "f.fio", false);
  EXPECT_TRUE(SteadyHas(imp.errors, "f.fio:6:8: ss_dur: 2s holds 2 samples of 1s")) << SteadyLines(imp.errors);
  imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=3h\nss=iops:10%\nss_dur=2h\n", "w.fio", false);
  EXPECT_TRUE(SteadyHas(imp.errors, "w.fio:6:8: ss_dur: 2h is above the maximum 1h (iofleet's steady.window)")) << SteadyLines(imp.errors);
  // The steady step's own rules, at the option that broke them.
  imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=1m\nrate_iops=100\nss=iops:10%\nss_dur=30\n", "g.fio", false);
  EXPECT_TRUE(SteadyHas(imp.errors, "g.fio:5:1: rate_iops:")) << SteadyLines(imp.errors);
  // With --allow-unsupported what cannot be honoured is left out, with a warning.
  imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=1m\nss=iops:1000\nss_dur=30\n", "h.fio", true);
  EXPECT_TRUE(imp.errors.empty()) << SteadyLines(imp.errors);
  EXPECT_FALSE(imp.workload.steps(0).io().has_steady());
}

TEST(FioSteadyOptions, ACriterionWithoutADurationChecksNothingAsInFio) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\ntime_based\nruntime=1m\nss=iops:10%\n", "n.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << SteadyLines(imp.errors);
  EXPECT_FALSE(imp.workload.steps(0).io().has_steady());
  EXPECT_EQ(imp.workload.steps(0).io().runtime(), 60 * kSecond);
  EXPECT_TRUE(SteadyHas(imp.warnings, "n.fio:5:1: ss: has no effect without steadystate_duration")) << SteadyLines(imp.warnings);
}

}  // namespace
}  // namespace iofleet::controller
