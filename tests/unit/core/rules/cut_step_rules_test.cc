#include "core/rules/cut_step_rules.h"

#include <gtest/gtest.h>

#include "core/rules/defaults.h"
#include "tests/support/violations.h"

namespace iofleet::rules {
namespace {

v1::Workload Reading() {
  v1::Workload w;
  w.set_name("t");
  v1::IoSpec& io = *w.add_steps()->mutable_io();
  io.set_op(v1::OP_RANDREAD);
  io.set_file_size(1 << 20);
  return w;
}

v1::IoSpec& Io(v1::Workload& w) { return *w.mutable_steps(0)->mutable_io(); }

TEST(CutStepRules, AWellFormedStepOfEachKindIsValidAndGetsARuntime) {
  v1::Workload search = Reading(), curve = Reading(), steady = Reading();
  Io(search).mutable_target_latency()->set_max_latency(1'000'000);
  Io(curve).mutable_curve()->add_levels_pct(50);
  Io(steady).mutable_steady()->set_window(3'000'000'000);
  for (const v1::Workload* w : {&search, &curve, &steady}) {
    EXPECT_TRUE(Validate(*w).empty()) << Describe(Validate(*w));
    EXPECT_GT(ResolveIo(*w, 0).runtime(), 0u) << "a step cut into windows is time-based";
  }
  EXPECT_EQ(ResolveIo(steady, 0).runtime(), 603'000'000'000u) << "its timeout (10 min) and a margin";
}

TEST(CutStepRules, KindsExcludeEachOtherAndWhatFightsThemIsRefused) {
  v1::Workload w = Reading();
  Io(w).mutable_curve();
  Io(w).mutable_steady();
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.curve", "exclude each other"));
  w = Reading();
  Io(w).mutable_curve();
  Io(w).mutable_rate()->set_iops(5);
  Io(w).mutable_think()->set_time(1000);
  Io(w).mutable_flow()->set_weight(2);
  Io(w).set_runtime(1'000'000'000);
  Io(w).set_jobs(300);
  const auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.rate", "is set by the curve step's windows"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.think", "leave think out"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.flow", "would hold the curve step's load back: leave flow out"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.runtime", "too short for its curve windows: at least 33s"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.jobs", "at most 256 per agent"));
}

TEST(CutStepRules, EachKindsOwnValuesAreChecked) {
  v1::Workload w = Reading();
  Io(w).mutable_curve()->add_levels_pct(0);
  Io(w).mutable_curve()->add_levels_pct(50);
  Io(w).mutable_curve()->add_levels_pct(50);
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.curve.levels_pct", "0 is not a percent of the maximum"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.curve.levels_pct", "50 is there twice"));
  w = Reading();
  Io(w).mutable_steady()->set_window(3'000'000'000);
  Io(w).mutable_steady()->set_interval(2'000'000'000);
  Io(w).mutable_steady()->set_timeout(2'000'000'000);
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.steady.interval", "fewer than 3 samples"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.steady.timeout", "could never be steady"));
  w = Reading();
  Io(w).mutable_target_latency()->set_percentile("100.5");
  Io(w).mutable_target_latency()->set_vary(v1::SEARCH_VARY_QUEUE_DEPTH);
  Io(w).set_queue_depth(1);
  vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.target_latency.max_latency", "is required"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.target_latency.percentile", "not a percentile"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.queue_depth", "searches each job's depth from 1 up to it, so give 2 or more"));
  Io(w).set_queue_depth(32);
  EXPECT_FALSE(HasViolation(Validate(w), "steps[0].io.queue_depth", "")) << "a depth to search below";
  // 12 windows bisect 1024 depths exactly (the first, 10 halvings, the confirming one); 1025 not.
  Io(w).set_queue_depth(1024);
  EXPECT_FALSE(HasViolation(Validate(w), "steps[0].io.queue_depth", "")) << Describe(Validate(w));
  Io(w).set_queue_depth(1025);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.queue_depth", "1025: a search of the depths below it in 12 windows (max_probes) is exact up to 1024"))
      << Describe(Validate(w));
  Io(w).mutable_target_latency()->set_max_probes(5);
  Io(w).set_queue_depth(9);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.queue_depth", "exact up to 8")) << Describe(Validate(w));
  Io(w).set_queue_depth(32);
  Io(w).mutable_target_latency()->clear_max_probes();
  for (const char* good : {"99", "99.9", "50", "0.1", "99.999", "100", "100.0"}) {
    Io(w).mutable_target_latency()->set_percentile(good);
    EXPECT_FALSE(HasViolation(Validate(w), "steps[0].io.target_latency.percentile", "")) << good;
  }
  for (const char* bad : {"0", "100.01", "101", "99.", ".5", "-1", "1e2", "99.9999", "100."}) {
    Io(w).mutable_target_latency()->set_percentile(bad);
    EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.target_latency.percentile", "not a percentile")) << bad;
  }
}

// A step with streams is cut as one: every stream's jobs at the same instants (issue 22), so
// what would hold a stream's load back is refused at that stream, and so is a stream that
// would open its window late.
TEST(CutStepRules, AStepWithStreamsIsCutAsOneAndEachStreamIsChecked) {
  for (int kind = 0; kind < 3; ++kind) {
    v1::Workload w = Reading();
    if (kind == 0) Io(w).mutable_target_latency()->set_max_latency(1'000'000);
    if (kind == 1) Io(w).mutable_curve();
    if (kind == 2) Io(w).mutable_steady();
    Io(w).add_streams()->set_name("a");
    Io(w).add_streams()->set_name("b");
    EXPECT_TRUE(Validate(w).empty()) << Describe(Validate(w));
    const v1::IoSpec resolved = ResolveIo(w, 0);
    EXPECT_GT(resolved.runtime(), 0u) << "a step cut into windows is time-based";
    for (const v1::IoSpec& stream : resolved.streams()) EXPECT_EQ(stream.runtime(), resolved.runtime());
  }
  v1::Workload w = Reading();
  Io(w).mutable_steady();
  Io(w).add_streams()->set_name("a");
  v1::IoSpec& b = *Io(w).add_streams();
  b.set_name("b");
  b.mutable_rate()->set_iops(100);
  b.mutable_think()->set_time(1000);
  b.set_start_delay(1'000'000'000);
  b.set_jobs(256);
  auto vs = Validate(w);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[1].rate", "leave it out of a steady step")) << Describe(vs);
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[1].think", "leave think out"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams[1].start_delay", "windows open for every stream at once"));
  EXPECT_TRUE(HasViolation(vs, "steps[0].io.streams", "257 jobs in a steady step: at most 256 per agent")) << Describe(vs);
  EXPECT_FALSE(HasViolation(vs, "steps[0].io.streams[0]", "")) << Describe(vs);
  // A step's rate reaches every stream: refused where it is written.
  w = Reading();
  Io(w).mutable_curve();
  Io(w).mutable_rate()->set_iops(100);
  Io(w).add_streams()->set_name("a");
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.rate", "is set by the curve step's windows")) << Describe(Validate(w));
}

// fio's latency_target job beside background load: the search varies and judges the stream it
// names; the others keep their depth (which need not be searchable).
TEST(CutStepRules, ADepthSearchOverStreamsSearchesTheStreamItNames) {
  auto searching = [](const char* stream) {
    v1::Workload w = Reading();
    v1::TargetLatency& t = *Io(w).mutable_target_latency();
    t.set_max_latency(1'000'000);
    t.set_vary(v1::SEARCH_VARY_QUEUE_DEPTH);
    if (stream) t.set_stream(stream);
    v1::IoSpec& probe = *Io(w).add_streams();
    probe.set_name("probe");
    probe.set_engine(v1::ENGINE_LIBAIO);
    probe.set_queue_depth(8);
    v1::IoSpec& load = *Io(w).add_streams();
    load.set_name("load");
    load.set_op(v1::OP_WRITE);
    load.set_queue_depth(1);
    return w;
  };
  v1::Workload w = searching("probe");
  EXPECT_TRUE(Validate(w).empty()) << Describe(Validate(w));
  w = searching(nullptr);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.target_latency.stream", "is required with vary: queue_depth over streams"))
      << Describe(Validate(w));
  w = searching("other");
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.target_latency.stream", "\"other\" is not a stream of this step (probe, load)"))
      << Describe(Validate(w));
  // The stream searched needs a depth to search; the load's depth of 1 is its own.
  w = searching("load");
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.streams[1].queue_depth", "give 2 or more")) << Describe(Validate(w));
  EXPECT_FALSE(HasViolation(Validate(w), "steps[0].io.streams[0].queue_depth", "")) << Describe(Validate(w));
  // A rate is split over every stream: it searches no one stream; nor does a step without streams.
  w = searching("probe");
  Io(w).mutable_target_latency()->clear_vary();
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.target_latency.stream", "is for vary: queue_depth over streams")) << Describe(Validate(w));
  w = Reading();
  Io(w).mutable_target_latency()->set_max_latency(1'000'000);
  Io(w).mutable_target_latency()->set_vary(v1::SEARCH_VARY_QUEUE_DEPTH);
  Io(w).mutable_target_latency()->set_stream("a");
  Io(w).set_queue_depth(8);
  Io(w).set_engine(v1::ENGINE_LIBAIO);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.target_latency.stream", "the step has no streams")) << Describe(Validate(w));
  // What holds a load back stays refused in every stream.
  w = searching("probe");
  Io(w).mutable_streams(1)->mutable_rate()->set_iops(100);
  EXPECT_TRUE(HasViolation(Validate(w), "steps[0].io.streams[1].rate", "is set by the target_latency step's windows")) << Describe(Validate(w));
}

// A stream's own search, curve or steady window was once taken and silently not done: the step
// ran as a plain one and its figures looked like an answer.
TEST(CutStepRules, AStreamOfItsOwnCannotBeCutIntoWindows) {
  for (int kind = 0; kind < 3; ++kind) {
    v1::Workload w = Reading();
    v1::IoSpec& a = *Io(w).add_streams();
    a.set_name("a");
    Io(w).add_streams()->set_name("b");
    if (kind == 0) a.mutable_target_latency()->set_max_latency(1'000'000);
    if (kind == 1) a.mutable_curve();
    if (kind == 2) a.mutable_steady();
    const char* field = kind == 0 ? "steps[0].io.streams[0].target_latency" : kind == 1 ? "steps[0].io.streams[0].curve" : "steps[0].io.streams[0].steady";
    EXPECT_TRUE(HasViolation(Validate(w), field, "not supported in a stream")) << Describe(Validate(w));
  }
}

}  // namespace
}  // namespace iofleet::rules
