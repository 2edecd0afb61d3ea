#include "controller/report/headline_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "controller/report/cycle_summary.h"
#include "controller/report/report_units.h"

namespace iofleet::controller {
namespace {

constexpr double kGiB = 1024.0 * kMiB;

using Step = v1::ReportStep;

std::optional<double> PhaseFilesPerSec(const Step& step, const std::string& op) {
  for (const v1::ReportPhase& phase : step.phases()) {
    if (phase.op() == op) return phase.figures().iops();
  }
  return std::nullopt;
}

// Right-aligned columns, each as wide as its widest cell, two spaces apart.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers) : rows_{std::move(headers)} {}
  void Add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

  std::vector<std::vector<std::string>> rows() && { return std::move(rows_); }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string Render(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) line += fmt::format("{}{:>{}}", c ? "  " : "", row[c], widths[c]);
    out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";  // an empty status cell leaves no blanks
  }
  return out;
}

int Point(const Step& run) { return static_cast<int>(run.point()); }
int Cycle(const Step& run) { return static_cast<int>(run.cycle()); }

// The swept paths of these runs, in the order the first run lists them.
std::vector<std::string> SweptPaths(const std::vector<const Step*>& runs) {
  std::vector<std::string> paths;
  for (const Step* run : runs) {
    for (const v1::ReportParam& p : run->params()) {
      if (std::find(paths.begin(), paths.end(), p.key()) == paths.end()) paths.push_back(p.key());
    }
  }
  return paths;
}

std::string SweptValue(const Step& run, const std::string& path) {
  for (const v1::ReportParam& p : run.params()) {
    if (p.key() == path) return ParamText(p);
  }
  return "-";
}

std::vector<std::string> PhaseOps(const std::vector<const Step*>& runs) {
  std::vector<std::string> ops;
  for (const Step* run : runs) {
    for (const v1::ReportPhase& phase : run->phases()) {
      if (std::find(ops.begin(), ops.end(), phase.op()) == ops.end()) ops.push_back(phase.op());
    }
  }
  return ops;
}

// A hook that measured its file system's fill (`fill_of`: mkfs, fsck) is judged against it: the
// seed's table has the fill level as its x-axis (df's Use%, blocks and inodes used), taken at the
// step's start (for fsck, its point's fill level) and its Use% at the end (for mkfs, the empty file
// system).
std::vector<HeadlineFigure> FillFigures(const std::vector<const Step*>& runs) {
  bool measured = false;
  for (const Step* run : runs) {
    const v1::ReportFigures& agg = run->aggregate().figures();
    measured = measured || agg.has_fill_at_start() || agg.has_fill_at_end();
  }
  if (!measured) return {};
  using Fill = v1::ReportFill;
  // `figure` of the fill level at the step's start (or `at_end`), divided by `per`.
  auto fill = [](bool at_end, double (*figure)(const Fill&), double per) {
    return [at_end, figure, per](const Step& s) -> std::optional<double> {
      const v1::ReportFigures& agg = s.aggregate().figures();
      if (at_end ? !agg.has_fill_at_end() : !agg.has_fill_at_start()) return std::nullopt;
      return figure(at_end ? agg.fill_at_end() : agg.fill_at_start()) / per;
    };
  };
  auto use_pct = [](const Fill& f) { return static_cast<double>(f.use_pct()); };
  return {{"Use%", 0, fill(false, use_pct, 1)},
          {"used GB", 1, fill(false, [](const Fill& f) { return static_cast<double>(f.used_bytes()); }, 1e9)},
          {"size GB", 1, fill(false, [](const Fill& f) { return static_cast<double>(f.size_bytes()); }, 1e9)},
          {"inodes used", 0, fill(false, [](const Fill& f) { return static_cast<double>(f.inodes_used()); }, 1)},
          {"inodes", 0, fill(false, [](const Fill& f) { return static_cast<double>(f.inodes()); }, 1)},
          {"Use% at end", 0, fill(true, use_pct, 1)}};
}

