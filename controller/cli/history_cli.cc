#include "controller/cli/history_cli.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <iostream>
#include <map>

#include "controller/history/change_points.h"
#include "controller/history/history_db.h"
#include "controller/history/regression.h"
#include "controller/history/run_figures.h"
#include "controller/report/report_tables.h"
#include "core/base/exit_code.h"
#include "core/wire/proto_json.h"

namespace iofleet::controller {

struct HistoryCommands {
  CLI::App* history = nullptr;
  CLI::App* compare = nullptr;
  std::string db;
  std::string out_dir = "iofleet-results";
  std::string workload;
  std::vector<std::string> labels;
  size_t last = 0;
  bool changes = false;
  std::string exclude, include;
  std::string run_a, run_b;
};

namespace {


std::string Utc(uint64_t unix_ns) {
  const time_t t = static_cast<time_t>(unix_ns / 1'000'000'000);
  tm parts{};
  gmtime_r(&t, &parts);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%d %H:%M", &parts);
  return text;
}

std::string Labels(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

// `key=value` pairs from --label.
std::optional<std::map<std::string, std::string>> ParseLabels(const std::vector<std::string>& specs) {
  std::map<std::string, std::string> labels;
  for (const auto& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "iofleet: --label " << spec << ": expected key=value\n";
      return std::nullopt;
    }
    labels[spec.substr(0, eq)] = spec.substr(eq + 1);
  }
  return labels;
}

int RunsTable(HistoryDb& db, const RunFilter& filter) {
  auto runs = db.Runs(filter);
  if (!runs.ok()) {
    std::cerr << "iofleet: " << runs.status().message() << "\n";
    return kExitFailed;
  }
  std::cout << fmt::format("{:<24} {:<16} {:<20} {:>6} {:>9} {:<10} {:<20} {}\n", "run", "started (UTC)", "workload", "agents",
                           "seconds", "status", "verdict", "labels");
  for (const auto& r : *runs) {
    std::cout << fmt::format("{:<24} {:<16} {:<20} {:>6} {:>9.1f} {:<10} {:<20} {}{}\n", r.run_id, Utc(r.started_at_unix_ns),
                             r.workload, r.agents.size(), static_cast<double>(r.duration_ns) / 1e9, iofleet::wire::EnumText(r.status),
                             r.verdict.empty() ? "-" : r.verdict, Labels(r.labels), r.excluded ? "  (excluded)" : "");
  }
  if (runs->empty()) std::cout << "(no runs)\n";
  return kExitOk;
}

// Change points per series: a workload's step figure over its succeeded, not excluded runs with
// the same agent count and labels (a change of file system is no change point).
int Changes(HistoryDb& db, RunFilter filter) {
  filter.succeeded_only = true;
  filter.include_excluded = false;
  auto runs = db.Runs(filter);
  if (!runs.ok()) {
    std::cerr << "iofleet: " << runs.status().message() << "\n";
    return kExitFailed;
  }
  struct Series {
    std::vector<double> values;
    std::vector<const StoredRun*> runs;
  };
  std::map<std::tuple<std::string, size_t, std::string, FigureKey>, Series> series;
  for (const StoredRun& r : *runs) {
    auto figures = db.Figures(r.run_id);
    if (!figures.ok()) {
      std::cerr << "iofleet: " << figures.status().message() << "\n";
      return kExitFailed;
    }
    for (const auto& [key, mean] : RunMeans(*figures)) {
      Series& s = series[{r.workload, r.agents.size(), Labels(r.labels), key}];
      s.values.push_back(mean);
      s.runs.push_back(&r);
    }
  }
  int found = 0;
  for (const auto& [id, s] : series) {
    const auto& [workload, agents, labels, key] = id;
    for (const ChangePoint& c : FindChangePoints(s.values)) {
      if (found++ == 0) {
        std::cout << fmt::format("{:<16} {:<24} {:<20} {:<16} {:<22} {:>14} {:>14} {:>8} {:>10}\n", "date (UTC)", "run", "workload",
                                 "step", "figure", "before", "after", "shift", "confidence");
      }
      const StoredRun& at = *s.runs[c.index];
      std::string step = key.step + (key.point ? fmt::format("@{}", key.point) : "");
      std::cout << fmt::format("{:<16} {:<24} {:<20} {:<16} {:<22} {:>14} {:>14} {:>+7.1f}% {:>9.1f}%{}\n", Utc(at.started_at_unix_ns),
                               at.run_id, workload, step, key.figure, FormatFigure(c.mean_before, UnitOf(key.figure)),
                               FormatFigure(c.mean_after, UnitOf(key.figure)), c.shift_pct, 100 * (1 - c.p_value),
                               labels.empty() ? "" : "  " + labels);
    }
  }
  if (found == 0) std::cout << "no change points in " << runs->size() << " run(s)\n";
  return kExitOk;
}

int Compare(HistoryDb& db, const std::string& a_id, const std::string& b_id) {
  auto a = db.Load(a_id);
  auto b = db.Load(b_id);
  for (const auto* r : {&a, &b}) {
    if (!r->ok()) {
      std::cerr << "iofleet: " << r->status().message() << "\n";
      return r->status().code() == Code::kNotFound ? kExitRejected : kExitFailed;
    }
  }
  // Significance from the history: B against A as its reference run, with the spread of the
  // runs up to A that share its workload, agents and labels.
  std::map<FigureKey, v1::ReportFigureVerdict> judged;
  std::string note;
  if (a->started_at_unix_ns < b->started_at_unix_ns && a->workload == b->workload && a->labels == b->labels &&
      a->agents.size() == b->agents.size()) {
    VerdictOptions options;
    options.reference.kind = Reference::Kind::kRun;
    options.reference.run_id = a->run_id;
    auto v = JudgeRun(db, *b, options);
    if (v.ok()) {
      for (const v1::ReportStepVerdicts& step : v->verdicts.steps()) {
        for (const v1::ReportFigureVerdict& f : step.figures()) judged[{step.step(), static_cast<int>(step.point()), f.figure()}] = f;
      }
    } else {
      note = v.status().message();
    }
  } else {
    note = "the runs differ in workload, agents or labels, or B is not the later one: changes without significance";
  }
  std::cout << fmt::format("A {} ({}, {})\nB {} ({}, {})\n", a->run_id, a->workload, Utc(a->started_at_unix_ns), b->run_id,
                           b->workload, Utc(b->started_at_unix_ns));
  if (!note.empty()) std::cout << "note: " << note << "\n";
  std::cout << fmt::format("{:<16} {:<22} {:>14} {:>14} {:>8} {:>8}  {}\n", "step", "figure", "A", "B", "change", "p", "verdict");
  const auto mean_a = RunMeans(a->figures);
  const auto mean_b = RunMeans(b->figures);
  for (const auto& [key, va] : mean_a) {
    auto it = mean_b.find(key);
    if (it == mean_b.end()) continue;
    const double vb = it->second;
    const std::string change = va != 0 ? fmt::format("{:+.1f}%", (vb - va) / std::fabs(va) * 100) : "-";
    std::string p = "-", verdict = "-";
    if (auto j = judged.find(key); j != judged.end()) {
      if (j->second.has_p_value()) p = fmt::format("{:.3f}", j->second.p_value());
      verdict = wire::EnumText(j->second.verdict());
    }
    std::string step = key.step + (key.point ? fmt::format("@{}", key.point) : "");
    std::cout << fmt::format("{:<16} {:<22} {:>14} {:>14} {:>8} {:>8}  {}\n", step, key.figure, FormatFigure(va, UnitOf(key.figure)),
                             FormatFigure(vb, UnitOf(key.figure)), change, p, verdict);
  }
  return kExitOk;
}

// --last N: decimal digits, 1 or more. CLI11 reads "-1" into a size_t as 2^64 - 1 (strtoull
// wraps it), "0x10" as 16, and 0 would mean no limit: each was accepted without a word.
CLI::Validator RunCount() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 18 && text.find_first_not_of("0123456789") == std::string::npos;
        if (digits && std::stoull(text) >= 1) return "";
        return "\"" + text + "\" is not a count of runs: expected a whole number, 1 or more";
      },
      "N");
}

}  // namespace

