// The controller's /metrics exposition, golden: names, types, labels (DESIGN.md section 5b).
#include "controller/live/live_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "core/base/clock.h"
#include "tests/support/http_client.h"

namespace iofleet::controller {
namespace {

std::string Exposition(const LiveRun& live) {
  LiveCollector collector(live);
  return prometheus::TextSerializer().Serialize(collector.Collect());
}

TEST(LiveMetrics, GoldenExposition) {
  LiveRun live("20261130-000000-abcdef", "demo", kNsPerSecond);
  live.BeginStep({"write", "io", "libaio", 0, 1, 2, 0, 10 * kNsPerSecond}, {{"node1"}, {"node2", true}});
  v1::Progress p;
  p.set_elapsed_ns(2 * kNsPerSecond);
  p.set_ops(10);
  p.set_bytes(40960);
  p.set_errors(3);
  p.set_started_at_unix_ns(5 * kNsPerSecond);
  p.mutable_read();
  p.mutable_write()->set_ops(10);
  p.mutable_write()->set_bytes(40960);
  auto* h = p.mutable_write()->mutable_latency_ns_delta();
  h->add_bucket(LatencyHistogram::BucketOf(3000));
  h->add_count(10);
  h->set_sum(30000);
  ASSERT_TRUE(live.OnProgress(0, p));
  const std::string labels = R"(workload="demo",step="write",op="write",engine="libaio",agent="node1")";
  std::string le;
  for (const char* bound : {"1e-06", "2e-06"}) le += "iofleet_io_latency_seconds_bucket{" + labels + ",le=\"" + bound + "\"} 0\n";
  const std::string expected =
      "# HELP iofleet_io_ops_total I/Os completed in the measurement window, per agent\n"
      "# TYPE iofleet_io_ops_total counter\n"
      "iofleet_io_ops_total{" + labels + "} 10\n"
      "# HELP iofleet_io_bytes_total Bytes transferred in the measurement window, per agent\n"
      "# TYPE iofleet_io_bytes_total counter\n"
      "iofleet_io_bytes_total{" + labels + "} 40960\n"
      "# HELP iofleet_io_latency_seconds I/O latency (submission to reaping), per agent\n"
      "# TYPE iofleet_io_latency_seconds histogram\n"
      "iofleet_io_latency_seconds_count{" + labels + "} 10\n"
      "iofleet_io_latency_seconds_sum{" + labels + "} 3e-05\n" + le +
      "iofleet_io_latency_seconds_bucket{" + labels + ",le=\"5e-06\"} 10\n";
  const std::string text = Exposition(live);
  ASSERT_EQ(text.substr(0, expected.size()), expected) << text;
  for (const char* line : {
           "iofleet_io_latency_seconds_bucket{workload=\"demo\",step=\"write\",op=\"write\",engine=\"libaio\",agent=\"node1\",le=\"10\"} 10\n",
           "iofleet_io_latency_seconds_bucket{workload=\"demo\",step=\"write\",op=\"write\",engine=\"libaio\",agent=\"node1\",le=\"+Inf\"} 10\n",
           "# TYPE iofleet_io_errors_total counter\n"
           "iofleet_io_errors_total{workload=\"demo\",step=\"write\",engine=\"libaio\",agent=\"node1\",reason=\"any\"} 3\n",
           "# TYPE iofleet_fleet_agents gauge\n"
           "iofleet_fleet_agents{state=\"connected\"} 1\n"
           "iofleet_fleet_agents{state=\"lost\"} 1\n",
           "# TYPE iofleet_fleet_progress_rejected_total counter\n"
           "iofleet_fleet_progress_rejected_total{agent=\"node1\"} 0\n"
           "iofleet_fleet_progress_rejected_total{agent=\"node2\"} 0\n",
           "# TYPE iofleet_step_start_skew_seconds gauge\n"
           "iofleet_step_start_skew_seconds{workload=\"demo\",step=\"write\"} 0\n",
           "# TYPE iofleet_run_info gauge\n"
           "iofleet_run_info{run_id=\"20261130-000000-abcdef\",workload=\"demo\",step=\"write\",point=\"1\",cycle=\"2\"} 1\n",
           "# TYPE iofleet_step_elapsed_seconds gauge\n"
           "iofleet_step_elapsed_seconds{workload=\"demo\",step=\"write\"} 2\n",
           "# TYPE iofleet_step_expected_seconds gauge\n"
           "iofleet_step_expected_seconds{workload=\"demo\",step=\"write\"} 10\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
  // Between steps: no current step, so no run_info, elapsed or expected.
  live.EndStep(std::nullopt);
  const std::string idle = Exposition(live);
  EXPECT_EQ(idle.find("iofleet_run_info{"), std::string::npos) << idle;
  EXPECT_EQ(idle.find("iofleet_step_elapsed_seconds{"), std::string::npos) << idle;
  EXPECT_NE(idle.find("iofleet_io_ops_total{"), std::string::npos) << idle;  // counters stay for the run
}

TEST(LiveMetrics, FilesPhasesAndCopiesCountPerAgent) {
  LiveRun live("run", "demo", kNsPerSecond);
  auto feed = [&](LiveStepInfo info, uint64_t ops, uint64_t bytes) {
    live.BeginStep(info, {{"node1"}});
    v1::Progress p;
    p.set_elapsed_ns(kNsPerSecond);
    p.set_ops(ops);
    p.set_bytes(bytes);
    ASSERT_TRUE(live.OnProgress(0, p));
    live.EndStep(std::nullopt);
  };
  feed({"tree.create", "files", "", 0, 0, 0, 0, 0}, 100, 409600);
  feed({"tree.stat", "files", "", 0, 0, 0, 0, 0}, 300, 0);
  feed({"copy-in", "copy", "", 1, 0, 0, 0, 0}, 7, 7 << 20);
  const std::string text = Exposition(live);
  for (const char* line : {
           "# TYPE iofleet_files_ops_total counter\n"
           "iofleet_files_ops_total{workload=\"demo\",step=\"tree\",phase=\"create\",agent=\"node1\"} 100\n"
           "iofleet_files_ops_total{workload=\"demo\",step=\"tree\",phase=\"stat\",agent=\"node1\"} 300\n",
           "iofleet_copy_files_total{workload=\"demo\",step=\"copy-in\",agent=\"node1\"} 7\n",
           "iofleet_copy_bytes_total{workload=\"demo\",step=\"copy-in\",agent=\"node1\"} 7340032\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
  EXPECT_EQ(text.find("iofleet_io_ops_total{"), std::string::npos) << text;  // no io series for them
}

// A files phase runs as "tree.create"; the agents label it step "tree", phase "create", and so
// does every controller series.
TEST(LiveMetrics, AFilesPhasesStepLabelIsTheStepsName) {
  LiveRun live("run", "demo", kNsPerSecond);
  live.BeginStep({"tree.create", "files", "", 0, 0, 0, 0, 0}, {{"node1"}});
  v1::Progress p;
  p.set_elapsed_ns(kNsPerSecond);
  p.set_started_at_unix_ns(kNsPerSecond);
  ASSERT_TRUE(live.OnProgress(0, p));
  const std::string text = Exposition(live);
  EXPECT_EQ(text.find("tree.create"), std::string::npos) << text;
  for (const char* line : {"iofleet_run_info{run_id=\"run\",workload=\"demo\",step=\"tree\",",
                           "iofleet_step_elapsed_seconds{workload=\"demo\",step=\"tree\"}",
                           "iofleet_step_start_skew_seconds{workload=\"demo\",step=\"tree\"}"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
}

TEST(LiveMetrics, RejectedCountsSurviveTheNextStep) {
  LiveRun live("run", "demo", kNsPerSecond);
  live.BeginStep({"write", "io", "libaio", 0, 0, 0, 0, 0}, {{"node1"}});
  v1::Progress bad;
  bad.mutable_read()->mutable_latency_ns_delta()->add_bucket(1);
  EXPECT_FALSE(live.OnProgress(0, bad));
  live.EndStep(std::nullopt);
  live.BeginStep({"read", "io", "libaio", 1, 0, 0, 0, 0}, {{"node1"}});
  const std::string text = Exposition(live);
  EXPECT_NE(text.find("iofleet_fleet_progress_rejected_total{agent=\"node1\"} 1\n"), std::string::npos) << text;
}

TEST(MetricsServer, ABadAddressOrAPortInUseIsAnErrorNamingIt) {
  LiveRun live("run", "demo", kNsPerSecond);
  for (const char* bad : {"9100", "localhost:", "127.0.0.1:http", "127.0.0.1:99999", ":9100"}) {
    auto server = MetricsServer::Start(bad, live);
    ASSERT_FALSE(server.ok()) << bad;
    EXPECT_NE(server.status().message().find(std::string("--metrics ") + bad + ": "), std::string::npos) << server.status().message();
  }
  auto first = MetricsServer::Start("127.0.0.1:0", live);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string taken = "127.0.0.1:" + std::to_string((*first)->port());
  auto second = MetricsServer::Start(taken, live);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("--metrics " + taken + ": cannot listen there"), std::string::npos)
      << second.status().message();
}

// Civetweb's one thread sat on a silent connection until its 30 s request timeout, and
// every scrape behind it waited as long. Silent clients hold connections, never the thread.
TEST(MetricsServer, SilentConnectionsDoNotDelayAScrape) {
  LiveRun live("run", "demo", kNsPerSecond);
  live.BeginStep({"write", "io", "libaio", 0, 0, 0, 0, 0}, {{"node1"}});
  auto server = MetricsServer::Start("127.0.0.1:0", live);
  ASSERT_TRUE(server.ok()) << server.status().message();
  const int port = (*server)->port();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  std::vector<int> silent;
  for (int i = 0; i < 4; ++i) silent.push_back(testing::ConnectSilently(port, "127.0.0.1", i % 2 ? "GET /met" : ""));
  for (int i = 0; i < 80; ++i) silent.push_back(testing::ConnectSilently(port, "127.0.0." + std::to_string(2 + i % 8)));
  for (int fd : silent) ASSERT_GE(fd, 0);
  for (int i = 0; i < 3; ++i) {
    // The bound is the client's: a scrape kept waiting fails rather than hangs the test.
    testing::HttpAnswer answer = testing::HttpGet(address, "/metrics", std::chrono::seconds(2));
    ASSERT_EQ(answer.status, 200) << answer.error;
    EXPECT_NE(answer.body.find("iofleet_fleet_agents"), std::string::npos) << answer.body;
  }
  for (int fd : silent) ::close(fd);
}

}  // namespace
}  // namespace iofleet::controller
