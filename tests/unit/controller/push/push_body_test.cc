// The pushgateway body and grouping path of `iofleet run --pushgateway`: the body against a
// golden file (tests/fixtures/push/push_body.golden.txt), the path's plain and base64 forms.
#include "controller/push/push_body.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include "core/wire/proto_json.h"
#include "tests/support/test_paths.h"

namespace iofleet::controller {
namespace {

constexpr uint64_t kSec = 1'000'000'000;

StepReport Io(const std::string& name, int point, int cycle, v1::StepStatus status) {
  StepReport step;
  step.name = name;
  step.kind = "io";
  step.point = point;
  step.cycle = cycle;
  step.status = status;
  step.aggregate.ops = 2000;
  step.aggregate.bytes = 2000ull * 65536;
  step.aggregate.window_ns = 2 * kSec;
  for (int i = 0; i < 1500; ++i) step.aggregate.latency->Record(100'000);  // 100 us: p50
  for (int i = 0; i < 497; ++i) step.aggregate.latency->Record(200'000);   // 200 us: p99
  for (int i = 0; i < 3; ++i) step.aggregate.latency->Record(5'000'000);   // 5 ms: p99.9
  step.started_at_unix_ns = 1'800'000'000 * kSec + 250'000'000;
  return step;
}

RunReport Report() {
  RunReport report;
  report.workload = "nightly-seq";
  report.status = v1::RUN_STATUS_FAILED;
  report.labels = {{"cluster", "lab1"}, {"fs", "/mnt/zeb"}};
  report.steps.push_back(Io("write", 0, 0, v1::STEP_STATUS_SUCCEEDED));
  StepReport sleep;
  sleep.name = "pause";
  sleep.kind = "sleep";
  sleep.status = v1::STEP_STATUS_SUCCEEDED;
  report.steps.push_back(sleep);
  StepReport grouped = Io("copy-in", 1, 0, v1::STEP_STATUS_FAILED);
  grouped.group = "cycles";
  grouped.group_cycle = 2;
  grouped.name = "say \"hi\"\\";  // escaped in label values
  report.steps.push_back(grouped);
  return report;
}

std::string Golden() {
  std::ifstream in(std::string(IOFLEET_SOURCE_DIR) + "/tests/fixtures/push/push_body.golden.txt");
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(PushBodyTest, MatchesGolden) {
  std::string body = PushBody(Report(), 12.5, 1'800'000'100.0);
  if (getenv("IOFLEET_UPDATE_GOLDEN")) {
    std::ofstream(std::string(IOFLEET_SOURCE_DIR) + "/tests/fixtures/push/push_body.golden.txt") << body;
  }
  EXPECT_EQ(body, Golden());
}

TEST(PushBodyTest, FiguresAreTheReportModelsOwn) {
  RunReport report = Report();
  std::string body = PushBody(report, 12.5, 0);
  const StepStats& s = report.steps[0].aggregate;
  EXPECT_NE(body.find("iofleet_result_bytes_per_second{step=\"write\",point=\"0\",cycle=\"0\"} " + fmt::format("{}", s.bytes_per_sec()) + "\n"),
            std::string::npos) << body;
  EXPECT_NE(body.find("iofleet_result_iops{step=\"write\",point=\"0\",cycle=\"0\"} 1000\n"), std::string::npos) << body;
  EXPECT_NE(body.find("quantile=\"0.5\"} " + fmt::format("{}", s.latency->Quantile(0.5) / 1e9) + "\n"), std::string::npos);
  EXPECT_NE(body.find("quantile=\"0.99\"} " + fmt::format("{}", s.latency->Quantile(0.99) / 1e9) + "\n"), std::string::npos);
  EXPECT_NE(body.find("quantile=\"0.999\"} " + fmt::format("{}", s.latency->Quantile(0.999) / 1e9) + "\n"), std::string::npos);
}

// A step with streams: each stream's iofleet_result_limit is its own (a rate-capped stream at
// its cap says rate_cap), judged at the step's one agent on the host's counters.
TEST(PushBodyTest, EachStreamPushesItsOwnLimit) {
  RunReport report;
  report.workload = "probe-and-load";
  report.status = v1::RUN_STATUS_SUCCEEDED;
  StepReport step = Io("mixed", 0, 0, v1::STEP_STATUS_SUCCEEDED);
  v1::ResourceStats host;
  host.set_window_ns(2 * kSec);
  host.set_in_flight(1);
  v1::ResourceStats capped = host;
  capped.set_rate_iops(100);
  StepStats probe;
  probe.ops = 200;
  probe.bytes = 200 * 4096;
  probe.window_ns = 2 * kSec;
  probe.resources = capped;
  step.agents.push_back({"a", step.aggregate});
  step.agents.back().stats.resources = host;
  step.streams.push_back(StreamReport{"probe", probe, {AgentStep{"a", probe}}});
  report.steps.push_back(step);
  const std::string body = PushBody(report, 3.0, 0);
  EXPECT_NE(body.find("iofleet_result_limit{step=\"mixed\",point=\"0\",cycle=\"0\",stream=\"probe\",verdict=\"rate_cap\"} 1\n"),
            std::string::npos)
      << body;
}

// The resources pushed are those of the agent the step's limit names (its slowest), read as
// report.json reads them; a stream's series carry none (the host is the step's).
TEST(PushBodyTest, ResourcesAreTheSlowestAgentsOwn) {
  RunReport report;
  report.workload = "two-hosts";
  report.status = v1::RUN_STATUS_SUCCEEDED;
  StepReport step = Io("read", 0, 0, v1::STEP_STATUS_SUCCEEDED);
  auto host = [](uint64_t busy_ms, uint32_t core_permille) {
    v1::ResourceStats r;
    r.set_window_ns(2 * kSec);
    r.set_in_flight(16);
    r.set_max_core_busy_permille(core_permille);
    r.set_max_core("cpu1");
    v1::DeviceStats& d = *r.add_devices();
    d.set_name("vdb");
    d.set_role("target");
    d.set_reads(1000);
    d.set_read_bytes(1000 * 4096);
    d.set_read_ms(3000);
    d.set_busy_ms(busy_ms);
    d.set_queue_ms(2 * busy_ms);
    return r;
  };
  step.agents.push_back({"fast", step.aggregate});
  step.agents.back().stats.resources = host(500, 100);
  step.agents.push_back({"slow", step.aggregate});
  step.agents.back().stats.resources = host(2000, 400);
  step.slowest_agent = "slow";
  step.streams.push_back(StreamReport{"only", step.aggregate, {AgentStep{"slow", step.aggregate}}});
  report.steps.push_back(step);
  const std::string body = PushBody(report, 3.0, 0);
  const std::string at = "step=\"read\",point=\"0\",cycle=\"0\"";
  EXPECT_NE(body.find("iofleet_result_device_busy_ratio{" + at + ",device=\"vdb\",role=\"target\"} 1\n"), std::string::npos) << body;
  EXPECT_NE(body.find("iofleet_result_device_queue{" + at + ",device=\"vdb\",role=\"target\"} 2\n"), std::string::npos) << body;
  EXPECT_NE(body.find("iofleet_result_device_latency_seconds{" + at + ",device=\"vdb\",role=\"target\"} 0.003\n"), std::string::npos) << body;
  EXPECT_NE(body.find("iofleet_result_core_busy_ratio{" + at + "} 0.4\n"), std::string::npos) << body;
  EXPECT_EQ(body.find("} 0.25\n"), std::string::npos) << body;  // the fast agent's device: not pushed
  EXPECT_EQ(body.find("stream=\"only\",device="), std::string::npos) << body;
  EXPECT_EQ(body.find("iofleet_result_core_busy_ratio{" + at + ",stream="), std::string::npos) << body;
}

TEST(PushBodyTest, HostStepsPushStatusAndTimeOnly) {
  std::string body = PushBody(Report(), 1, 1'800'000'100.0);
  EXPECT_NE(body.find("iofleet_result_status{step=\"pause\",point=\"0\",cycle=\"0\",status=\"succeeded\"} 1\n"), std::string::npos);
  EXPECT_NE(body.find("iofleet_result_timestamp_seconds{step=\"pause\",point=\"0\",cycle=\"0\"} 1800000100\n"), std::string::npos);
  EXPECT_EQ(body.find("iofleet_result_iops{step=\"pause\""), std::string::npos);
}

TEST(PushBodyTest, AFailedStepPushesItsStatus) {
  std::string body = PushBody(Report(), 1, 0);
  EXPECT_NE(body.find("group_cycle=\"2\",status=\"failed\"} 1\n"), std::string::npos) << body;
}

// 0 B/s or a half-step's p99 for a step that failed or was aborted is not a figure to graph.
TEST(PushBodyTest, AFailedOrAbortedStepPushesNoFigures) {
  RunReport report = Report();
  report.steps.push_back(Io("read", 0, 0, v1::STEP_STATUS_ABORTED));
  std::string body = PushBody(report, 1, 0);
  for (const char* family : {"iofleet_result_bytes_per_second{", "iofleet_result_iops{", "iofleet_result_latency_seconds{"}) {
    EXPECT_EQ(body.find(std::string(family) + "step=\"say"), std::string::npos) << family << "\n" << body;
    EXPECT_EQ(body.find(std::string(family) + "step=\"read\""), std::string::npos) << family << "\n" << body;
    EXPECT_NE(body.find(std::string(family) + "step=\"write\""), std::string::npos) << family << "\n" << body;
  }
  EXPECT_NE(body.find("iofleet_result_status{step=\"read\",point=\"0\",cycle=\"0\",status=\"aborted\"} 1\n"), std::string::npos) << body;
}

TEST(PushBodyTest, VerdictsArePushedPerJudgedFigure) {
  v1::ReportVerdicts verdicts;
  ASSERT_TRUE(wire::FromJson(nlohmann::ordered_json::parse(R"({"steps": [{"step": "read", "point": 1, "figures": [
      {"figure": "bandwidth", "verdict": "regression"}, {"figure": "iops", "verdict": "improvement"},
      {"figure": "p99_latency", "verdict": "not enough history"}]}]})"), verdicts, "verdicts").ok());
  std::string body = PushBody(Report(), 1, 0, &verdicts);
  EXPECT_NE(body.find("# TYPE iofleet_result_verdict gauge\n"), std::string::npos) << body;
  EXPECT_NE(body.find("iofleet_result_verdict{step=\"read\",point=\"1\",figure=\"bandwidth\"} 1\n"), std::string::npos) << body;
  EXPECT_NE(body.find("iofleet_result_verdict{step=\"read\",point=\"1\",figure=\"iops\"} 0\n"), std::string::npos) << body;
  EXPECT_EQ(body.find("p99_latency"), std::string::npos) << "no verdict without enough history";
  EXPECT_EQ(PushBody(Report(), 1, 0).find("iofleet_result_verdict"), std::string::npos);
  // Not comparable (another effective workload): no verdict series, which 0 would misread.
  v1::ReportVerdicts unlike;
  ASSERT_TRUE(wire::FromJson(nlohmann::ordered_json::parse(R"({"verdict": "not comparable", "steps": [{"step": "read", "point": 1, "figures": [
      {"figure": "bandwidth", "verdict": "not comparable"}]}]})"), unlike, "verdicts").ok());
  EXPECT_EQ(PushBody(Report(), 1, 0, &unlike).find("iofleet_result_verdict{"), std::string::npos);
}

TEST(PushBodyTest, TheRunsStatusHasNoStepLabels) {
  RunReport report;  // ended before its first step: agents unreachable
  report.workload = "w";
  report.status = v1::RUN_STATUS_FAILED;
  EXPECT_EQ(PushBody(report, 0.25, 1.0),
            "# HELP iofleet_result_status 1 for the status (succeeded, failed or aborted) of each step, and of the run (no step label).\n"
            "# TYPE iofleet_result_status gauge\n"
            "iofleet_result_status{status=\"failed\"} 1\n"
            "# HELP iofleet_run_duration_seconds The run's wall time, from its start to its report.\n"
            "# TYPE iofleet_run_duration_seconds gauge\n"
            "iofleet_run_duration_seconds 0.25\n");
}

TEST(GroupingPathTest, PlainValuesStayPlain) {
  EXPECT_EQ(GroupingPath("nightly-seq", {{"cluster", "lab1"}, {"build", "v1.2.3_rc~1"}}),
            "/metrics/job/iofleet/workload/nightly-seq/cluster/lab1/build/v1.2.3_rc~1");
}

TEST(GroupingPathTest, SlashesSpacesAndEmptyGoAsBase64) {
  // base64url("/mnt/zeb") = "L21udC96ZWI="; "a b?" = "YSBiPw=="; the empty value is "=".
  EXPECT_EQ(GroupingPath("w", {{"fs", "/mnt/zeb"}, {"note", "a b?"}, {"empty", ""}}),
            "/metrics/job/iofleet/workload/w/fs@base64/L21udC96ZWI=/note@base64/YSBiPw==/empty@base64/=");
  EXPECT_EQ(GroupingPath("w", {{"dots", ".."}}), "/metrics/job/iofleet/workload/w/dots@base64/Li4=");
}

TEST(GroupingPathTest, Base64UrlUsesTheUrlAlphabet) {
  EXPECT_EQ(Base64Url(""), "");
  EXPECT_EQ(Base64Url("f"), "Zg==");
  EXPECT_EQ(Base64Url("fo"), "Zm8=");
  EXPECT_EQ(Base64Url("foo"), "Zm9v");
  EXPECT_EQ(Base64Url("\xfb\xff\xbf"), "-_-_");  // "+/+/" in the standard alphabet
}

}  // namespace
}  // namespace iofleet::controller
