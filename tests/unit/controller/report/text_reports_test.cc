// The console summary and summary.csv, as text: the columns a copy or files step names for what
// they hold, the time of steps that move no data, the headline tables after the steps, and
// summary.csv's gbps, files_per_sec and swept columns. The figures expected are worked out by
// hand from the round numbers the runs are given (tests/unit/controller/report/report_fixtures.h).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "controller/report/headline_table.h"
#include "controller/report/report_writers.h"
#include "tests/unit/controller/report/report_fixtures.h"

namespace iofleet::controller {
namespace {

using namespace report_fixtures;  // NOLINT: the runs the tests render

TEST(ConsoleSummary, NoDataMovedPrintsTheTimeAndTheTablesFollowTheSteps) {
  std::string console = ConsoleSummary(ToDocument(ThreadSweep()));
  EXPECT_NE(console.find("drop point 1 cycle 0 total_jobs=2\n"
                         "drop           a            took 0.100 s\n"
                         "write point 1 cycle 0 total_jobs=2\n"
                         "write          a                 200.0      209.7        200"),
            std::string::npos)
      << console;
  EXPECT_NE(console.find("IOPS"), std::string::npos);
  EXPECT_EQ(console.find("files/s"), std::string::npos);  // an io step counts I/Os
  EXPECT_EQ(console.substr(console.size() - HeadlineTables(ToDocument(ThreadSweep())).size()), HeadlineTables(ToDocument(ThreadSweep())));
}

TEST(ConsoleSummary, ACopyCountsFilesAndTimePerFile) {
  std::string console = ConsoleSummary(ToDocument(CopyCycles()));
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
  std::string console = ConsoleSummary(ToDocument(FilesSweep()));
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
    step.status = v1::STEP_STATUS_FAILED;
  }
  EXPECT_EQ(HeadlineTables(ToDocument(no_phases)), "");
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
    "lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_p9999_ns,lat_max_ns,passes,gbps,files_per_sec,group,group_cycle";

TEST(ConsoleSummary, PastSixteenAgentsTheDistributionAndTheSlowestNotARowEach) {
  const std::string console = ConsoleSummary(ToDocument(ManyAgentRead(40)));
  // Nearest rank over 40 agents at 1..40 MiB/s: p10 is the 4th, the median the 20th, p90 the 36th.
  const std::pair<const char*, double> rows[] = {{"agent min", 1},     {"agent p10", 4},  {"agent max", 40}, {"agent median", 20},
                                                 {"agent p90", 36},     {"node1", 1},      {"node8", 8}};
  for (const auto& [label, mib] : rows) {
    const std::string row = fmt::format("{:<14} {:<12} {:>10.1f}", "", label, mib);  // the console's columns
    EXPECT_NE(console.find(row), std::string::npos) << row << "\n" << console;
  }
  EXPECT_EQ(console.find("node9 "), std::string::npos) << console;   // only the 8 slowest have rows
  EXPECT_EQ(console.find("node40 "), std::string::npos) << console;
  EXPECT_NE(console.find("note: 40 agents: each column's distribution over them"), std::string::npos) << console;
  // At 16 agents, a row each and no note.
  const std::string sixteen = ConsoleSummary(ToDocument(ManyAgentRead(16)));
  EXPECT_NE(sixteen.find("node16 "), std::string::npos) << sixteen;
  EXPECT_EQ(sixteen.find("agent min"), std::string::npos) << sixteen;
}

TEST(SummaryCsv, EveryAgentHasItsRowHoweverMany) {
  const std::string csv = SummaryCsv(ToDocument(ManyAgentRead(40)));
  for (int i = 1; i <= 40; ++i) EXPECT_NE(csv.find(",agent,node" + std::to_string(i) + ","), std::string::npos) << i;
}

TEST(SummaryCsv, SweptPathsAreColumnsBesideGbps) {
  // 100 MiB/s = 0.838861 Gbps; files_per_sec is empty where ops are I/Os, not files.
  std::string csv = SummaryCsv(ToDocument(ThreadSweep()));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), std::string(kCsvHeader) + ",total_jobs");
  EXPECT_NE(csv.find("\n0,drop,drop_caches,1,0,succeeded,aggregate,,0,0,0.1,0.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,,,,2\n"
                     "0,drop,drop_caches,1,0,succeeded,agent,a,0,0,0.1,0.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,,,,2\n"
                     "1,write,io,1,0,succeeded,aggregate,,200,209715200,1,200.000000,209715200.000,200.000000,209.715200,0.0,0,0,0,0,0,0,0,1.677722,,,,2\n"
                     "1,write,io,1,0,succeeded,agent,a,200,209715200,1,200.000000,209715200.000,200.000000,209.715200,0.0,0,0,0,0,0,0,0,1.677722,,,,2\n"),
            std::string::npos)
      << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 2 * 2);
}

