// The live line: a copy or files step's rate is files per second, an io step's I/Os per second.
#include "controller/run/progress_line.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(ProgressLine, ACopyOrFilesStepCountsFilesAnIoStepIos) {
  LiveTotals t{2.0, 200ull << 20, 600, 1, 200ull << 20, 200ull << 20, ""};
  EXPECT_EQ(ProgressLine("write", "io", t), "[write] 2s  100.0 MiB/s  300 IOPS");
  EXPECT_EQ(ProgressLine("copy-in", "copy", t), "[copy-in] 2s  100.0 MiB/s  300 files/s");
  EXPECT_EQ(ProgressLine("tree.create", "files", t), "[tree.create] 2s  100.0 MiB/s  300 files/s");
}

TEST(ProgressLine, SeveralAgentsShowTheirRangeAndTheSilentOnes) {
  LiveTotals t{2.0, 300ull << 20, 300, 2, 100ull << 20, 200ull << 20, "node2"};
  EXPECT_EQ(ProgressLine("write", "io", t), "[write] 2s  150.0 MiB/s  150 IOPS  per agent 50.0..100.0 MiB/s  silent: node2");
}

}  // namespace
}  // namespace iofleet::controller
