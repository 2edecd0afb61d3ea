// The live lines: tty (bar, ETA, rates, p99, agents), plain, json; and the cadence of plain
// (at most once a second) and of tty (redrawn in place).
#include "controller/live/progress_view.h"

#include <gtest/gtest.h>

#include <sstream>

namespace iofleet::controller {
namespace {

long Redraws(const std::string& drawn) { return std::count(drawn.begin(), drawn.end(), '\r'); }

LiveSnapshot Running() {
  LiveSnapshot s;
  s.run_id = "run-1";
  s.workload = "demo";
  s.running = true;
  s.step = {"write", "io", "libaio", 0, 0, 0, 0, 0};
  LiveAgent a, b;
  a.name = "node1";
  a.rate = {true, 300, 300.0 * (1 << 20)};
  b.name = "node2";
  b.rate = {true, 100, 100.0 * (1 << 20)};
  s.agents = {a, b};
  s.reporting = 2;
  s.rate = {true, 400, 400.0 * (1 << 20)};
  s.p99_ns = 1'240'000;
  s.clock.elapsed_s = 3;
  s.clock.eta_s = 27;
  s.clock.expected_s = 30;
  s.clock.fraction = 0.1;
  return s;
}

TEST(ProgressView, TtyLineHasBarEtaRatesP99AndAgents) {
  EXPECT_EQ(TtyLine(Running()), "write [##..................] 3s ETA 27s  400.0 MiB/s  400 IOPS  p99 1.24 ms  2/2 agents");
}

TEST(ProgressView, PlainLineNamesSilentAndLostAgentsAtOnce) {
  LiveSnapshot s = Running();
  s.agents[1].silent = true;
  s.reporting = 1;
  EXPECT_EQ(PlainLine(s), "[write] 3s  ETA 27s  400.0 MiB/s  400 IOPS  p99 1.24 ms  per agent 300.0..300.0 MiB/s  1/2 agents  silent: node2");
  s.agents[1].silent = false;
  s.agents[1].lost = true;
  s.lost = 1;
  EXPECT_NE(PlainLine(s).find("1/2 agents  lost: node2"), std::string::npos) << PlainLine(s);
}

// At a thousand agents a line naming every silent one would be thousands of characters: the first
// few are named, the rest counted.
TEST(ProgressView, ManySilentAgentsAreNamedFirstFewThenCounted) {
  LiveSnapshot s = Running();
  s.agents.clear();
  for (int i = 0; i < 1000; ++i) {
    LiveAgent a;
    a.name = "h" + std::to_string(i);
    a.silent = i >= 10;
    a.rate = {true, 1, 1.0 * (1 << 20)};
    s.agents.push_back(a);
  }
  s.reporting = 10;
  const std::string line = PlainLine(s);
  EXPECT_NE(line.find("10/1000 agents  silent: h10, h11, h12, h13, h14 and 985 more"), std::string::npos) << line;
  EXPECT_LT(line.size(), 200u) << line;
}

TEST(ProgressView, ARampShowsAsRampAndFilesCountFiles) {
  LiveSnapshot s = Running();
  s.clock.ramp = true;
  EXPECT_EQ(PlainLine(s), "[write] 3s  ETA 27s  ramp  2/2 agents");
  s = Running();
  s.step.kind = "copy";
  s.clock = {};
  s.clock.elapsed_s = 2;
  EXPECT_EQ(TtyLine(s), "write 2s  400.0 MiB/s  400 files/s  p99 1.24 ms  2/2 agents");
}

TEST(ProgressView, AHostStepShowsOnlyItsTime) {
  LiveSnapshot s = Running();
  s.step.kind = "hook";
  s.clock = {};
  s.clock.elapsed_s = 75;
  EXPECT_EQ(PlainLine(s), "[write] 1m15s  running  2/2 agents");
}

TEST(ProgressView, JsonLineHasTheDocumentedKeys) {
  nlohmann::json j = JsonLine(Running(), "progress");
  for (const char* key : {"event", "run_id", "workload", "step", "kind", "index", "point", "cycle", "phase", "elapsed_seconds",
                          "expected_seconds", "eta_seconds", "fraction", "ops", "bytes", "errors", "bytes_per_sec", "ops_per_sec",
                          "p99_ns", "p99_step_ns", "agents_reporting", "agents_lost", "start_skew_seconds", "agents"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["phase"], "run");
  EXPECT_EQ(j["p99_ns"], 1'240'000);
  EXPECT_TRUE(j["start_skew_seconds"].is_null());
  EXPECT_EQ(j["agents"][1]["agent"], "node2");
  EXPECT_EQ(j["agents"][1]["state"], "running");
}

TEST(ProgressView, ParsesTheModes) {
  EXPECT_EQ(ParseProgressMode("auto"), ProgressMode::kAuto);
  EXPECT_EQ(ParseProgressMode("json"), ProgressMode::kJson);
  EXPECT_FALSE(ParseProgressMode("fancy"));
}

TEST(ProgressView, PlainPrintsAtMostOnceASecondAndTtyRedrawsInPlace) {
  LiveRun live("run-1", "demo", 200'000'000);  // 200 ms samples
  live.BeginStep({"write", "io", "null", 0, 0, 0, 0, 0}, {{"node1"}});
  v1::Progress p;
  p.set_elapsed_ns(200'000'000);
  p.set_ops(10);
  ASSERT_TRUE(live.OnProgress(0, p));
  std::ostringstream plain, tty;
  auto plain_view = MakeProgressView(ProgressMode::kAuto, plain, false);
  auto tty_view = MakeProgressView(ProgressMode::kAuto, tty, true, 40);
  for (int64_t t = 1; t <= 2'000'000'000; t += 50'000'000) {
    plain_view->Tick(live, t);
    tty_view->Tick(live, t);
  }
  tty_view->StepEnded(live);
  std::string out = plain.str();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;  // at 0 s and 1 s
  std::string drawn = tty.str();
  EXPECT_EQ(drawn.rfind("\r", 0), 0u) << drawn;
  EXPECT_NE(drawn.find("\x1b[K"), std::string::npos);
  EXPECT_EQ(std::count(drawn.begin(), drawn.end(), '\n'), 1) << drawn;  // only at the step's end
  // Cut to the terminal's width: a wrapped line could not be redrawn.
  size_t start = drawn.rfind('\r');
  EXPECT_LE(drawn.find("\x1b[K", start) - start - 1, 39u);
  // Nothing new and under a second since the last draw: no redraw; a new sample: redrawn.
  std::ostringstream quiet;
  auto quiet_view = MakeProgressView(ProgressMode::kTty, quiet, true);
  quiet_view->Tick(live, 1);
  quiet_view->Tick(live, 400'000'000);
  EXPECT_EQ(Redraws(quiet.str()), 1) << quiet.str();
  p.set_elapsed_ns(400'000'000);
  p.set_ops(20);
  ASSERT_TRUE(live.OnProgress(0, p));
  quiet_view->Tick(live, 500'000'000);
  EXPECT_EQ(Redraws(quiet.str()), 2) << quiet.str();
  quiet_view->Tick(live, 1'600'000'000);  // a second on: the elapsed time moves
  EXPECT_EQ(Redraws(quiet.str()), 3) << quiet.str();
  std::ostringstream none;
  MakeProgressView(ProgressMode::kNone, none, true)->Tick(live, 1);
  EXPECT_TRUE(none.str().empty());
}

}  // namespace
}  // namespace iofleet::controller