TEST(SummaryCsv, ACopyHasFilesPerSecondAndNoSweptColumnsWithoutASweep) {
  std::string csv = SummaryCsv(ToDocument(CopyCycles()));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), kCsvHeader);
  EXPECT_NE(csv.find("\n1,copy-in,copy,0,2,succeeded,aggregate,,1000,1000000000,4,250.000000,250000000.000,238.418579,250.000000,"
                     "0.0,0,0,0,0,0,0,0,2.000000,250.000000,,\n"),
            std::string::npos)
      << csv;
}

TEST(SummaryCsv, AFilesStepHasPhaseRowsOnlyForAllAgentsAndEach) {
  std::string csv = SummaryCsv(ToDocument(FilesSweep()));
  EXPECT_EQ(csv,
            std::string(kCsvHeader) + ",steps[tree].files.files_per_dir\n" +
                "0,tree,files,0,0,succeeded,phase:create,,1000,0,1,1000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,1000.000000,,,10\n"
                "0,tree,files,0,0,succeeded,phase:create,a,1000,0,1,1000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,1000.000000,,,10\n"
                "0,tree,files,0,0,succeeded,phase:stat,,1000,0,0.25,4000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,4000.000000,,,10\n"
                "0,tree,files,0,0,succeeded,phase:stat,a,1000,0,0.25,4000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,4000.000000,,,10\n"
                "0,tree,files,1,0,succeeded,phase:create,,1000,0,1,1000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,1000.000000,,,20\n"
                "0,tree,files,1,0,succeeded,phase:create,a,1000,0,1,1000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,1000.000000,,,20\n"
                "0,tree,files,1,0,succeeded,phase:stat,,1000,0,0.25,4000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,4000.000000,,,20\n"
                "0,tree,files,1,0,succeeded,phase:stat,a,1000,0,0.25,4000.000000,0.000,0.000000,0.000000,0.0,0,0,0,0,0,0,0,0.000000,4000.000000,,,20\n");
}

TEST(SummaryCsv, ASweptValueWithACommaIsQuoted) {
  RunReport report = ThreadSweep();
  for (auto& step : report.steps) step.params = {{"block_size_split", "[{size: 4KiB, weight: 1}]"}};
  std::string csv = SummaryCsv(ToDocument(report));
  EXPECT_NE(csv.find(",\"[{size: 4KiB, weight: 1}]\"\n"), std::string::npos) << csv;
}

// A search whose windows ran out before it converged says so beside what it found, on the console
// and in report.json: the found rate meets the target, but the limit lies between it and the
// lowest rate that failed above it.
TEST(ConsoleSummary, ASearchThatDidNotConvergeSaysWhereTheLimitLies) {
  StepReport step = StepRun(0, "search", "io", 0, 0, Stats(12'500, 12'500 * 4096, kSec));
  SearchReport search;
  search.max_latency_ns = 1'000'000;
  search.unit = "iops";
  search.probes.push_back({std::nullopt, 100'000, 20'000'000, kSec, 100'000, false, false, std::nullopt});
  search.probes.push_back({12'500.0, 12'500, 300'000, kSec, 12'500, true, true, std::nullopt});
  search.found_rate = 12'500;
  search.met = true;
  search.failed_above = 25'000;
  search.converged = false;
  step.search = search;
  const ReportDocument doc = ToDocument(Report({step}));
  const std::string console = ConsoleSummary(doc);
  EXPECT_NE(console.find("found: 12500 IOPS meets p99 <= 1.00 ms"), std::string::npos) << console;
  EXPECT_NE(console.find("warning: the windows ran out before the search converged: the limit lies between the found rate and 25000 IOPS"),
            std::string::npos)
      << console;
  const v1::ReportSearch& written = doc.steps(0).search();
  EXPECT_FALSE(written.converged());
  EXPECT_DOUBLE_EQ(written.failed_above(), 25'000);
  search.converged = true;
  step.search = search;
  EXPECT_EQ(ConsoleSummary(ToDocument(Report({step}))).find("warning: the windows ran out"), std::string::npos);
}

}  // namespace
}  // namespace iofleet::controller
