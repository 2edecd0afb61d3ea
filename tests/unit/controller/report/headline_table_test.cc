// The headline table of a sweep, of a repeat and of both: the rows, the swept values as
// columns, the kind's figures and each point's spread. The figures expected are worked out by
// hand from the round numbers the runs are given (tests/unit/controller/report/report_fixtures.h).
#include "controller/report/headline_table.h"

#include <gtest/gtest.h>

#include "tests/unit/controller/report/report_fixtures.h"

namespace iofleet::controller {
namespace {

using namespace report_fixtures;  // NOLINT: the runs the tests render

TEST(HeadlineTable, ASweepHasARowPerPointWithTheSweptValues) {
  // 100 MiB/s = 104.8576 MB/s; drop_caches only prepares, so it has no table.
  EXPECT_EQ(HeadlineTables(ToDocument(ThreadSweep())),
            "\n"
            "write (io) by total_jobs\n"
            "  point  total_jobs  MiB/s   MB/s  IOPS\n"
            "      0           1  100.0  104.9   100\n"
            "      1           2  200.0  209.7   200\n"
            "      2           4  400.0  419.4   400\n");
}

TEST(HeadlineTable, ARepeatHasARowPerCycleThenMeanStddevAndInterval) {
  // Seconds 1, 2, 4: mean 7/3, sample stddev sqrt(14/9 * 3 / 2) = 1.5275, 95% half width
  // t(0.975, 2) = 4.3027 x 1.5275 / sqrt(3) = 3.795. Gbps 8, 4, 2: mean 4.667, stddev 3.055,
  // half width 7.589. 1 GB/s = 0.931 GiB/s = 953.7 MiB/s; MB/s is Gbps x 125.
  EXPECT_EQ(HeadlineTables(ToDocument(CopyCycles())),
            "\n"
            "copy-in (copy) over 3 cycles\n"
            "   cycle   seconds      Gbps     GiB/s     MiB/s      MB/s  files/s\n"
            "       0     1.000     8.000     0.931     953.7    1000.0     1000\n"
            "       1     2.000     4.000     0.466     476.8     500.0      500\n"
            "       2     4.000     2.000     0.233     238.4     250.0      250\n"
            "    mean     2.333     4.667     0.543     556.3     583.3      583\n"
            "  stddev     1.528     3.055     0.356     364.2     381.9      382\n"
            "  95% ci  +/-3.795  +/-7.589  +/-0.883  +/-904.7  +/-948.6   +/-949\n"
            "\n"
            "fsck (hook) over 3 cycles\n"
            "   cycle   seconds\n"
            "       0     0.500\n"
            "       1     1.000\n"
            "       2     1.500\n"
            "    mean     1.000\n"
            "  stddev     0.500\n"
            "  95% ci  +/-1.242\n");
}

// The bonnie seed's fsck table has the fill level as its x-axis: it was only in report.json.
TEST(HeadlineTable, AHookThatMeasuredItsFillShowsTheFillLevel) {
  std::vector<StepReport> steps;
  for (int p = 0; p < 2; ++p) {
    StepReport fsck = StepRun(1, "fsck", "hook", p, 0, Stats(0, 0, (p + 1) * kSec), {{"steps[fill].files.dirs", p ? "2000" : "1000"}});
    v1::FileSystemFill start, end;
    start.set_use_pct(p ? 27 : 14);
    start.set_used_bytes((p + 1) * 1'000'000'000'000ull);
    start.set_size_bytes(7'500'000'000'000ull);
    start.set_inodes_used((p + 1) * 1'001'000ull);
    start.set_inodes(114'000'000ull);
    end = start;
    fsck.aggregate.fill_at_start = start;
    fsck.aggregate.fill_at_end = end;
    fsck.agents[0].stats = fsck.aggregate;
    steps.push_back(fsck);
  }
  const std::string tables = HeadlineTables(ToDocument(Report(steps)));
  EXPECT_EQ(tables,
            "\n"
            "fsck (hook) by steps[fill].files.dirs\n"
            "  point  steps[fill].files.dirs  seconds  Use%  used GB  size GB  inodes used     inodes  Use% at end\n"
            "      0                    1000    1.000    14   1000.0   7500.0      1001000  114000000           14\n"
            "      1                    2000    2.000    27   2000.0   7500.0      2002000  114000000           27\n")
      << tables;
}

TEST(HeadlineTable, ASweepRepeatedHasEachPointsCyclesAndTheirSpread) {
  std::vector<StepReport> steps;
  for (int p = 0; p < 2; ++p) {
    for (int c = 0; c < 2; ++c) {
      // compressible_pct 0 and 50; 100 and 300 MiB/s, then twice that
      const uint64_t mib = (p + 1) * (c ? 300 : 100);
      steps.push_back(StepRun(0, "read", "io", p, c, Stats(mib, mib * kMiB, kSec), {{"data.compressible_pct", p ? "50" : "0"}}));
    }
  }
  // 100 and 300: mean 200, stddev 141.42, half width t(0.975, 1) = 12.706 x 141.42 / sqrt(2).
  // A failed cycle is left out of the spread: point 1 has one cycle left, and no spread.
  steps[3].status = v1::STEP_STATUS_FAILED;
  EXPECT_EQ(HeadlineTables(ToDocument(Report(steps))),
            "\n"
            "read (io) by data.compressible_pct, 2 cycles per point\n"
            "  point   cycle  data.compressible_pct      MiB/s       MB/s     IOPS     status\n"
            "      0       0                      0      100.0      104.9      100  succeeded\n"
            "      0       1                      0      300.0      314.6      300  succeeded\n"
            "      0    mean                      0      200.0      209.7      200\n"
            "      0  stddev                      0      141.4      148.3      141\n"
            "      0  95% ci                      0  +/-1270.6  +/-1332.3  +/-1271\n"
            "      1       0                     50      200.0      209.7      200  succeeded\n"
            "      1       1                     50      600.0      629.1      600     failed\n");
}

TEST(HeadlineTable, AStepRunSeveralTimesInOneCycleIsNumberedByItsRun) {
  // Steps repeated inside a cycle share its number: the rows count the runs instead. Two values
  // x and y: stddev |x - y| / sqrt(2), 95% half width t(0.975, 1) = 12.706 x stddev / sqrt(2),
  // e.g. GiB/s 0.9313 and 0.4657: 0.329 and 2.958.
  std::vector<StepReport> steps;
  for (int run = 0; run < 2; ++run) steps.push_back(StepRun(0, "copy-in", "copy", 0, 0, Stats(10, 1'000'000'000, (run + 1) * kSec)));
  EXPECT_EQ(HeadlineTables(ToDocument(Report(steps))),
            "\n"
            "copy-in (copy) over 2 runs\n"
            "     run   seconds       Gbps     GiB/s      MiB/s       MB/s  files/s\n"
            "       0     1.000      8.000     0.931      953.7     1000.0       10\n"
            "       1     2.000      4.000     0.466      476.8      500.0        5\n"
            "    mean     1.500      6.000     0.698      715.3      750.0        8\n"
            "  stddev     0.707      2.828     0.329      337.2      353.6        4\n"
            "  95% ci  +/-6.353  +/-25.412  +/-2.958  +/-3029.4  +/-3176.6    +/-32\n");
}

// A group's step (repeat 2, group repeat 3): rows by group cycle, the spread over the group
// cycles of each repeat cycle, never over both (seconds 1, 2, 3 then 11, 12, 13: means 2 and 12).
TEST(HeadlineTable, AGroupsStepIsSpreadOverTheGroupCyclesOfEachCycle) {
  std::vector<StepReport> steps;
  for (int cycle = 0; cycle < 2; ++cycle) {
    for (int g = 0; g < 3; ++g) {
      StepReport run = StepRun(1, "copy-in", "copy", 0, cycle, Stats(10, 1'000'000'000, (cycle * 10 + g + 1) * kSec));
      run.group = "in";
      run.group_cycle = g;
      steps.push_back(run);
    }
  }
  const std::string table = HeadlineTables(ToDocument(Report(steps)));
  EXPECT_NE(table.find("copy-in (copy) over 3 cycles of group in per point and cycle\n"), std::string::npos) << table;
  EXPECT_NE(table.find("cycle  group cycle"), std::string::npos) << table;
  EXPECT_NE(table.find("      0         mean     2.000"), std::string::npos) << table;
  EXPECT_NE(table.find("      1         mean    12.000"), std::string::npos) << table;
  EXPECT_EQ(table.find("7.000"), std::string::npos) << table;  // the mean of all six runs
}

}  // namespace
}  // namespace iofleet::controller
