// The fio options that pace a job, as the import maps them (controller/workload/fio_pacing_options.cc):
// here fio's flow, flow_id and flow_sleep.
#include <gtest/gtest.h>

#include "controller/workload/fio_import.h"

namespace iofleet::controller {
namespace {

std::string PacingLines(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& e : list) out += e + "\n";
  return out;
}

TEST(FioPacingOptions, FiosFlowExampleBecomesTwoStreamsInOneFlow) {
  // fio's examples/flow.fio, on a file of the run directory and scaled down.
  FioImport imp = ImportFioJobText(R"([global]
norandommap
thread
time_based
runtime=30
direct=1
ioengine=libaio
iodepth=256
size=1g
bs=8k
filename=testfile
flow_sleep=1000

[job2]
numjobs=1
rw=write
flow=1

[job1]
numjobs=1
rw=randread
flow=8
)", "flow.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << PacingLines(imp.errors);
  ASSERT_EQ(imp.workload.steps_size(), 1);
  const v1::IoSpec& io = imp.workload.steps(0).io();
  ASSERT_EQ(io.streams_size(), 2);
  EXPECT_EQ(io.streams(0).flow().weight(), 1u);
  EXPECT_EQ(io.streams(1).flow().weight(), 8u);
  EXPECT_EQ(io.streams(0).flow().sleep(), 1'000'000u);  // 1000 microseconds
  EXPECT_FALSE(io.streams(0).flow().has_id());
}

TEST(FioPacingOptions, FlowZeroIsNoFlowAndAnIdOrSleepAloneDoNothing) {
  FioImport imp = ImportFioJobText("[global]\nsize=1m\nflow_id=2\nflow_sleep=0\n[a]\nrw=read\nflow=0\n[b]\nrw=write\nflow=3\n",
                                   "z.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << PacingLines(imp.errors);
  ASSERT_EQ(imp.workload.steps(0).io().streams_size(), 2);
  EXPECT_FALSE(imp.workload.steps(0).io().streams(0).has_flow());
  const v1::FlowSpec& flow = imp.workload.steps(0).io().streams(1).flow();
  EXPECT_EQ(flow.weight(), 3u);
  EXPECT_EQ(flow.id(), 2u);
  EXPECT_FALSE(flow.has_sleep());  // fio's 0 (look again at once) is iofleet's default
}

TEST(FioPacingOptions, BadFlowValuesAreErrorsAtTheirPlace) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nflow=1001\nflow_id=x\nflow_sleep=soon\n", "b.fio", false);
  const std::string errors = PacingLines(imp.errors);
  EXPECT_NE(errors.find("b.fio:3:6: flow: 1001 is above the maximum 1000"), std::string::npos) << errors;
  EXPECT_NE(errors.find("b.fio:4:9: flow_id: \"x\" is not a whole number"), std::string::npos) << errors;
  EXPECT_NE(errors.find("b.fio:5:12: flow_sleep:"), std::string::npos) << errors;
}

}  // namespace
}  // namespace iofleet::controller
