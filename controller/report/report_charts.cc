#include "controller/report/report_charts.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "controller/report/headline_table.h"

namespace iofleet::controller {
namespace {

using J = nlohmann::ordered_json;
constexpr double kMiB = 1024.0 * 1024.0;
const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
const char* const kSlowest = "#d62728";

const char* Color(size_t i) { return kColors[i % std::size(kColors)]; }

// No animation: the page is a document, and it draws at once (also for a headless check).
J BaseOptions(const std::string& title) {
  return {{"responsive", true},
          {"maintainAspectRatio", true},
          {"aspectRatio", 1.8},
          {"animation", false},
          {"plugins", {{"title", {{"display", true}, {"text", title}}}, {"legend", {{"position", "bottom"}}}}}};
}

J Axis(const std::string& title, const std::string& position = "left") {
  return {{"type", "linear"}, {"position", position}, {"beginAtZero", true}, {"title", {{"display", true}, {"text", title}}}};
}

std::string Instance(const ReportDocument& step) {
  std::string s = fmt::format("{} point {} cycle {}", Text(step, "name"), Count(step, "point"), Count(step, "cycle"));
  if (step.contains("group_cycle")) s += fmt::format(" group cycle {}", Count(step, "group_cycle"));
  return s;
}

std::string SweptLabel(const ReportDocument& params) {
  std::string s;
  for (const auto& [path, value] : params.items()) s += (s.empty() ? "" : ", ") + path + "=" + ParamText(value);
  return s;
}

bool MovesBytes(const std::string& kind) { return kind == "io" || kind == "copy"; }

class Charts {
 public:
  void Add(const std::string& section, const std::string& title, J config) {
    if (per_section_[section]++ >= kMaxChartsPerKind) {
      ++left_out_[section];
      return;
    }
    J chart = {{"id", fmt::format("chart-{}", charts_.size())}, {"section", section}, {"title", title}, {"config", std::move(config)}};
    charts_.push_back(std::move(chart));
  }
  J Done() && {
    for (const auto& [section, n] : left_out_) charts_.push_back({{"section", section}, {"left_out", n}});
    return std::move(charts_);
  }

