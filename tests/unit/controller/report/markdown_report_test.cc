// report.md: the run's tables and its verdicts as Markdown, for a ticket (golden).
#include <gtest/gtest.h>

#include "controller/report/report_writers.h"
#include "tests/unit/controller/report/report_fixtures.h"

namespace iofleet::controller {
namespace {

using namespace report_fixtures;  // NOLINT: the runs the tests render

TEST(ReportMarkdown, TwoAgentsWithVerdicts) {
  // 300 and 100 MiB/s of 4 KiB reads: 76,800 and 25,600 IOPS; latencies 100 us to 1 ms in steps of
  // 100 us: mean 550 us. Text from the document is escaped (p99\\_latency).
  EXPECT_EQ(ReportMarkdown(WithVerdicts(ToDocument(TwoAgentRead()))),
            "# iofleet run r1\n"
            "\n"
            "Workload **nightly-read**, status **succeeded**.\n"
            "\n"
            "## Verdicts\n"
            "\n"
            "- Compared with mean-of:5, alpha 0.05, a regression is significant and worse than 5%.\n"
            "- warning: forced (--force-compare): the effective workload differs from that of baseline run r0 (defaults.queue\\_depth: 32 -\\> 1): the comparison is not like for like.\n"
            "\n"
            "| step | point | figure | baseline | now | change | p-value | baseline runs | verdict |\n"
            "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
            "| read | 0 | bandwidth (higher is better) | 420.0 MiB/s | 400.0 MiB/s | -4.8% | 0.0123 | 5 | regression |\n"
            "| read | 0 | p99\\_latency (lower is better) | - | 1.00 ms | - | - | 2 | not enough history |\n"
            "\n"
            "## Steps\n"
            "\n"
            "| step | point | cycle | swept | agent | MiB/s | MB/s | IOPS or files/s | mean | p50 | p99 | max | status |\n"
            "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
            "| read | 0 | 0 |  | (all) | 400.0 | 419.4 | 102400 | 550.0 us | 501.8 us | 1.00 ms | 1.00 ms | succeeded |\n"
            "| read | 0 | 0 |  | node1 | 300.0 | 314.6 | 76800 | 550.0 us | 501.8 us | 1.00 ms | 1.00 ms | succeeded |\n"
            "| read | 0 | 0 |  | node2 (slowest, 50% below the median) | 100.0 | 104.9 | 25600 | 550.0 us | 501.8 us | 1.00 ms | 1.00 ms | succeeded |\n"
            "\n"
            "## Agents\n"
            "\n"
            "| agent | address | version | host | kernel | cpus | memory | file system | device | scheduler |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
            "| node1 | 10.0.0.1:7070 | 0.1.0 | node1.example | 6.18.0 | 8 |  | ext4 on /fs |  |  |\n"
            "| node2 | 10.0.0.2:7070 | 0.1.0 |  |  |  |  |  |  |  |\n");
}

TEST(ReportMarkdown, ASweepHasItsHeadlineTableAndNoVerdictsWithoutTheKey) {
  const std::string md = ReportMarkdown(ToDocument(ThreadSweep()));
  EXPECT_EQ(md.find("Verdicts"), std::string::npos) << md;
  EXPECT_NE(md.find("### write (io) by total\\_jobs\n"
                    "\n"
                    "| point | total\\_jobs | MiB/s | MB/s | IOPS |\n"
                    "| ---: | ---: | ---: | ---: | ---: |\n"
                    "| 0 | 1 | 100.0 | 104.9 | 100 |\n"),
            std::string::npos)
      << md;
}

TEST(ReportMarkdown, PastSixteenAgentsAStepShowsTheDistributionAndTheSlowest) {
  const std::string md = ReportMarkdown(ToDocument(ManyAgentRead(40)));
  EXPECT_NE(md.find("| agent median | 20.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| node8 | 8.0 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| node9 | 9.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("read (point 0, cycle 0): 40 agents: each column's distribution"), std::string::npos) << md;
}

TEST(ReportMarkdown, PastSixteenAgentsTheAgentsAndLimitsTablesAreCut) {
  ReportDocument doc = ToDocument(ManyAgentRead(40));
  for (int i = 0; i < doc.steps(0).agents_size(); ++i) {  // node1..node10 storage, the rest client_cpu
    doc.mutable_steps(0)->mutable_agents(i)->mutable_limit()->set_verdict(i < 10 ? "storage" : "client_cpu");
  }
  const std::string md = ReportMarkdown(doc);
  EXPECT_NE(md.find("| node16 | 10.0.0.1:7070 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| node17 | 10.0.0.1:7070 |"), std::string::npos) << md;
  EXPECT_NE(md.find("and 24 more agents: every agent is in report.json"), std::string::npos) << md;
  // The limits of the step table's 8 slowest agents only, and the count of each verdict.
  EXPECT_NE(md.find("| read | 0 | 0 | node8 | storage |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| read | 0 | 0 | node9 | storage |"), std::string::npos) << md;
  EXPECT_NE(md.find("read (point 0, cycle 0): 40 agents, by verdict: client\\_cpu 30, storage 10; rows for the 8 slowest"), std::string::npos) << md;
}

TEST(ReportMarkdown, MarkupInTheDocumentIsText) {
  RunReport run = TwoAgentRead();
  run.workload = "a|b <script>";
  run.error = "line\nbreak";
  const std::string md = ReportMarkdown(ToDocument(run));
  EXPECT_NE(md.find("Workload **a\\|b \\<script\\>**"), std::string::npos) << md;
  EXPECT_NE(md.find("Error: line break\n"), std::string::npos) << md;
}

TEST(ReportMarkdown, TheWorkloadsDescriptionIsUnderItsName) {
  RunReport run = TwoAgentRead();
  EXPECT_EQ(ReportMarkdown(ToDocument(run)).find("from the environment"), std::string::npos);
  run.description = "from the environment: ${FIO_BS}=4k <b>";
  const std::string md = ReportMarkdown(ToDocument(run));
  EXPECT_NE(md.find("status **succeeded**.\n\nfrom the environment: ${FIO\\_BS}=4k \\<b\\>\n"), std::string::npos) << md;
}

}  // namespace
}  // namespace iofleet::controller
