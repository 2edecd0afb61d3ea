// The figures of a step cut into windows (controller/run/cut_step.h): one window's, or a span's
// added up, and the host counters (resources) only where they are of the same window.
#include "controller/run/cut_step.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

v1::StepResult Window(uint64_t ops, uint64_t window_ns, bool with_resources) {
  v1::StepResult r;
  r.set_ops(ops);
  r.mutable_read()->set_ops(ops);
  r.set_window_ns(window_ns);
  v1::StreamResult& stream = *r.add_streams();
  stream.set_name("probe");
  stream.mutable_result()->set_ops(ops);
  stream.mutable_result()->set_window_ns(window_ns);
  if (with_resources) {
    v1::ResourceStats& res = *r.mutable_resources();
    res.set_window_ns(window_ns);
    res.set_in_flight(4);
    *stream.mutable_result()->mutable_resources() = res;
  }
  return r;
}

// A search's confirming window, or a curve's full-speed one: its own counters are its figures'.
TEST(CutStepFigures, OneWindowKeepsItsHostCounters) {
  const std::vector<StepStats> one = SpanFigures({{Window(100, 1'000'000'000, true)}});
  ASSERT_EQ(one.size(), 1u);
  ASSERT_TRUE(one[0].resources);
  EXPECT_EQ(one[0].resources->window_ns(), 1'000'000'000u);
  const auto streams = SpanStreamFigures({{Window(100, 1'000'000'000, true)}});
  ASSERT_EQ(streams.size(), 1u);
  ASSERT_EQ(streams[0].size(), 1u);
  EXPECT_TRUE(streams[0][0].stats.resources);
}

// A steady span of several windows adds their counts and lengths, and their host counters where
// they add up (span_resources.h); never the first window's alone as the span's.
TEST(CutStepFigures, ASpanOfWindowsAddsItsHostCountersOrHasNone) {
  std::vector<std::vector<v1::StepResult>> span = {{Window(100, 250'000'000, true)}, {Window(120, 250'000'000, true)}};
  std::vector<StepStats> figures = SpanFigures(span);
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_EQ(figures[0].ops, 220u);
  EXPECT_EQ(figures[0].window_ns, 500'000'000u);
  ASSERT_TRUE(figures[0].resources);
  EXPECT_EQ(figures[0].resources->window_ns(), 500'000'000u);
  auto streams = SpanStreamFigures(span);
  ASSERT_EQ(streams[0].size(), 1u);
  EXPECT_EQ(streams[0][0].stats.ops, 220u);
  ASSERT_TRUE(streams[0][0].stats.resources);
  EXPECT_EQ(streams[0][0].stats.resources->window_ns(), 500'000'000u);
  // Another load in the second window (or none read there): the span has none.
  span[1][0].mutable_resources()->set_in_flight(8);
  span[1][0].mutable_streams(0)->mutable_result()->clear_resources();
  figures = SpanFigures(span);
  EXPECT_FALSE(figures[0].resources);
  streams = SpanStreamFigures(span);
  EXPECT_FALSE(streams[0][0].stats.resources);
}

}  // namespace
}  // namespace iofleet::controller