 private:
  J charts_ = J::array();
  std::map<std::string, size_t> per_section_;
  std::map<std::string, size_t> left_out_;
};

// Each step instance's bandwidth (bars, left axis) and IOPS (points, right axis) per agent. With
// one agent, only for a step that ran once: a sweep's or repeat's runs are in their own charts.
void AgentBars(const ReportDocument& doc, Charts& charts) {
  std::map<uint64_t, size_t> runs;
  for (const auto& step : List(doc, "steps")) ++runs[Count(step, "index")];
  for (const auto& step : List(doc, "steps")) {
    if (!MovesBytes(Text(step, "kind")) || List(step, "agents").empty()) continue;
    if (List(step, "agents").size() == 1 && runs[Count(step, "index")] > 1) continue;
    const std::string slowest = List(step, "agents").size() > 1 ? Text(step, "slowest_agent") : "";
    J labels = J::array(), mib = J::array(), iops = J::array(), colors = J::array();
    for (const auto& a : List(step, "agents")) {
      const bool is_slowest = Text(a, "agent") == slowest;
      labels.push_back(Text(a, "agent") + (is_slowest ? " (slowest)" : ""));
      mib.push_back(Number(a, "bytes_per_sec") / kMiB);
      iops.push_back(Number(a, "iops"));
      colors.push_back(is_slowest ? kSlowest : Color(0));
    }
    J options = BaseOptions(Instance(step) + ": bandwidth and IOPS by agent");
    options["scales"] = {{"y", Axis("MiB/s")}, {"y1", Axis(Text(step, "kind") == "copy" ? "files/s" : "IOPS", "right")}};
    options["scales"]["y1"]["grid"] = {{"drawOnChartArea", false}};
    J config = {{"type", "bar"},
                {"data",
                 {{"labels", labels},
                  {"datasets",
                   {{{"type", "bar"}, {"label", "MiB/s"}, {"data", mib}, {"backgroundColor", colors}, {"yAxisID", "y"}},
                    {{"type", "line"}, {"label", Text(step, "kind") == "copy" ? "files/s" : "IOPS"}, {"data", iops},
                     {"borderColor", Color(1)}, {"backgroundColor", Color(1)}, {"showLine", false}, {"pointRadius", 5}, {"yAxisID", "y1"}}}}}},
                {"options", options}};
    charts.Add("bandwidth", Instance(step), std::move(config));
  }
}

// Throughput over time per agent, from its progress samples (cumulative bytes `elapsed_ns` after
// the step's start): the rate of each interval.
// TODO(history, issue 12): report.json has no samples yet; the run history adds them per agent
// with per-interval latency. This reads agents[].samples as [{ "elapsed_ns", "bytes" }, ...],
// cumulative as the progress stream carries them (ProgressSample); adjust here if the stored
// form differs.
void Timelines(const ReportDocument& doc, Charts& charts) {
  for (const auto& step : List(doc, "steps")) {
    J datasets = J::array();
    size_t i = 0;
    for (const auto& a : List(step, "agents")) {
      const ReportDocument& samples = List(a, "samples");
      if (samples.empty()) continue;
      J points = J::array();
      double last_t = 0, last_bytes = 0;
      for (const auto& s : samples) {
        const double t = Number(s, "elapsed_ns") / 1e9;
        const double bytes = Number(s, "bytes");
        if (t > last_t) points.push_back({{"x", t}, {"y", (bytes - last_bytes) / (t - last_t) / kMiB}});
        last_t = t;
        last_bytes = bytes;
      }
      datasets.push_back({{"label", Text(a, "agent")}, {"data", points}, {"borderColor", Color(i)}, {"backgroundColor", Color(i)},
                          {"pointRadius", 0}, {"borderWidth", 2}});
      ++i;
    }
    if (datasets.empty()) continue;
    J options = BaseOptions(Instance(step) + ": throughput over time");
    options["scales"] = {{"x", Axis("seconds since the step's start")}, {"y", Axis("MiB/s")}};
    charts.Add("timeline", Instance(step), {{"type", "line"}, {"data", {{"datasets", datasets}}}, {"options", options}});
  }
}

// Per step (by index), each instance's latency at the stored percentiles, on a log scale.
void LatencyCurves(const ReportDocument& doc, Charts& charts) {
  std::map<int, std::vector<const ReportDocument*>> by_index;
  for (const auto& step : List(doc, "steps")) {
    if (!List(Object(step, "aggregate"), "latency_curve_ns").empty()) by_index[static_cast<int>(Count(step, "index"))].push_back(&step);
  }
  for (const auto& [index, steps] : by_index) {
    J labels = J::array(), datasets = J::array();
    for (const auto& point : List(Object(*steps.front(), "aggregate"), "latency_curve_ns")) labels.push_back(fmt::format("p{:g}", point[0].get<double>()));
    for (size_t i = 0; i < steps.size() && i < std::size(kColors) * 2; ++i) {
      J values = J::array();
      for (const auto& point : List(Object(*steps[i], "aggregate"), "latency_curve_ns")) values.push_back(point[1].get<double>() / 1e3);
      datasets.push_back({{"label", steps.size() > 1 ? Instance(*steps[i]) : Text(*steps[i], "name")}, {"data", values},
                          {"borderColor", Color(i)}, {"backgroundColor", Color(i)}, {"tension", 0.2}});
    }
    const std::string name = Text(*steps.front(), "name");
    J options = BaseOptions(name + ": latency by percentile");
    options["scales"] = {{"x", {{"title", {{"display", true}, {"text", "percentile"}}}}},
                         {"y", {{"type", "logarithmic"}, {"title", {{"display", true}, {"text", "latency (us)"}}}}}};
    charts.Add("latency", name, {{"type", "line"}, {"data", {{"labels", labels}, {"datasets", datasets}}}, {"options", options}});
  }
}

// A sweep: each swept step's bandwidth and IOPS against the swept values (mean over cycles).
void Sweeps(const ReportDocument& doc, Charts& charts) {
  std::map<int, std::map<int, std::vector<const ReportDocument*>>> by_index;  // index -> point -> runs
  for (const auto& step : List(doc, "steps")) {
    if (MovesBytes(Text(step, "kind")) && Text(step, "status") == "succeeded") {
      by_index[static_cast<int>(Count(step, "index"))][static_cast<int>(Count(step, "point"))].push_back(&step);
    }
  }
  for (const auto& [index, points] : by_index) {
    if (points.size() < 2) continue;
    J labels = J::array(), mib = J::array(), iops = J::array();
    for (const auto& [point, runs] : points) {
      labels.push_back(SweptLabel(Object(*runs.front(), "params")));
      double m = 0, io = 0;
      for (const auto* run : runs) {
        m += Number(Object(*run, "aggregate"), "bytes_per_sec") / kMiB;
        io += Number(Object(*run, "aggregate"), "iops");
      }
      mib.push_back(m / static_cast<double>(runs.size()));
      iops.push_back(io / static_cast<double>(runs.size()));
    }
    const ReportDocument& first = *points.begin()->second.front();
    const std::string name = Text(first, "name");
    J options = BaseOptions(name + ": by swept value" + (points.begin()->second.size() > 1 ? " (mean of the cycles)" : ""));
    options["scales"] = {{"x", {{"title", {{"display", true}, {"text", "swept value"}}}}}, {"y", Axis("MiB/s")}, {"y1", Axis("IOPS", "right")}};
    options["scales"]["y1"]["grid"] = {{"drawOnChartArea", false}};
    J config = {{"type", "line"},
                {"data",
                 {{"labels", labels},
                  {"datasets",
                   {{{"label", "MiB/s"}, {"data", mib}, {"borderColor", Color(0)}, {"backgroundColor", Color(0)}, {"yAxisID", "y"}},
                    {{"label", Text(first, "kind") == "copy" ? "files/s" : "IOPS"}, {"data", iops}, {"borderColor", Color(1)},
                     {"backgroundColor", Color(1)}, {"yAxisID", "y1"}}}}}},
                {"options", options}};
    charts.Add("sweep", name, std::move(config));
  }
}

// A repeat: for each summary (step and point over its cycles), each cycle's figure as a bar, with
// the mean and the 95% interval's ends as lines across. The figure: bandwidth for steps that move
// bytes, the time for a hook or sync (mkfs, fsck); steps that only prepare have no chart.
void Cycles(const ReportDocument& doc, Charts& charts) {
  for (const auto& summary : List(doc, "summaries")) {
    const bool in_group = summary.contains("group");
    std::vector<const ReportDocument*> runs;
    for (const auto& step : List(doc, "steps")) {
      if (Count(step, "index") != Count(summary, "index") || Count(step, "point") != Count(summary, "point")) continue;
      if (in_group && Count(step, "cycle") != Count(summary, "cycle")) continue;
      if (Text(step, "status") == "succeeded") runs.push_back(&step);
    }
    if (runs.size() < 2) continue;
    const std::string kind = Text(*runs.front(), "kind");
    const bool rate = MovesBytes(kind);
    if (!rate && kind != "hook" && kind != "sync") continue;
    const char* key = rate ? "bytes_per_sec" : "seconds";
    const double per = rate ? kMiB : 1;
    const ReportDocument& figure = Object(summary, key);
    J labels = J::array(), values = J::array();
    for (const ReportDocument* step : runs) {
      labels.push_back(fmt::format("{} {}", in_group ? "group cycle" : "cycle", Count(*step, in_group ? "group_cycle" : "cycle")));
      values.push_back(Number(Object(*step, "aggregate"), key) / per);
    }
    auto across = [&](const char* what) {
      J line = J::array();
      for (size_t i = 0; i < values.size(); ++i) line.push_back(Number(figure, what) / per);
      return line;
    };
    std::string title = fmt::format("{} point {}", Text(summary, "name"), Count(summary, "point"));
    if (in_group) title += fmt::format(" cycle {}", Count(summary, "cycle"));
    const std::string params = SweptLabel(Object(summary, "params"));
    const std::string unit = rate ? "MiB/s" : "seconds";
    J options = BaseOptions(title + (params.empty() ? "" : " (" + params + ")") + ": cycles with the 95% interval");
    options["scales"] = {{"y", Axis(unit)}};
    J line = {{"type", "line"}, {"pointRadius", 0}, {"borderWidth", 2}, {"fill", false}};
    // The interval's two ends share one legend entry (the page's script hides unnamed ones).
    J mean = line, low = line, high = line;
    mean.update({{"label", "mean"}, {"data", across("mean")}, {"borderColor", Color(1)}, {"backgroundColor", Color(1)}});
    low.update({{"label", "95% interval"}, {"data", across("ci95_low")}, {"borderColor", Color(6)}, {"backgroundColor", Color(6)}, {"borderDash", {6, 4}}});
    high.update({{"label", ""}, {"data", across("ci95_high")}, {"borderColor", Color(6)}, {"backgroundColor", Color(6)}, {"borderDash", {6, 4}}});
    J config = {{"type", "bar"},
                {"data", {{"labels", labels}, {"datasets", {{{"type", "bar"}, {"label", unit}, {"data", values}, {"backgroundColor", Color(0)}}, mean, low, high}}}},
                {"options", options}};
    charts.Add("cycles", title, std::move(config));
  }
}

}  // namespace

nlohmann::ordered_json ChartSpecs(const ReportDocument& doc) {
  Charts charts;
  Sweeps(doc, charts);
  Cycles(doc, charts);
  AgentBars(doc, charts);
  Timelines(doc, charts);
  LatencyCurves(doc, charts);
  return std::move(charts).Done();
}

}  // namespace iofleet::controller