// One step's table: its runs in the order they ran (point by point, cycle by cycle).
std::optional<HeadlineTable> StepTable(const std::vector<const Step*>& runs) {
  const Step& first = *runs.front();
  const std::vector<std::string> paths = SweptPaths(runs);
  std::vector<HeadlineFigure> figures = HeadlineFigures(first.kind(), PhaseOps(runs));
  if (first.kind() == "hook") {
    for (auto& f : FillFigures(runs)) figures.push_back(std::move(f));
  }
  if (figures.empty()) return std::nullopt;  // a files step that failed before its first phase, every time
  std::map<int, size_t> runs_per_point;
  std::set<std::pair<int, int>> point_cycles;
  bool failed = false;
  for (const Step* run : runs) {
    ++runs_per_point[Point(*run)];
    point_cycles.insert({Point(*run), Cycle(*run)});
    failed = failed || run->status() != v1::STEP_STATUS_SUCCEEDED;
  }
  // A step that runs several times within one cycle (repeated inside it) is numbered by its
  // place among the point's runs; otherwise by its cycle, as report.json numbers it.
  const bool by_run = point_cycles.size() < runs.size();
  size_t cycles = 0;
  for (const auto& [point, n] : runs_per_point) cycles = std::max(cycles, n);
  const bool by_point = runs_per_point.size() > 1;
  // A group's step: its rows are its group cycles, and its spread is over the group cycles of
  // one point and repeat cycle (as report.json's summaries), never across repeat cycles.
  const bool grouped = GroupCycle(first) >= 0;
  std::set<int> repeat_cycles;
  for (const Step* run : runs) repeat_cycles.insert(Cycle(*run));
  const bool cycle_column = grouped && repeat_cycles.size() > 1;
  const bool by_cycle = grouped || cycles > 1;
  size_t group_cycles = 0;
  for (const Step* run : runs) {
    if (GroupCycle(*run) >= 0) group_cycles = std::max(group_cycles, static_cast<size_t>(GroupCycle(*run)) + 1);
  }

  std::vector<std::string> headers;
  if (by_point) headers.push_back("point");
  if (cycle_column) headers.push_back("cycle");
  if (by_cycle) headers.push_back(grouped ? "group cycle" : by_run ? "run" : "cycle");
  headers.insert(headers.end(), paths.begin(), paths.end());
  for (const auto& f : figures) headers.push_back(f.header);
  if (failed) headers.push_back("status");
  TextTable table(headers);

  // The columns left of the figures for a row of `run` whose cycle column reads `cycle`.
  auto labels = [&](const Step& run, const std::string& cycle) {
    std::vector<std::string> cells;
    if (by_point) cells.push_back(std::to_string(Point(run)));
    if (cycle_column) cells.push_back(std::to_string(Cycle(run)));
    if (by_cycle) cells.push_back(cycle);
    for (const auto& path : paths) cells.push_back(SweptValue(run, path));
    return cells;
  };
  for (size_t begin = 0; begin < runs.size();) {
    size_t end = begin;
    while (end < runs.size() && Point(*runs[end]) == Point(*runs[begin]) && (!grouped || Cycle(*runs[end]) == Cycle(*runs[begin]))) ++end;
    auto number = [&](size_t r) { return grouped ? GroupCycle(*runs[r]) : by_run ? static_cast<int>(r - begin) : Cycle(*runs[r]); };
    for (size_t r = begin; r < end; ++r) {
      std::vector<std::string> cells = labels(*runs[r], std::to_string(number(r)));
      for (const auto& f : figures) {
        std::optional<double> v = f.value(*runs[r]);
        cells.push_back(v ? fmt::format("{:.{}f}", *v, f.decimals) : "-");
      }
      if (failed) cells.push_back(StatusText(runs[r]->status()));
      table.Add(cells);
    }
    // The spread over this point's cycles: succeeded runs only, as report.json's summaries.
    std::vector<std::vector<std::string>> spread = {labels(*runs[begin], "mean"), labels(*runs[begin], "stddev"),
                                                    labels(*runs[begin], "95% ci")};
    bool any = false;
    for (const auto& f : figures) {
      std::vector<double> values;
      std::vector<int> cycle_numbers;
      for (size_t r = begin; r < end; ++r) {
        std::optional<double> v = runs[r]->status() == v1::STEP_STATUS_SUCCEEDED ? f.value(*runs[r]) : std::nullopt;
        if (!v) continue;
        values.push_back(*v);
        cycle_numbers.push_back(number(r));
      }
      if (values.size() < 2) {
        for (auto& row : spread) row.push_back("-");
        continue;
      }
      any = true;
      const CycleSummary s = SummarizeCycles(values, cycle_numbers, false);
      spread[0].push_back(fmt::format("{:.{}f}", s.mean, f.decimals));
      spread[1].push_back(fmt::format("{:.{}f}", s.stddev, f.decimals));
      spread[2].push_back(fmt::format("+/-{:.{}f}", s.ci95_high - s.mean, f.decimals));
    }
    if (by_cycle && any) {
      for (auto& row : spread) {
        if (failed) row.push_back("");
        table.Add(row);
      }
    }
    begin = end;
  }

  std::string title = fmt::format("{} ({})", first.name(), first.kind());
  if (!paths.empty()) {
    std::string swept;
    for (const auto& p : paths) swept += (swept.empty() ? "" : ", ") + p;
    title += " by " + swept;
  }
  if (grouped) {
    title += fmt::format("{} {} cycles of group {}{}", paths.empty() ? " over" : ",", group_cycles, first.group(),
                         by_point || cycle_column ? " per point and cycle" : "");
  } else if (by_cycle) {
    title += fmt::format("{} {} {}{}", paths.empty() ? " over" : ",", cycles, by_run ? "runs" : "cycles", by_point ? " per point" : "");
  }
  return HeadlineTable{title, std::move(table).rows()};
}

}  // namespace

