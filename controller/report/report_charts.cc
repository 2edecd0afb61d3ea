#include "controller/report/report_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>
#include <set>
#include <vector>

#include "controller/report/headline_table.h"
#include "controller/report/slowest_agent.h"
#include "controller/report/report_units.h"

namespace iofleet::controller {
namespace {

using J = nlohmann::ordered_json;
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

using ParamList = google::protobuf::RepeatedPtrField<v1::ReportParam>;

std::string SweptLabel(const ParamList& params) {
  std::string s;
  for (const v1::ReportParam& param : params) s += (s.empty() ? "" : ", ") + param.key() + "=" + ParamText(param);
  return s;
}

// A sweep point (a step's or a summary's) by its swept values ("total_jobs=8"), which a reader
// knows; the index only where nothing was swept.
std::string PointLabel(const ParamList& params, uint32_t point) {
  const std::string swept = SweptLabel(params);
  return swept.empty() ? fmt::format("point {}", point) : swept;
}

std::string Instance(const v1::ReportStep& step) {
  std::string s = fmt::format("{} {} cycle {}", step.name(), PointLabel(step.params(), step.point()), step.cycle());
  if (step.has_group_cycle()) s += fmt::format(" group cycle {}", step.group_cycle());
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
  // A chart that is not drawn, and why (too few points): said where it would stand.
  void Note(const std::string& section, const std::string& text) { charts_.push_back({{"section", section}, {"note", text}}); }
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
  for (const v1::ReportStep& step : doc.steps()) ++runs[step.index()];
  for (const v1::ReportStep& step : doc.steps()) {
    if (!MovesBytes(step.kind()) || step.agents().empty()) continue;
    if (step.agents_size() == 1 && runs[step.index()] > 1) continue;
    const std::string slowest = step.agents_size() > 1 && step.slowest_trails_median_pct() > kMarkSlowestAbovePct
                                    ? step.slowest_agent()
                                    : "";
    // Many agents: slowest first, so the spread and the stragglers read at a glance.
    std::vector<const v1::ReportAgentFigures*> order;
    for (const v1::ReportAgentFigures& a : step.agents()) order.push_back(&a);
    const bool ranked = order.size() > kMaxAgentLines;
    if (ranked) {
      std::stable_sort(order.begin(), order.end(), [](const auto* x, const auto* y) { return x->figures().bytes_per_sec() < y->figures().bytes_per_sec(); });
    }
    J labels = J::array(), mib = J::array(), iops = J::array(), colors = J::array();
    for (const v1::ReportAgentFigures* agent : order) {
      const v1::ReportAgentFigures& a = *agent;
      const bool is_slowest = a.agent() == slowest;
      labels.push_back(a.agent() + (is_slowest ? " (slowest)" : ""));
      mib.push_back(a.figures().bytes_per_sec() / kMiB);
      iops.push_back(a.figures().iops());
      colors.push_back(is_slowest ? kSlowest : Color(0));
    }
    J options = BaseOptions(Instance(step) + ": bandwidth and IOPS by agent" +
                            (ranked ? fmt::format(", slowest first ({} agents)", order.size()) : std::string()));
    options["scales"] = {{"y", Axis("MiB/s")}, {"y1", Axis(step.kind() == "copy" ? "files/s" : "IOPS", "right")}};
    options["scales"]["y1"]["grid"] = {{"drawOnChartArea", false}};
    J config = {{"type", "bar"},
                {"data",
                 {{"labels", labels},
                  {"datasets",
                   {{{"type", "bar"}, {"label", "MiB/s"}, {"data", mib}, {"backgroundColor", colors}, {"yAxisID", "y"}},
                    {{"type", "line"}, {"label", step.kind() == "copy" ? "files/s" : "IOPS"}, {"data", iops},
                     {"borderColor", Color(1)}, {"backgroundColor", Color(1)}, {"showLine", false}, {"pointRadius", 5}, {"yAxisID", "y1"}}}}}},
                {"options", options}};
    charts.Add("bandwidth", Instance(step), std::move(config));
  }
}

// Throughput over time per agent, from its progress samples (cumulative bytes `elapsed_ns` after
// the step's start): the rate of each interval.
// samples.csv's fields of one line (quoted fields as SamplesCsv writes them).
std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// Per step instance (name, point, cycle, group cycle) and agent: (elapsed s, MiB/s, p99 ms) of
// each interval, from samples.csv (controller/report/samples_csv.h).
using SampleKey = std::tuple<std::string, int, int, int>;
struct IntervalPoint {
  double t = 0, mib_per_sec = 0;
  std::optional<double> p99_ms;
  bool ramp = false;  // the ramp's I/O, drawn apart from the measurement window's
};
std::map<SampleKey, std::map<std::string, std::vector<IntervalPoint>>> ParseSamples(const std::string& csv) {
  std::map<SampleKey, std::map<std::string, std::vector<IntervalPoint>>> out;
  size_t at = csv.find('\n');  // past the header
  std::map<std::string, size_t> column;
  const std::vector<std::string> header = CsvFields(csv.substr(0, at));
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const char* name : {"step", "point", "cycle", "group_cycle", "agent", "elapsed_sec", "interval_bytes_per_sec", "interval_p99_ns"}) {
    if (!column.count(name)) return out;  // not a samples.csv this reads
  }
  auto number = [](const std::string& text) -> std::optional<double> {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    return end && *end == '\0' ? std::optional<double>(v) : std::nullopt;
  };
  while (at != std::string::npos && at + 1 < csv.size()) {
    const size_t next = csv.find('\n', at + 1);
    const std::vector<std::string> f = CsvFields(csv.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
    at = next;
    if (f.size() != header.size()) continue;
    if (column.count("stream") && !f[column["stream"]].empty()) continue;  // a stream's row: the agent's row has it all
    const auto t = number(f[column["elapsed_sec"]]);
    const auto rate = number(f[column["interval_bytes_per_sec"]]);
    if (!t || !rate) continue;
    const SampleKey key{f[column["step"]], static_cast<int>(number(f[column["point"]]).value_or(0)),
                        static_cast<int>(number(f[column["cycle"]]).value_or(0)),
                        static_cast<int>(number(f[column["group_cycle"]]).value_or(-1))};
    IntervalPoint p{*t, *rate / kMiB, std::nullopt};
    if (auto p99 = number(f[column["interval_p99_ns"]])) p.p99_ms = *p99 / 1e6;
    p.ramp = column.count("ramp") && f[column["ramp"]] == "1";  // older files have no such column
    out[key][f[column["agent"]]].push_back(p);
  }
  return out;
}

// The value at `share` (0: least, 0.5: median, 1: most) of `values`, between the two nearest
// where it falls between them. `values` is reordered.
double Rank(std::vector<double>& values, double share) {
  std::sort(values.begin(), values.end());
  const double at = share * static_cast<double>(values.size() - 1);
  const size_t low = static_cast<size_t>(at);
  const size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (at - static_cast<double>(low));
}

// Many agents over time: each interval's slowest, median and fastest agent (throughput), and its
// median and highest p99. An agent's k-th sample of the window is its k-th interval (every agent
// samples on the step's interval from its own start); x is the median of their instants. The
// ramp is left out here: its lines are the agents' own, drawn only for a few agents.
void SpreadTimelines(const v1::ReportStep& step, const std::map<std::string, std::vector<IntervalPoint>>& agents, Charts& charts) {
  std::vector<std::vector<double>> t, rate, p99;
  for (const auto& [agent, points] : agents) {
    size_t k = 0;
    for (const IntervalPoint& p : points) {
      if (p.ramp) continue;
      if (t.size() <= k) t.resize(k + 1), rate.resize(k + 1), p99.resize(k + 1);
      t[k].push_back(p.t);
      rate[k].push_back(p.mib_per_sec);
      if (p.p99_ms) p99[k].push_back(*p.p99_ms);
      ++k;
    }
  }
  J low = J::array(), median = J::array(), high = J::array(), p99_median = J::array(), p99_high = J::array();
  for (size_t k = 0; k < t.size(); ++k) {
    const double x = Rank(t[k], 0.5);
    low.push_back({{"x", x}, {"y", Rank(rate[k], 0)}});
    median.push_back({{"x", x}, {"y", Rank(rate[k], 0.5)}});
    high.push_back({{"x", x}, {"y", Rank(rate[k], 1)}});
    if (!p99[k].empty()) {
      p99_median.push_back({{"x", x}, {"y", Rank(p99[k], 0.5)}});
      p99_high.push_back({{"x", x}, {"y", Rank(p99[k], 1)}});
    }
  }
  auto line = [](const std::string& label, J data, const char* color, bool dashed) {
    J l = {{"label", label}, {"data", std::move(data)}, {"borderColor", color}, {"backgroundColor", color}, {"pointRadius", 0}, {"borderWidth", 2}};
    if (dashed) l["borderDash"] = {4, 4};
    return l;
  };
  const std::string of = fmt::format("median of {} agents", agents.size());
  J throughput = J::array({line("slowest agent of each interval", low, kSlowest, true), line(of, median, Color(0), false),
                           line("fastest agent of each interval", high, Color(2), true)});
  J options = BaseOptions(Instance(step) + fmt::format(": throughput over time, the spread of {} agents", agents.size()));
  options["scales"] = {{"x", Axis("seconds since the step's start")}, {"y", Axis("MiB/s (each agent's interval)")}};
  charts.Add("timeline", Instance(step), {{"type", "line"}, {"data", {{"datasets", throughput}}}, {"options", options}});
  if (p99_median.empty()) return;
  J latency = J::array({line(of, p99_median, Color(0), false), line("highest of each interval", p99_high, kSlowest, true)});
  J p99_options = BaseOptions(Instance(step) + fmt::format(": p99 latency over time, the spread of {} agents", agents.size()));
  p99_options["scales"] = {{"x", Axis("seconds since the step's start")}, {"y", Axis("ms (each agent's p99 of the interval)")}};
  charts.Add("timeline", Instance(step) + " p99", {{"type", "line"}, {"data", {{"datasets", latency}}}, {"options", p99_options}});
}

// Each io and copy step's throughput and p99 over time, one line per agent, from samples.csv.
void Timelines(const ReportDocument& doc, const std::string& samples_csv, Charts& charts) {
  if (samples_csv.empty()) return;
  const auto samples = ParseSamples(samples_csv);
  for (const v1::ReportStep& step : doc.steps()) {
    if (!MovesBytes(step.kind())) continue;
    const SampleKey key{step.name(), static_cast<int>(step.point()), static_cast<int>(step.cycle()), GroupCycle(step)};
    auto it = samples.find(key);
    if (it == samples.end()) continue;
    // A line needs two points: a step shorter than two sample intervals would draw empty axes.
    size_t most = 0;
    for (const auto& [agent, points] : it->second) most = std::max(most, points.size());
    if (most < 2) {
      charts.Note("timeline", fmt::format("{}: {} progress sample{} per agent in {:.2f} s: too few to draw throughput over time "
                                          "(a shorter sample_interval gives more)",
                                          Instance(step), most, most == 1 ? "" : "s", step.aggregate().figures().seconds()));
      continue;
    }
    if (it->second.size() > kMaxAgentLines) {
      SpreadTimelines(step, it->second, charts);
      continue;
    }
    J throughput = J::array(), latency = J::array();
    size_t i = 0;
    for (const auto& [agent, points] : it->second) {
      J rates = J::array(), ramp = J::array(), p99 = J::array();
      for (const auto& p : points) {
        (p.ramp ? ramp : rates).push_back({{"x", p.t}, {"y", p.mib_per_sec}});
        if (p.p99_ms) p99.push_back({{"x", p.t}, {"y", *p.p99_ms}});
      }
      const J style = {{"borderColor", Color(i)}, {"backgroundColor", Color(i)}, {"pointRadius", 0}, {"borderWidth", 2}};
      J line = {{"label", agent}, {"data", rates}};
      line.update(style);
      throughput.push_back(line);
      if (!ramp.empty()) {  // the ramp in the agent's colour, dashed: not part of the figures
        J dashed = {{"label", agent + " (ramp)"}, {"data", ramp}, {"borderDash", {4, 4}}};
        dashed.update(style);
        throughput.push_back(dashed);
      }
      if (!p99.empty()) {
        J l = {{"label", agent}, {"data", p99}};
        l.update(style);
        latency.push_back(l);
      }
      ++i;
    }
    J options = BaseOptions(Instance(step) + ": throughput over time");
    options["scales"] = {{"x", Axis("seconds since the step's start")}, {"y", Axis("MiB/s")}};
    charts.Add("timeline", Instance(step), {{"type", "line"}, {"data", {{"datasets", throughput}}}, {"options", options}});
    if (latency.empty()) continue;
    J p99_options = BaseOptions(Instance(step) + ": p99 latency over time");
    p99_options["scales"] = {{"x", Axis("seconds since the step's start")}, {"y", Axis("ms (p99 of each interval)")}};
    charts.Add("timeline", Instance(step) + " p99", {{"type", "line"}, {"data", {{"datasets", latency}}}, {"options", p99_options}});
  }
}

// Per step (by index), each instance's latency at the stored percentiles, on a log scale.
void LatencyCurves(const ReportDocument& doc, Charts& charts) {
  std::map<int, std::vector<const v1::ReportStep*>> by_index;
  for (const v1::ReportStep& step : doc.steps()) {
    if (!step.aggregate().latency_curve_ns().empty()) by_index[static_cast<int>(step.index())].push_back(&step);
  }
  for (const auto& [index, steps] : by_index) {
    J labels = J::array(), datasets = J::array();
    for (const v1::ReportCurvePoint& point : steps.front()->aggregate().latency_curve_ns()) labels.push_back(fmt::format("p{:g}", point.percentile()));
    for (size_t i = 0; i < steps.size() && i < std::size(kColors) * 2; ++i) {
      J values = J::array();
      for (const v1::ReportCurvePoint& point : steps[i]->aggregate().latency_curve_ns()) values.push_back(static_cast<double>(point.ns()) / 1e3);
      datasets.push_back({{"label", steps.size() > 1 ? Instance(*steps[i]) : steps[i]->name()}, {"data", values},
                          {"borderColor", Color(i)}, {"backgroundColor", Color(i)}, {"tension", 0.2}});
    }
    const std::string name = steps.front()->name();
    J options = BaseOptions(name + ": latency by percentile");
    options["scales"] = {{"x", {{"title", {{"display", true}, {"text", "percentile"}}}}},
                         {"y", {{"type", "logarithmic"}, {"title", {{"display", true}, {"text", "latency (us)"}}}}}};
    charts.Add("latency", name, {{"type", "line"}, {"data", {{"labels", labels}, {"datasets", datasets}}}, {"options", options}});
  }
}

// A step with streams: each stream's bandwidth and IOPS (reads and writes apart where it mixes
// them), and each stream's latency by percentile, over its own window.
void StreamCharts(const ReportDocument& doc, Charts& charts) {
  for (const v1::ReportStep& step : doc.steps()) {
    if (step.streams().empty()) continue;
    J labels = J::array(), mib = J::array(), iops = J::array();
    auto bar = [&](const std::string& label, double bytes_per_sec, double ops_per_sec) {
      labels.push_back(label);
      mib.push_back(bytes_per_sec / kMiB);
      iops.push_back(ops_per_sec);
    };
    for (const v1::ReportStream& stream : step.streams()) {
      const v1::ReportFigures& f = stream.aggregate().figures();
      if (f.has_read() && f.has_write()) {
        bar(stream.name() + " read", f.read().bytes_per_sec(), f.read().iops());
        bar(stream.name() + " write", f.write().bytes_per_sec(), f.write().iops());
      } else {
        bar(stream.name(), f.bytes_per_sec(), f.iops());
      }
    }
    J options = BaseOptions(Instance(step) + ": bandwidth and IOPS by stream");
    options["scales"] = {{"y", Axis("MiB/s")}, {"y1", Axis("IOPS", "right")}};
    options["scales"]["y1"]["grid"] = {{"drawOnChartArea", false}};
    J config = {{"type", "bar"},
                {"data",
                 {{"labels", labels},
                  {"datasets",
                   {{{"type", "bar"}, {"label", "MiB/s"}, {"data", mib}, {"backgroundColor", Color(0)}, {"yAxisID", "y"}},
                    {{"type", "line"}, {"label", "IOPS"}, {"data", iops}, {"borderColor", Color(1)}, {"backgroundColor", Color(1)},
                     {"showLine", false}, {"pointRadius", 5}, {"yAxisID", "y1"}}}}}},
                {"options", options}};
    charts.Add("streams", Instance(step), std::move(config));

    J curve_labels = J::array(), datasets = J::array();
    size_t i = 0;
    for (const v1::ReportStream& stream : step.streams()) {
      const auto& curve = stream.aggregate().latency_curve_ns();
      if (curve.empty()) continue;
      if (curve_labels.empty()) {
        for (const v1::ReportCurvePoint& point : curve) curve_labels.push_back(fmt::format("p{:g}", point.percentile()));
      }
      J values = J::array();
      for (const v1::ReportCurvePoint& point : curve) values.push_back(static_cast<double>(point.ns()) / 1e3);
      datasets.push_back({{"label", stream.name()}, {"data", values}, {"borderColor", Color(i)}, {"backgroundColor", Color(i)},
                          {"tension", 0.2}});
      ++i;
    }
    if (datasets.empty()) continue;
    J curve_options = BaseOptions(Instance(step) + ": latency by percentile, per stream");
    curve_options["scales"] = {{"x", {{"title", {{"display", true}, {"text", "percentile"}}}}},
                               {"y", {{"type", "logarithmic"}, {"title", {{"display", true}, {"text", "latency (us)"}}}}}};
    charts.Add("streams", Instance(step) + " latency",
               {{"type", "line"}, {"data", {{"labels", curve_labels}, {"datasets", datasets}}}, {"options", curve_options}});
  }
}

// A sweep: each swept step's bandwidth and IOPS against the swept values (mean over cycles).
void Sweeps(const ReportDocument& doc, Charts& charts) {
  std::map<int, std::map<int, std::vector<const v1::ReportStep*>>> by_index;  // index -> point -> runs
  for (const v1::ReportStep& step : doc.steps()) {
    if (MovesBytes(step.kind()) && step.status() == v1::STEP_STATUS_SUCCEEDED) {
      by_index[static_cast<int>(step.index())][static_cast<int>(step.point())].push_back(&step);
    }
  }
  for (const auto& [index, points] : by_index) {
    if (points.size() < 2) continue;
    J labels = J::array(), mib = J::array(), iops = J::array();
    for (const auto& [point, runs] : points) {
      labels.push_back(SweptLabel(runs.front()->params()));
      double m = 0, io = 0;
      for (const v1::ReportStep* run : runs) {
        m += run->aggregate().figures().bytes_per_sec() / kMiB;
        io += run->aggregate().figures().iops();
      }
      mib.push_back(m / static_cast<double>(runs.size()));
      iops.push_back(io / static_cast<double>(runs.size()));
    }
    const v1::ReportStep& first = *points.begin()->second.front();
    const std::string name = first.name();
    J options = BaseOptions(name + ": by swept value" + (points.begin()->second.size() > 1 ? " (mean of the cycles)" : ""));
    options["scales"] = {{"x", {{"title", {{"display", true}, {"text", "swept value"}}}}}, {"y", Axis("MiB/s")}, {"y1", Axis("IOPS", "right")}};
    options["scales"]["y1"]["grid"] = {{"drawOnChartArea", false}};
    J config = {{"type", "line"},
                {"data",
                 {{"labels", labels},
                  {"datasets",
                   {{{"label", "MiB/s"}, {"data", mib}, {"borderColor", Color(0)}, {"backgroundColor", Color(0)}, {"yAxisID", "y"}},
                    {{"label", first.kind() == "copy" ? "files/s" : "IOPS"}, {"data", iops}, {"borderColor", Color(1)},
                     {"backgroundColor", Color(1)}, {"yAxisID", "y1"}}}}}},
                {"options", options}};
    charts.Add("sweep", name, std::move(config));
  }
}

// A repeat: for each summary (step and point over its cycles), each cycle's figure as a bar, with
// the mean and the 95% interval's ends as lines across. The figure: bandwidth for steps that move
// bytes, the time for a hook or sync (mkfs, fsck); steps that only prepare have no chart.
void Cycles(const ReportDocument& doc, Charts& charts) {
  for (const v1::ReportSummary& summary : doc.summaries().values()) {
    const bool in_group = summary.has_group();
    std::vector<const v1::ReportStep*> runs;
    for (const v1::ReportStep& step : doc.steps()) {
      if (step.index() != summary.index() || step.point() != summary.point()) continue;
      if (in_group && static_cast<int64_t>(step.cycle()) != summary.cycle()) continue;
      if (step.status() == v1::STEP_STATUS_SUCCEEDED) runs.push_back(&step);
    }
    if (runs.size() < 2) continue;
    const std::string kind = runs.front()->kind();
    const bool rate = MovesBytes(kind);
    if (!rate && kind != "hook" && kind != "sync") continue;
    // The figure: the summary's over the cycles, and each run's in its aggregate.
    auto of = [rate](const v1::ReportFigures& f) { return rate ? f.bytes_per_sec() : f.seconds(); };
    const double per = rate ? kMiB : 1;
    const v1::ReportCycleStats& figure = rate ? summary.bytes_per_sec() : summary.seconds();
    J labels = J::array(), values = J::array();
    for (const v1::ReportStep* step : runs) {
      labels.push_back(fmt::format("{} {}", in_group ? "group cycle" : "cycle",
                                   in_group ? static_cast<int64_t>(step->group_cycle()) : static_cast<int64_t>(step->cycle())));
      values.push_back(of(step->aggregate().figures()) / per);
    }
    auto across = [&](double value) {
      J line = J::array();
      for (size_t i = 0; i < values.size(); ++i) line.push_back(value / per);
      return line;
    };
    std::string title = fmt::format("{} {}", summary.name(), PointLabel(summary.params(), summary.point()));
    if (in_group) title += fmt::format(" cycle {}", summary.cycle());
    const std::string unit = rate ? "MiB/s" : "seconds";
    J options = BaseOptions(title + ": cycles with the 95% interval");
    options["scales"] = {{"y", Axis(unit)}};
    J line = {{"type", "line"}, {"pointRadius", 0}, {"borderWidth", 2}, {"fill", false}};
    // The interval's two ends share one legend entry (the page's script hides unnamed ones).
    J mean = line, low = line, high = line;
    mean.update({{"label", "mean"}, {"data", across(figure.mean())}, {"borderColor", Color(1)}, {"backgroundColor", Color(1)}});
    low.update({{"label", "95% interval"}, {"data", across(figure.ci95_low())}, {"borderColor", Color(6)}, {"backgroundColor", Color(6)}, {"borderDash", {6, 4}}});
    high.update({{"label", ""}, {"data", across(figure.ci95_high())}, {"borderColor", Color(6)}, {"backgroundColor", Color(6)}, {"borderDash", {6, 4}}});
    J config = {{"type", "bar"},
                {"data", {{"labels", labels}, {"datasets", {{{"type", "bar"}, {"label", unit}, {"data", values}, {"backgroundColor", Color(0)}}, mean, low, high}}}},
                {"options", options}};
    charts.Add("cycles", title, std::move(config));
  }
}

// A target_latency step: each window's pXX against the rate it achieved, passed and failed apart,
// with the target as a line across them (latency against load: where the knee is).
void SearchCharts(const ReportDocument& doc, Charts& charts) {
  for (const v1::ReportStep& step : doc.steps()) {
    if (!step.has_search() || step.search().probes().empty()) continue;
    const v1::ReportSearch& search = step.search();
    const bool bw = search.unit() == "bytes_per_sec";
    // A search of the queue depth: latency against the depth (the rate hardly moves past a knee).
    const bool depth = search.vary() == "queue_depth";
    J passed = J::array(), failed = J::array();
    double most = 0;
    for (const v1::ReportProbe& p : search.probes()) {
      const double x = depth ? p.queue_depth() : bw ? p.rate_achieved() / kMiB : p.rate_achieved();
      most = std::max(most, x);
      (p.passed() ? passed : failed).push_back({{"x", x}, {"y", static_cast<double>(p.latency_ns()) / 1e3}});
    }
    const double target_us = static_cast<double>(search.max_latency_ns()) / 1e3;
    const std::string pct = fmt::format("p{:g}", search.percentile());
    J datasets = {{{"label", "passed"}, {"data", passed}, {"backgroundColor", Color(2)}, {"pointRadius", 5}},
                  {{"label", "failed"}, {"data", failed}, {"backgroundColor", Color(3)}, {"pointRadius", 5}},
                  {{"label", "target " + pct}, {"type", "line"}, {"data", {{{"x", 0}, {"y", target_us}}, {{"x", most}, {"y", target_us}}}},
                   {"borderColor", Color(0)}, {"borderDash", {6, 4}}, {"pointRadius", 0}, {"fill", false}}};
    J options = BaseOptions(Instance(step) + ": " + pct + (depth ? " against the queue depth" : " against the rate achieved"));
    options["scales"] = {{"x", Axis(depth ? "queue depth per job" : bw ? "achieved MiB/s" : "achieved IOPS")},
                         {"y", {{"type", "logarithmic"}, {"title", {{"display", true}, {"text", pct + " latency (us)"}}}}}};
    charts.Add("search", Instance(step), {{"type", "scatter"}, {"data", {{"datasets", datasets}}}, {"options", options}});
  }
}

// A curve step: the hockey stick, each window's latency percentiles against the rate it achieved.
void CurveCharts(const ReportDocument& doc, Charts& charts) {
  for (const v1::ReportStep& step : doc.steps()) {
    if (!step.has_curve() || step.curve().points().empty()) continue;
    const bool bw = step.curve().unit() == "bytes_per_sec";
    std::vector<const v1::ReportLoadPoint*> points;
    for (const v1::ReportLoadPoint& p : step.curve().points()) points.push_back(&p);
    std::sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->rate_achieved() < b->rate_achieved(); });
    J datasets = J::array();
    const std::pair<const char*, uint64_t (v1::ReportLatency::*)() const> kLines[] = {
        {"p50", &v1::ReportLatency::p50}, {"p99", &v1::ReportLatency::p99}, {"p99.9", &v1::ReportLatency::p999}};
    size_t color = 0;
    for (const auto& [label, figure] : kLines) {
      J data = J::array();
      for (const auto* p : points) {
        data.push_back({{"x", bw ? p->rate_achieved() / kMiB : p->rate_achieved()}, {"y", static_cast<double>((p->latency_ns().*figure)()) / 1e3}});
      }
      datasets.push_back({{"label", label}, {"data", data}, {"showLine", true}, {"borderColor", Color(color)}, {"backgroundColor", Color(color)}});
      ++color;
    }
    J options = BaseOptions(Instance(step) + ": latency against the rate achieved");
    options["scales"] = {{"x", Axis(bw ? "achieved MiB/s" : "achieved IOPS")},
                         {"y", {{"type", "logarithmic"}, {"title", {{"display", true}, {"text", "latency (us)"}}}}}};
    charts.Add("search", Instance(step) + " curve", {{"type", "scatter"}, {"data", {{"datasets", datasets}}}, {"options", options}});
  }
}

