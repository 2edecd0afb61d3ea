#include "controller/report/headline_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "controller/report/cycle_summary.h"

namespace iofleet::controller {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
constexpr double kMB = 1e6;

std::optional<double> PhaseFilesPerSec(const StepReport& step, const std::string& op) {
  for (const auto& phase : step.phases) {
    if (phase.op == op) return phase.aggregate.iops();
  }
  return std::nullopt;
}

// Right-aligned columns, each as wide as its widest cell, two spaces apart.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers) : rows_{std::move(headers)} {}
  void Add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

  std::string Render(const std::string& indent) const {
    std::vector<size_t> widths(rows_.front().size(), 0);
    for (const auto& row : rows_) {
      for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    }
    std::string out;
    for (const auto& row : rows_) {
      std::string line = indent;
      for (size_t c = 0; c < row.size(); ++c) line += fmt::format("{}{:>{}}", c ? "  " : "", row[c], widths[c]);
      out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";  // an empty status cell leaves no blanks
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

// The swept paths of these runs, in the order the first run lists them.
std::vector<std::string> SweptPaths(const std::vector<const StepReport*>& runs) {
  std::vector<std::string> paths;
  for (const StepReport* run : runs) {
    for (const auto& [path, value] : run->params) {
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    }
  }
  return paths;
}

std::string SweptValue(const StepReport& run, const std::string& path) {
  for (const auto& [p, value] : run.params) {
    if (p == path) return value;
  }
  return "-";
}

std::vector<std::string> PhaseOps(const std::vector<const StepReport*>& runs) {
  std::vector<std::string> ops;
  for (const StepReport* run : runs) {
    for (const auto& phase : run->phases) {
      if (std::find(ops.begin(), ops.end(), phase.op) == ops.end()) ops.push_back(phase.op);
    }
  }
  return ops;
}

// One step's table: its runs in the order they ran (point by point, cycle by cycle).
std::string StepTable(const std::vector<const StepReport*>& runs) {
  const StepReport& first = *runs.front();
  const std::vector<std::string> paths = SweptPaths(runs);
  const std::vector<HeadlineFigure> figures = HeadlineFigures(first.kind, PhaseOps(runs));
  if (figures.empty()) return "";  // a files step that failed before its first phase, every time
  std::map<int, size_t> runs_per_point;
  std::set<std::pair<int, int>> point_cycles;
  bool failed = false;
  for (const StepReport* run : runs) {
    ++runs_per_point[run->point];
    point_cycles.insert({run->point, run->cycle});
    failed = failed || run->status != "succeeded";
  }
  // A step that runs several times within one cycle (repeated inside it) is numbered by its
  // place among the point's runs; otherwise by its cycle, as report.json numbers it.
  const bool by_run = point_cycles.size() < runs.size();
  size_t cycles = 0;
  for (const auto& [point, n] : runs_per_point) cycles = std::max(cycles, n);
  const bool by_point = runs_per_point.size() > 1;
  // A group's step: its rows are its group cycles, and its spread is over the group cycles of
  // one point and repeat cycle (as report.json's summaries), never across repeat cycles.
  const bool grouped = first.group_cycle >= 0;
  std::set<int> repeat_cycles;
  for (const StepReport* run : runs) repeat_cycles.insert(run->cycle);
  const bool cycle_column = grouped && repeat_cycles.size() > 1;
  const bool by_cycle = grouped || cycles > 1;
  size_t group_cycles = 0;
  for (const StepReport* run : runs) group_cycles = std::max(group_cycles, static_cast<size_t>(run->group_cycle + 1));

  std::vector<std::string> headers;
  if (by_point) headers.push_back("point");
  if (cycle_column) headers.push_back("cycle");
  if (by_cycle) headers.push_back(grouped ? "group cycle" : by_run ? "run" : "cycle");
  headers.insert(headers.end(), paths.begin(), paths.end());
  for (const auto& f : figures) headers.push_back(f.header);
  if (failed) headers.push_back("status");
  TextTable table(headers);

  // The columns left of the figures for a row of `run` whose cycle column reads `cycle`.
  auto labels = [&](const StepReport& run, const std::string& cycle) {
    std::vector<std::string> cells;
    if (by_point) cells.push_back(std::to_string(run.point));
    if (cycle_column) cells.push_back(std::to_string(run.cycle));
    if (by_cycle) cells.push_back(cycle);
    for (const auto& path : paths) cells.push_back(SweptValue(run, path));
    return cells;
  };
  for (size_t begin = 0; begin < runs.size();) {
    size_t end = begin;
    while (end < runs.size() && runs[end]->point == runs[begin]->point && (!grouped || runs[end]->cycle == runs[begin]->cycle)) ++end;
    auto number = [&](size_t r) { return grouped ? runs[r]->group_cycle : by_run ? static_cast<int>(r - begin) : runs[r]->cycle; };
    for (size_t r = begin; r < end; ++r) {
      std::vector<std::string> cells = labels(*runs[r], std::to_string(number(r)));
      for (const auto& f : figures) {
        std::optional<double> v = f.value(*runs[r]);
        cells.push_back(v ? fmt::format("{:.{}f}", *v, f.decimals) : "-");
      }
      if (failed) cells.push_back(runs[r]->status);
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
        std::optional<double> v = runs[r]->status == "succeeded" ? f.value(*runs[r]) : std::nullopt;
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

  std::string title = fmt::format("{} ({})", first.name, first.kind);
  if (!paths.empty()) {
    std::string swept;
    for (const auto& p : paths) swept += (swept.empty() ? "" : ", ") + p;
    title += " by " + swept;
  }
  if (grouped) {
    title += fmt::format("{} {} cycles of group {}{}", paths.empty() ? " over" : ",", group_cycles, first.group,
                         by_point || cycle_column ? " per point and cycle" : "");
  } else if (by_cycle) {
    title += fmt::format("{} {} {}{}", paths.empty() ? " over" : ",", cycles, by_run ? "runs" : "cycles", by_point ? " per point" : "");
  }
  return "\n" + title + "\n" + table.Render("  ");
}

}  // namespace

bool MovesNoData(const std::string& kind) {
  return kind == "sleep" || kind == "sync" || kind == "drop_caches" || kind == "readahead" || kind == "hook";
}

bool OnlyPrepares(const std::string& kind) { return kind == "sleep" || kind == "drop_caches" || kind == "readahead"; }

std::vector<HeadlineFigure> HeadlineFigures(const std::string& kind, const std::vector<std::string>& phase_ops) {
  auto stat = [](double (*f)(const StepStats&)) {
    return [f](const StepReport& s) -> std::optional<double> { return f(s.aggregate); };
  };
  HeadlineFigure seconds{"seconds", 3, stat([](const StepStats& a) { return a.seconds(); })};
  HeadlineFigure mib{"MiB/s", 1, stat([](const StepStats& a) { return a.bytes_per_sec() / kMiB; })};
  HeadlineFigure mb{"MB/s", 1, stat([](const StepStats& a) { return a.bytes_per_sec() / kMB; })};
  if (kind == "io") return {mib, mb, {"IOPS", 0, stat([](const StepStats& a) { return a.iops(); })}};
  if (kind == "copy") {
    return {seconds,
            {"Gbps", 3, stat([](const StepStats& a) { return a.bytes_per_sec() * 8 / 1e9; })},
            {"GiB/s", 3, stat([](const StepStats& a) { return a.bytes_per_sec() / kGiB; })},
            mib,
            mb,
            {"files/s", 0, stat([](const StepStats& a) { return a.iops(); })}};
  }
  if (kind == "files") {
    std::vector<HeadlineFigure> out;
    for (const auto& op : phase_ops) {
      out.push_back({op + " files/s", 0, [op](const StepReport& s) { return PhaseFilesPerSec(s, op); }});
    }
    return out;
  }
  return {seconds};
}

std::string HeadlineTables(const RunReport& report) {
  std::map<int, std::vector<const StepReport*>> by_step;
  for (const auto& step : report.steps) {
    if (!OnlyPrepares(step.kind)) by_step[step.index].push_back(&step);
  }
  std::string out;
  for (const auto& [index, runs] : by_step) {
    if (runs.size() > 1) out += StepTable(runs);
  }
  return out;
}

}  // namespace iofleet::controller
