// The console summary and summary.csv, as text: the headline table of a sweep and of a repeat,
// the columns a copy or files step names for what they hold, and summary.csv's swept columns.
// The figures expected are worked out by hand from the round numbers the runs are given.
#include <gtest/gtest.h>

#include <algorithm>

#include "controller/report/headline_table.h"
#include "controller/report/report_writers.h"

namespace iofleet::controller {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kSec = 1'000'000'000;

StepStats Stats(uint64_t ops, uint64_t bytes, uint64_t window_ns) {
  StepStats s;
  s.ops = ops;
  s.bytes = bytes;
  s.window_ns = window_ns;
  s.write.ops = ops;
  s.write.bytes = bytes;
  return s;
}

// One run of a step on one agent "a".
StepReport StepRun(int index, const std::string& name, const std::string& kind, int point, int cycle, StepStats stats,
               std::vector<std::pair<std::string, std::string>> params = {}) {
  StepReport step;
  step.index = index;
  step.name = name;
  step.kind = kind;
  step.point = point;
  step.cycle = cycle;
  step.params = std::move(params);
  step.status = "succeeded";
  step.aggregate = stats;
  step.agents.push_back({"a", stats});
  return step;
}

PhaseReport Phase(const std::string& op, uint64_t files, uint64_t window_ns) {
  PhaseReport p;
  p.op = op;
  p.aggregate = Stats(files, 0, window_ns);
  p.agents.push_back({"a", p.aggregate});
  return p;
}

RunReport Report(std::vector<StepReport> steps) {
  RunReport report;
  report.run_id = "r1";
  report.workload = "w";
  report.status = "succeeded";
  report.agents.push_back({"a", "", ""});
  report.steps = std::move(steps);
  return report;
}

// total_jobs 1, 2, 4 at points 0, 1, 2: a drop_caches step, then a write of total_jobs x 100 MiB
// (1 MiB each) in one second.
RunReport ThreadSweep() {
  std::vector<StepReport> steps;
  const uint64_t jobs[] = {1, 2, 4};
  for (int p = 0; p < 3; ++p) {
    std::vector<std::pair<std::string, std::string>> params = {{"total_jobs", std::to_string(jobs[p])}};
    steps.push_back(StepRun(0, "drop", "drop_caches", p, 0, Stats(0, 0, kSec / 10), params));
    steps.push_back(StepRun(1, "write", "io", p, 0, Stats(100 * jobs[p], 100 * jobs[p] * kMiB, kSec), params));
  }
  return Report(steps);
}

// Three cycles: drop_caches, a copy of 1,000 files and 1 GB (10 dirs) in 1, 2 and 4 s, and a
// hook taking 0.5, 1 and 1.5 s.
RunReport CopyCycles() {
  std::vector<StepReport> steps;
  const uint64_t seconds[] = {1, 2, 4};
  for (int c = 0; c < 3; ++c) {
    steps.push_back(StepRun(0, "drop", "drop_caches", 0, c, Stats(0, 0, kSec / 10)));
    StepStats copy = Stats(1000, 1'000'000'000, seconds[c] * kSec);
    copy.dirs = 10;
    steps.push_back(StepRun(1, "copy-in", "copy", 0, c, copy));
    steps.push_back(StepRun(2, "fsck", "hook", 0, c, Stats(0, 0, (c + 1) * kSec / 2)));
  }
  return Report(steps);
}

// A files step at two points: create 1,000 files in 1 s, stat them in 0.25 s.
RunReport FilesSweep() {
  std::vector<StepReport> steps;
  for (int p = 0; p < 2; ++p) {
    StepReport files = StepRun(0, "tree", "files", p, 0, Stats(0, 0, 0), {{"steps[tree].files.files_per_dir", p ? "20" : "10"}});
    files.phases = {Phase("create", 1000, kSec), Phase("stat", 1000, kSec / 4)};
    files.aggregate = Stats(0, 0, 0);
    for (size_t i = 0; i < files.phases.size(); ++i) files.aggregate.AddPhase(files.phases[i].aggregate, i == 0);
    files.agents[0].stats = files.aggregate;
    steps.push_back(files);
  }
  return Report(steps);
}

TEST(HeadlineTable, ASweepHasARowPerPointWithTheSweptValues) {
  // 100 MiB/s = 104.8576 MB/s; drop_caches only prepares, so it has no table.
  EXPECT_EQ(HeadlineTables(ThreadSweep()),
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
  EXPECT_EQ(HeadlineTables(CopyCycles()),
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
  steps[3].status = "failed";
  EXPECT_EQ(HeadlineTables(Report(steps)),
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
  EXPECT_EQ(HeadlineTables(Report(steps)),
            "\n"
            "copy-in (copy) over 2 runs\n"
            "     run   seconds       Gbps     GiB/s      MiB/s       MB/s  files/s\n"
            "       0     1.000      8.000     0.931      953.7     1000.0       10\n"
            "       1     2.000      4.000     0.466      476.8      500.0        5\n"
            "    mean     1.500      6.000     0.698      715.3      750.0        8\n"
            "  stddev     0.707      2.828     0.329      337.2      353.6        4\n"
            "  95% ci  +/-6.353  +/-25.412  +/-2.958  +/-3029.4  +/-3176.6    +/-32\n");
}

TEST(ConsoleSummary, NoDataMovedPrintsTheTimeAndTheTablesFollowTheSteps) {
  std::string console = ConsoleSummary(ThreadSweep());
  EXPECT_NE(console.find("drop point 1 cycle 0 total_jobs=2\n"
                         "drop           a            took 0.100 s\n"
                         "write point 1 cycle 0 total_jobs=2\n"
                         "write          a                 200.0      209.7        200"),
            std::string::npos)
      << console;
  EXPECT_NE(console.find("IOPS"), std::string::npos);
  EXPECT_EQ(console.find("files/s"), std::string::npos);  // an io step counts I/Os
  EXPECT_EQ(console.substr(console.size() - HeadlineTables(ThreadSweep()).size()), HeadlineTables(ThreadSweep()));
}

TEST(ConsoleSummary, ACopyCountsFilesAndTimePerFile) {
  std::string console = ConsoleSummary(CopyCycles());
  EXPECT_NE(console.find("step           agent             MiB/s       MB/s    files/s  mean/file   p50/file   p99/file   max/file\n"
                         "copy-in        a                 953.7     1000.0       1000"),
            std::string::npos)
      << console;
  EXPECT_NE(console.find("copy: 1000 files, 10 dirs in 2.000 s: 4.000 Gbps, 0.466 GiB/s\n"), std::string::npos) << console;
  EXPECT_EQ(console.find("IOPS"), std::string::npos) << console;
  EXPECT_NE(console.find("fsck           a            took 1.500 s\n"), std::string::npos) << console;
}

TEST(ConsoleSummary, AFilesStepShowsItsPhasesOnly) {
  // The step's whole (2,000 operations of two kinds in 1.25 s: "1600 IOPS") is no rate of
  // anything: each phase is a row of its own.
  std::string console = ConsoleSummary(FilesSweep());
  EXPECT_NE(console.find("tree point 0 cycle 0 steps[tree].files.files_per_dir=10\n"
                         "step           agent             MiB/s       MB/s    files/s  mean/file   p50/file   p99/file   max/file\n"
                         "tree           create              0.0        0.0       1000       0 ns       0 ns       0 ns       0 ns\n"
                         "               stat                0.0        0.0       4000       0 ns       0 ns       0 ns       0 ns\n"
                         "tree point 1 cycle 0"),
            std::string::npos)
      << console;
  EXPECT_EQ(console.find("1600"), std::string::npos) << console;
  RunReport no_phases = FilesSweep();  // failed before the first phase: nothing to tabulate
  for (auto& step : no_phases.steps) {
    step.phases.clear();
    step.status = "failed";
  }
  EXPECT_EQ(HeadlineTables(no_phases), "");
  EXPECT_NE(console.find("\n"
                         "tree (files) by steps[tree].files.files_per_dir\n"
                         "  point  steps[tree].files.files_per_dir  create files/s  stat files/s\n"
                         "      0                               10            1000          4000\n"
                         "      1                               20            1000          4000\n"),
            std::string::npos)
      << console;
}

constexpr const char* kCsvHeader =
    "step_index,step,kind,point,cycle,status,scope,agent,ops,bytes,seconds,iops,bytes_per_sec,mib_per_sec,mb_per_sec,"
    "lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_p9999_ns,lat_max_ns,passes,gbps,files_per_sec";

TEST(SummaryCsv, SweptPathsAreColumnsBesideGbps) {
  // 100 MiB/s = 0.838861 Gbps; files_per_sec is empty where ops are I/Os, not files.
  std::string csv = SummaryCsv(ThreadSweep());
  EXPECT_EQ(csv.substr(0, csv.find('\n')), std::string(kCsvHeader) + ",total_jobs");
  EXPECT_NE(csv.find("\n0,drop,drop_caches,1,0,succeeded,aggregate,,0,0,0.1,0.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,,2\n"
                     "0,drop,drop_caches,1,0,succeeded,agent,a,0,0,0.1,0.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,,2\n"
                     "1,write,io,1,0,succeeded,aggregate,,200,209715200,1,200.000000,209715200.000,200.000000,209.715200,0.0,0,0,0,0,0,0,0,1.677722,,2\n"
                     "1,write,io,1,0,succeeded,agent,a,200,209715200,1,200.000000,209715200.000,200.000000,209.715200,0.0,0,0,0,0,0,0,0,1.677722,,2\n"),
            std::string::npos)
      << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 2 * 2);
}

TEST(SummaryCsv, ACopyHasFilesPerSecondAndNoSweptColumnsWithoutASweep) {
  std::string csv = SummaryCsv(CopyCycles());
  EXPECT_EQ(csv.substr(0, csv.find('\n')), kCsvHeader);
  EXPECT_NE(csv.find("\n1,copy-in,copy,0,2,succeeded,aggregate,,1000,1000000000,4,250.000000,250000000.000,238.418579,250.000000,"
                     "0.0,0,0,0,0,0,0,0,2.000000,250.000000\n"),
            std::string::npos)
      << csv;
}

TEST(SummaryCsv, AFilesStepHasPhaseRowsOnlyForAllAgentsAndEach) {
  std::string csv = SummaryCsv(FilesSweep());
  EXPECT_EQ(csv,
            std::string(kCsvHeader) + ",steps[tree].files.files_per_dir\n" +
                "0,tree,files,0,0,succeeded,phase:create,,1000,0,1,1000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,1000.000000,10\n"
                "0,tree,files,0,0,succeeded,phase:create,a,1000,0,1,1000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,1000.000000,10\n"
                "0,tree,files,0,0,succeeded,phase:stat,,1000,0,0.25,4000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,4000.000000,10\n"
                "0,tree,files,0,0,succeeded,phase:stat,a,1000,0,0.25,4000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,4000.000000,10\n"
                "0,tree,files,1,0,succeeded,phase:create,,1000,0,1,1000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,1000.000000,20\n"
                "0,tree,files,1,0,succeeded,phase:create,a,1000,0,1,1000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,1000.000000,20\n"
                "0,tree,files,1,0,succeeded,phase:stat,,1000,0,0.25,4000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,4000.000000,20\n"
                "0,tree,files,1,0,succeeded,phase:stat,a,1000,0,0.25,4000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,4000.000000,20\n");
}

TEST(SummaryCsv, ASweptValueWithACommaIsQuoted) {
  RunReport report = ThreadSweep();
  for (auto& step : report.steps) step.params = {{"block_size_split", "[{size: 4KiB, weight: 1}]"}};
  std::string csv = SummaryCsv(report);
  EXPECT_NE(csv.find(",\"[{size: 4KiB, weight: 1}]\"\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace iofleet::controller