// A steady step: every sample of the fleet's figure, the steady window's apart.
void SteadyCharts(const ReportDocument& doc, Charts& charts) {
  for (const v1::ReportStep& step : doc.steps()) {
    if (!step.has_steady() || step.steady().samples().empty()) continue;
    const v1::ReportSteady& s = step.steady();
    const double interval = static_cast<double>(s.interval_ns()) / 1e9;
    const auto per_window = static_cast<int>(s.window_ns() / std::max<uint64_t>(s.interval_ns(), 1));
    J before = J::array(), steady = J::array();
    for (int i = 0; i < s.samples_size(); ++i) {
      const double y = s.metric() == "bandwidth" ? s.samples(i) / kMiB : s.metric() == "latency" ? s.samples(i) / 1e3 : s.samples(i);
      J point = {{"x", interval * (i + 1)}, {"y", y}};
      (s.reached() && i >= s.samples_size() - per_window ? steady : before).push_back(point);
      if (s.reached() && i == s.samples_size() - per_window - 1) steady.push_back(point);  // the lines meet
    }
    const std::string unit = s.metric() == "bandwidth" ? "MiB/s" : s.metric() == "latency" ? "mean latency (us)" : "IOPS";
    J datasets = {{{"label", "samples"}, {"data", before}, {"showLine", true}, {"borderColor", Color(0)}, {"backgroundColor", Color(0)}},
                  {{"label", "steady window"}, {"data", steady}, {"showLine", true}, {"borderColor", Color(2)}, {"backgroundColor", Color(2)}}};
    J options = BaseOptions(Instance(step) + ": " + s.metric() + " until steady");
    options["scales"] = {{"x", Axis("seconds after the window opened")}, {"y", Axis(unit)}};
    charts.Add("search", Instance(step) + " steady", {{"type", "scatter"}, {"data", {{"datasets", datasets}}}, {"options", options}});
  }
}

}  // namespace

nlohmann::ordered_json ChartSpecs(const ReportDocument& doc, const std::string& samples_csv) {
  Charts charts;
  Sweeps(doc, charts);
  Cycles(doc, charts);
  AgentBars(doc, charts);
  StreamCharts(doc, charts);
  SearchCharts(doc, charts);
  CurveCharts(doc, charts);
  SteadyCharts(doc, charts);
  Timelines(doc, samples_csv, charts);
  LatencyCurves(doc, charts);
  return std::move(charts).Done();
}

}  // namespace iofleet::controller