bool MovesNoData(const std::string& kind) {
  return kind == "sleep" || kind == "sync" || kind == "drop_caches" || kind == "readahead" || kind == "hook";
}

bool OnlyPrepares(const std::string& kind) { return kind == "sleep" || kind == "drop_caches" || kind == "readahead"; }

std::vector<HeadlineFigure> HeadlineFigures(const std::string& kind, const std::vector<std::string>& phase_ops) {
  // A figure of the step's aggregate: `figure` x `times` / `per`, in that order (as the console
  // computes it, to the last bit).
  using Figures = v1::ReportFigures;
  auto stat = [](double (*figure)(const Figures&), double times, double per) {
    return [figure, times, per](const Step& s) -> std::optional<double> { return figure(s.aggregate().figures()) * times / per; };
  };
  auto seconds_of = [](const Figures& f) { return f.seconds(); };
  auto bytes_per_sec = [](const Figures& f) { return f.bytes_per_sec(); };
  auto iops = [](const Figures& f) { return f.iops(); };
  HeadlineFigure seconds{"seconds", 3, stat(seconds_of, 1, 1)};
  HeadlineFigure mib{"MiB/s", 1, stat(bytes_per_sec, 1, kMiB)};
  HeadlineFigure mb{"MB/s", 1, stat(bytes_per_sec, 1, kMB)};
  if (kind == "io") return {mib, mb, {"IOPS", 0, stat(iops, 1, 1)}};
  if (kind == "copy") {
    return {seconds,
            {"Gbps", 3, stat(bytes_per_sec, 8, 1e9)},
            {"GiB/s", 3, stat(bytes_per_sec, 1, kGiB)},
            mib,
            mb,
            {"files/s", 0, stat(iops, 1, 1)}};
  }
  if (kind == "files") {
    std::vector<HeadlineFigure> out;
    for (const auto& op : phase_ops) {
      out.push_back({op + " files/s", 0, [op](const Step& s) { return PhaseFilesPerSec(s, op); }});
    }
    return out;
  }
  return {seconds};
}

std::vector<HeadlineTable> HeadlineTableList(const ReportDocument& doc) {
  std::map<int, std::vector<const Step*>> by_step;
  for (const v1::ReportStep& step : doc.steps()) {
    if (!OnlyPrepares(step.kind())) by_step[static_cast<int>(step.index())].push_back(&step);
  }
  std::vector<HeadlineTable> out;
  for (const auto& [index, runs] : by_step) {
    if (runs.size() < 2) continue;
    if (auto table = StepTable(runs)) out.push_back(std::move(*table));
  }
  return out;
}

std::string HeadlineTables(const ReportDocument& doc) {
  std::string out;
  for (const auto& table : HeadlineTableList(doc)) out += "\n" + table.title + "\n" + Render(table.rows, "  ");
  return out;
}

}  // namespace iofleet::controller
