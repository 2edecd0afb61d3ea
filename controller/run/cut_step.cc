#include "controller/run/cut_step.h"

#include <algorithm>

#include "controller/run/curve_driver.h"
#include "controller/run/search_driver.h"
#include "controller/run/span_resources.h"
#include "controller/run/steady_driver.h"
#include "core/rules/defaults.h"

namespace iofleet::controller {

std::unique_ptr<CutStep> MakeCutStep(Fleet& fleet, const std::string& run_id, int step_index, const v1::IoSpec& io,
                                     uint64_t start_ns, uint64_t window_open_ns, uint64_t jobs) {
  if (io.has_target_latency()) return std::make_unique<SearchDriver>(fleet, run_id, step_index, io, start_ns, window_open_ns, jobs);
  if (io.has_curve()) return std::make_unique<CurveDriver>(fleet, run_id, step_index, io, start_ns, window_open_ns, jobs);
  if (io.has_steady()) return std::make_unique<SteadyDriver>(fleet, run_id, step_index, io, start_ns, window_open_ns);
  return nullptr;
}

std::vector<StepStats> WindowFigures(const std::vector<v1::StepResult>& agents) {
  std::vector<StepStats> out;
  for (const v1::StepResult& r : agents) out.push_back(StepStats::FromProto(r));
  return out;
}

namespace {

// The next window's figures added to a span's, host counters too (span_resources.h); where those
// do not add up exactly the span has none, never its first window's alone.
void AddWindow(const StepStats& next, StepStats& span) {
  span.AddPhase(next, false);
  if (!span.resources || !next.resources || !AddSpanResources(*next.resources, *span.resources)) span.resources.reset();
}

}  // namespace

// Consecutive windows of one agent: counts and histograms add, and so do their lengths.
std::vector<StepStats> SpanFigures(const std::vector<std::vector<v1::StepResult>>& windows) {
  std::vector<StepStats> out;
  for (size_t w = 0; w < windows.size(); ++w) {
    for (size_t a = 0; a < windows[w].size(); ++a) {
      StepStats stats = StepStats::FromProto(windows[w][a]);
      if (w == 0) out.push_back(std::move(stats));
      else AddWindow(stats, out[a]);
    }
  }
  return out;
}

// Stream by stream, in the order of each agent's first window.
std::vector<std::vector<StreamFigures>> SpanStreamFigures(const std::vector<std::vector<v1::StepResult>>& windows) {
  std::vector<std::vector<StreamFigures>> out;
  for (size_t w = 0; w < windows.size(); ++w) {
    out.resize(std::max(out.size(), windows[w].size()));
    for (size_t a = 0; a < windows[w].size(); ++a) {
      for (const v1::StreamResult& stream : windows[w][a].streams()) {
        StepStats stats = StepStats::FromProto(stream.result());
        auto same = std::find_if(out[a].begin(), out[a].end(), [&](const StreamFigures& f) { return f.name == stream.name(); });
        if (same == out[a].end()) out[a].push_back({stream.name(), std::move(stats)});
        else AddWindow(stats, same->stats);
      }
    }
  }
  return out;
}

std::vector<std::string> StreamNames(const v1::IoSpec& io) {
  std::vector<std::string> names;
  for (const v1::IoSpec& stream : io.streams()) names.push_back(stream.name());
  return names;
}

bool CutInBytes(const v1::IoSpec& io) {
  const std::vector<const v1::IoSpec*> streams = rules::StreamsOf(io);
  return std::none_of(streams.begin(), streams.end(), [](const v1::IoSpec* s) { return rules::IsRandom(s->op()); });
}

}  // namespace iofleet::controller