std::shared_ptr<HistoryCommands> AddHistoryCommands(CLI::App& app) {
  auto c = std::make_shared<HistoryCommands>();
  c->history = app.add_subcommand("history", "the runs in the history database, their verdicts and change points");
  c->compare = app.add_subcommand("compare", "every figure of two stored runs side by side, with the change and its significance");
  for (CLI::App* cmd : {c->history, c->compare}) {
    cmd->add_option("--db", c->db, "history database (default: history.db in --out)");
    cmd->add_option("--out", c->out_dir, "results directory (default ./iofleet-results)");
  }
  c->history->add_option("--workload", c->workload, "only runs of this workload name");
  c->history->add_option("--label", c->labels, "key=value: only runs with this label (repeatable)");
  c->history->add_option("--last", c->last, "only the last N runs (N 1 or more)")->check(RunCount());
  c->history->add_flag("--changes", c->changes, "change points over each workload's history (E-divisive means)");
  c->history->add_option("--exclude", c->exclude, "RUN_ID: keep this run out of every baseline and change point");
  c->history->add_option("--include", c->include, "RUN_ID: undo --exclude");
  c->compare->add_option("A", c->run_a, "the earlier run id")->required();
  c->compare->add_option("B", c->run_b, "the later run id")->required();
  return c;
}

std::optional<int> RunHistoryCommands(const HistoryCommands& c) {
  if (!c.history->parsed() && !c.compare->parsed()) return std::nullopt;
  const std::string path = HistoryDbPath(c.db, c.out_dir);
  if (std::FILE* f = std::fopen(path.c_str(), "r")) {
    std::fclose(f);
  } else {
    std::cerr << "iofleet: history database " << path
              << ": no such file (runs store their history there; --db FILE reads another; a run with --out DIR keeps DIR/history.db)\n";
    return kExitRejected;
  }
  auto db = HistoryDb::Open(path);
  if (!db.ok()) {
    std::cerr << "iofleet: " << db.status().message() << "\n";
    return db.status().code() == Code::kInvalidArgument ? kExitRejected : kExitFailed;
  }
  if (c.compare->parsed()) return Compare(**db, c.run_a, c.run_b);
  if (!c.exclude.empty() && !c.include.empty()) {
    std::cerr << "iofleet: history: --exclude and --include together: give one\n";
    return kExitRejected;
  }
  if (!c.exclude.empty() || !c.include.empty()) {
    const bool exclude = !c.exclude.empty();
    Status s = (*db)->SetExcluded(exclude ? c.exclude : c.include, exclude);
    if (!s.ok()) {
      std::cerr << "iofleet: " << s.message() << "\n";
      return s.code() == Code::kNotFound ? kExitRejected : kExitFailed;
    }
    std::cout << (exclude ? "excluded " + c.exclude + " from every baseline\n" : "included " + c.include + " again\n");
    return kExitOk;
  }
  auto labels = ParseLabels(c.labels);
  if (!labels) return kExitRejected;
  RunFilter filter;
  filter.workload = c.workload;
  filter.labels = *labels;
  filter.last = c.last;
  return c.changes ? Changes(**db, filter) : RunsTable(**db, filter);
}

}  // namespace iofleet::controller
