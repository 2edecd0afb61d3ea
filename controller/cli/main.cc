// iofleet: the controller. `run` and `validate` a workload against local or remote agents.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <iostream>
#include <set>

#include "core/wire/abseil_mutexes.h"
#include "controller/fleet/agent_list.h"
#include "controller/cli/history_cli.h"
#include "core/base/version.h"
#include "controller/fleet/fleet.h"
#include "controller/cli/show_agents.h"
#include "controller/workload/set_effect.h"
#include "controller/cli/report_command.h"
#include "controller/run/planner.h"
#include "controller/run/run_manager.h"
#include "controller/cli/serve_command.h"
#include "controller/workload/fio_import.h"
#include "controller/workload/yaml_loader.h"
#include "controller/workload/yaml_writer.h"
#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"
#include "core/rules/root_spec.h"
#include "core/rules/validate.h"

namespace ctl = iofleet::controller;

namespace {

void OnInterrupt(int signo) { ctl::g_interrupt.Raise(signo == SIGTERM ? "SIGTERM" : "Ctrl-C"); }

// A YAML workload, or an fio job file translated to one as `fio` says (--allow-unsupported,
// --fio-paths, --fio-section); fio's warnings go to stderr.
ctl::LoadedWorkload LoadAny(const std::string& file, const ctl::FioImportOptions& fio) {
  if (!ctl::IsFioJobFile(file)) {
    ctl::LoadedWorkload loaded = ctl::LoadWorkloadFile(file);
    if (!fio.sections.empty()) loaded.errors.push_back(file + ": --fio-section is for fio job files; this is a YAML workload");
    return loaded;
  }
  ctl::FioImport imported = ctl::ImportFioJobFile(file, fio);
  for (const auto& w : imported.warnings) std::cerr << "iofleet: warning: " << w << "\n";
  ctl::LoadedWorkload loaded;
  loaded.workload = std::move(imported.workload);
  loaded.sources = ctl::SourceMap(file);
  loaded.errors = std::move(imported.errors);
  return loaded;
}

// Loads, applies --set PATH=VALUE in order, and validates, printing every error; false when
// the workload is rejected.
bool Load(const std::string& file, const ctl::FioImportOptions& fio, const std::vector<std::string>& sets,
          iofleet::v1::Workload& out) {
  ctl::LoadedWorkload loaded = LoadAny(file, fio);
  for (const auto& e : loaded.errors) std::cerr << e << "\n";
  if (!loaded.errors.empty()) {
    std::cerr << "iofleet: " << loaded.errors.size() << " error(s) in " << file << "; nothing was started\n";
    return false;
  }
  out = loaded.workload;
  int errors = 0;
  for (const auto& set : sets) {
    size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "iofleet: --set " << set << ": write PATH=VALUE, e.g. --set defaults.jobs=4\n";
      ++errors;
      continue;
    }
    const iofleet::v1::Workload before = out;
    iofleet::Status st = ctl::SetWorkloadPath(out, set.substr(0, eq), set.substr(eq + 1), "--set " + set);
    if (!st.ok()) {
      std::cerr << "iofleet: " << st.message() << "\n";
      ++errors;
      continue;
    }
    if (auto warning = ctl::UnchangingSetWarning(before, out, set.substr(0, eq), set)) std::cerr << "iofleet: " << *warning << "\n";
  }
  if (!sets.empty() && errors == 0) {
    for (const auto& v : iofleet::rules::Validate(out)) {
      std::cerr << "iofleet: with --set: " << v.path << ": " << v.message << "\n";
      ++errors;
    }
  }
  if (errors) {
    std::cerr << "iofleet: " << errors << " error(s); nothing was started\n";
    return false;
  }
  return true;
}

// `run` refuses a target.root the local agent was not given: so does `validate` with the same
// --local-root options (the agent names the first unnamed one "default").
// The roots a workload names: its target's, and every `ROOT:path` of its files and copy steps
// (groups' steps included).
std::set<std::string> RootsNamed(const iofleet::v1::Workload& workload) {
  std::set<std::string> roots = {workload.target().root().empty() ? "default" : workload.target().root()};
  std::function<void(const google::protobuf::RepeatedPtrField<iofleet::v1::Step>&)> walk = [&](const auto& steps) {
    for (const auto& step : steps) {
      std::vector<std::string> places;
      if (step.has_files()) places.push_back(step.files().dir());
      if (step.has_copy()) places.insert(places.end(), {step.copy().from(), step.copy().to()});
      for (const auto& text : places) {
        std::string root = iofleet::rules::ParseStepPlace(text).root;
        if (!root.empty()) roots.insert(root);
      }
      if (step.has_group()) walk(step.group().steps());
    }
  };
  walk(workload.steps());
  return roots;
}

bool LocalRootsHold(const std::vector<std::string>& specs, const iofleet::v1::Workload& workload) {
  std::set<std::string> given;
  std::string names;
  bool unnamed_seen = false;
  for (const auto& spec : specs) {
    std::string name = iofleet::rules::ParseRootSpec(spec).name;
    if (name.empty()) {
      if (unnamed_seen) continue;
      name = "default";
      unnamed_seen = true;
    }
    given.insert(name);
    names += (names.empty() ? "" : ", ") + name;
  }
  bool hold = true;
  for (const auto& wanted : RootsNamed(workload)) {
    if (given.count(wanted)) continue;
    std::cerr << "iofleet: the workload uses root \"" << wanted << "\", which is not one of the local agent's roots (" << names
              << "; add --local-root " << wanted << "=DIR)\n";
    hold = false;
  }
  return hold;
}

// The command line: what CLI11 parses each subcommand's options into, and the subcommands.
struct CommandLine {
  ctl::RunOptions run;      // run's; validate takes --local-root and --local-config into it as run does
  std::string agents_spec;  // run --agents
  std::vector<std::string> sets, labels, notes;
  std::string pushgateway, compare_to;
  bool force_compare = false;
  double max_regression = 5;
  std::string progress = "auto";
  std::string tls_dir, tls_server_name;  // run, agents and validate
  bool allow_unsupported = false;         // run and validate
  std::string fio_paths = "as-written";   // run and validate: --fio-paths
  std::vector<std::string> fio_sections;  // run and validate: --fio-section
  std::string list_spec;                  // agents --agents
  std::string validate_file, validate_agents;
  ctl::ReportCommandOptions report;
  ctl::ServeCommandOptions serve;
  CLI::App* run_cmd = nullptr;
  CLI::App* agents_cmd = nullptr;
  CLI::App* validate_cmd = nullptr;
  CLI::App* report_cmd = nullptr;
  CLI::App* serve_cmd = nullptr;
};

constexpr const char* kTlsDirHelp = "mutual TLS with the agents: DIR holds ca.pem, cert.pem, key.pem";
constexpr const char* kServerNameHelp = "the name agents' certificates must carry (default: the host part of each address)";
constexpr const char* kFioPathsHelp =
    "fio job files: as-written (default: an absolute filename= or directory= is refused) | relative (an absolute file is "
    "taken as its base name in each agent's run directory, an absolute directory as that directory; never a device)";
constexpr const char* kFioSectionHelp =
    "fio job files: run only this job section, with every [global] (fio's --section; repeatable: several run as fio runs "
    "them)";
constexpr const char* kAllowUnsupportedHelp = "fio job files: leave out options iofleet cannot honour, with a warning, instead of "
                                              "refusing the file (commands in the file are never run)";
constexpr const char* kLocalOnlyError =
    "iofleet: --local-root and --local-config are for the local agent; remote agents have their own --root and --config\n";

ctl::FioImportOptions FioOptionsOf(const CommandLine& cl) {
  return {cl.allow_unsupported, cl.fio_paths == "relative", cl.fio_sections};
}

void AddRunCommand(CLI::App& app, CommandLine& cl) {
  ctl::RunOptions& run = cl.run;
  CLI::App* run_cmd = cl.run_cmd = app.add_subcommand("run", "run a workload on local or remote agents");
  run_cmd->add_option("workload", run.workload_file, "workload YAML file, or fio job file (.fio)")->required();
  run_cmd->add_option("--agents", cl.agents_spec,
                      "agents: host:port,... | node[01-16]:7070 | [::1]:port | unix:PATH | @file.yaml | dns:NAME:PORT "
                      "(default: a local child agent)");
  run_cmd->add_option("--local-root", run.local_roots, "[NAME=]DIR for the local agent (repeatable; default ./iofleet-data)");
  run_cmd->add_flag("--create-local-root", run.create_local_roots, "make --local-root directories that do not exist (else refused)");
  run_cmd->add_option("--local-config", run.local_config, "the local agent's config file (e.g. deploy/agent.example.yaml)");
  run_cmd->add_option("--out", run.out_dir, "results directory (default ./iofleet-results)");
  run_cmd->add_option("--set", cl.sets, "PATH=VALUE: override any field, e.g. defaults.jobs=4 or steps[read].io.runtime=10s (repeatable)");
  run_cmd->add_option("--label", cl.labels, "KEY=VALUE: describe the run (cluster, filesystem, build); in report.json and "
                                            "every pushed figure (repeatable)");
  run_cmd->add_option("--pushgateway", cl.pushgateway, "http://HOST:PORT: push each step's final figures there when the run ends");
  run_cmd->add_option("--tls-dir", cl.tls_dir, kTlsDirHelp);
  run_cmd->add_option("--tls-server-name", cl.tls_server_name, kServerNameHelp);
  run_cmd->add_flag("--allow-unsupported", cl.allow_unsupported, kAllowUnsupportedHelp);
  run_cmd->add_option("--fio-paths", cl.fio_paths, kFioPathsHelp)->check(CLI::IsMember({"as-written", "relative"}));
  run_cmd->add_option("--fio-section", cl.fio_sections, kFioSectionHelp);
  run_cmd->add_option("--db", run.db, "history database (default: history.db in --out); every run is recorded there");
  run_cmd->add_option("--note", cl.notes, "KEY=VALUE recorded with the run (e.g. kernel=6.18); selects no baseline (repeatable)");
  run_cmd->add_option("--compare-to", cl.compare_to,
                      "judge the run against its history: last | RUN_ID | mean-of:N | median-of:N | best-of:N; a regression exits 3");
  run_cmd->add_flag("--force-compare", cl.force_compare,
                    "judge against baselines whose effective workload differs (else: not comparable); the report says it was forced");
  run_cmd->add_option("--max-regression", cl.max_regression, "PCT: a significant change is a regression only beyond this (default 5)")
      ->check(CLI::Range(0.0, 100.0));
  run_cmd->add_option("--progress", cl.progress, "live view on stderr: auto (tty on a terminal, plain otherwise) | tty | plain | json | none")
      ->check(CLI::IsMember({"auto", "tty", "plain", "json", "none"}));
  run_cmd->add_option("--metrics", run.metrics_address, "serve the run's live figures at http://HOST:PORT/metrics while it goes");
}

void AddAgentsCommand(CLI::App& app, CommandLine& cl) {
  CLI::App* agents_cmd = cl.agents_cmd =
      app.add_subcommand("agents", "show each agent's version, engines, roots, round trip and clock offset");
  agents_cmd->add_option("--agents", cl.list_spec, "agents: host:port,... | node[01-16]:7070 | @file.yaml | dns:NAME:PORT")->required();
  agents_cmd->add_option("--tls-dir", cl.tls_dir, kTlsDirHelp);
  agents_cmd->add_option("--tls-server-name", cl.tls_server_name, kServerNameHelp);
}

void AddValidateCommand(CLI::App& app, CommandLine& cl) {
  CLI::App* validate_cmd = cl.validate_cmd =
      app.add_subcommand("validate", "check a workload; print its expanded plan and every default filled in");
  validate_cmd->add_option("workload", cl.validate_file, "workload YAML file, or fio job file (.fio)")->required();
  validate_cmd->add_flag("--allow-unsupported", cl.allow_unsupported, kAllowUnsupportedHelp);
  validate_cmd->add_option("--fio-paths", cl.fio_paths, kFioPathsHelp)->check(CLI::IsMember({"as-written", "relative"}));
  validate_cmd->add_option("--fio-section", cl.fio_sections, kFioSectionHelp);
  validate_cmd->add_option("--set", cl.sets, "PATH=VALUE: override any field (repeatable)");
  validate_cmd->add_option("--agents", cl.validate_agents, "plan for these agents (their names and overrides); default: one local agent");
  validate_cmd->add_option("--tls-dir", cl.tls_dir, kTlsDirHelp);
  validate_cmd->add_option("--tls-server-name", cl.tls_server_name, kServerNameHelp);
  // As `run` takes them, so that one command line can be checked before it is run.
  validate_cmd->add_option("--local-root", cl.run.local_roots, "[NAME=]DIR: plan for the local agent with these roots (repeatable)");
  validate_cmd->add_option("--local-config", cl.run.local_config, "the local agent's config file (accepted as `run` takes it)");
}

void AddReportCommand(CLI::App& app, CommandLine& cl) {
  ctl::ReportCommandOptions& report = cl.report;
  CLI::App* report_cmd = cl.report_cmd = app.add_subcommand("report", "render a stored run again from its report.json");
  report_cmd->add_option("run", report.run, "the run's directory (OUT/<run-id>), its report.json, or a run id in the history")->required();
  report_cmd->add_option("--format", report.format, "json | csv | md | html (default md)");
  report_cmd->add_option("--out", report.out, "write to FILE (default: standard output)");
  report_cmd->add_option("--db", report.db, "the history database a RUN_ID is read from (default: iofleet-results/history.db)");
}

void AddServeCommand(CLI::App& app, CommandLine& cl) {
  CLI::App* serve_cmd = cl.serve_cmd =
      app.add_subcommand("serve", "the nightly regression service: scheduled suites, history, a web page, an API, /metrics");
  serve_cmd->add_option("--config", cl.serve.config, "serve.yaml (docs/SERVE.md)")->required();
  serve_cmd->add_flag("--check", cl.serve.check, "validate the config and the workloads it names; start nothing");
}

// --tls-dir's files, for every command that talks to agents; false (printed) when refused.
bool ReadTls(const CommandLine& cl, std::optional<iofleet::TlsFiles>& tls) {
  if (!cl.tls_dir.empty()) {
    auto files = iofleet::ReadTlsDir(cl.tls_dir);
    if (!files.ok()) {
      std::cerr << "iofleet: " << files.status().message() << "\n";
      return false;
    }
    tls = *files;
    tls->server_name = cl.tls_server_name;
  } else if (!cl.tls_server_name.empty()) {
    std::cerr << "iofleet: --tls-server-name needs --tls-dir\n";
    return false;
  }
  return true;
}

// `agents`: each agent's version, engines, roots, round trip and clock offset.
int AgentsCommand(const CommandLine& cl, const std::optional<iofleet::TlsFiles>& tls) {
  auto agents = ctl::ParseAgentList(cl.list_spec);
  if (!agents.ok()) {
    std::cerr << "iofleet: " << agents.status().message() << "\n";
    return iofleet::kExitRejected;
  }
  return ctl::ShowAgents(*agents, tls);
}

// `validate`: the workload checked and planned for its agents; the plan and the effective workload
// printed.
int ValidateCommand(const CommandLine& cl, const std::optional<iofleet::TlsFiles>& tls) {
  iofleet::v1::Workload workload;
  if (!Load(cl.validate_file, FioOptionsOf(cl), cl.sets, workload)) return iofleet::kExitRejected;
  if (!cl.validate_agents.empty() && (!cl.run.local_roots.empty() || !cl.run.local_config.empty())) {
    std::cerr << kLocalOnlyError;
    return iofleet::kExitRejected;
  }
  if (!cl.run.local_roots.empty() && !LocalRootsHold(cl.run.local_roots, workload)) return iofleet::kExitRejected;
  std::vector<ctl::AgentId> ids = {{"local", "local"}};
  if (!cl.validate_agents.empty()) {
    auto addresses = ctl::ParseAgentList(cl.validate_agents);
    if (!addresses.ok()) {
      std::cerr << "iofleet: " << addresses.status().message() << "\n";
      return iofleet::kExitRejected;
    }
    auto fleet = ctl::ConnectFleet(*addresses, tls);  // for the agents' names
    if (!fleet.ok()) return iofleet::kExitFailed;
    ids.clear();
    for (const auto& a : *fleet) ids.push_back({a->name, a->client->address()});
  }
  auto plan = ctl::MakePlan(workload, ids);
  if (!plan.ok()) {
    std::cerr << "iofleet: " << cl.validate_file << ": " << plan.status().message() << "\n";
    return iofleet::kExitRejected;
  }
  // The plan as comments, then the effective workload: the output is itself a workload (for a
  // job file, its translation, which can be saved and edited as YAML).
  if (ctl::IsFioJobFile(cl.validate_file)) std::cout << "# " << cl.validate_file << " (fio job file) as an iofleet workload\n";
  std::cout << ctl::DescribePlan(workload, *plan, ids) << ctl::ToYaml(iofleet::rules::Effective(workload));
  return iofleet::kExitOk;
}

// --note KEY=VALUE into run.notes (after run.labels): false (printed) when one is refused.
bool ReadNotes(const std::vector<std::string>& notes, ctl::RunOptions& run) {
  for (const auto& note : notes) {
    const size_t eq = note.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "iofleet: --note " << note << ": expected KEY=VALUE\n";
      return false;
    }
    const std::string key = note.substr(0, eq);
    // The history keeps labels and notes by key: one key, one meaning.
    const bool labelled = std::any_of(run.labels.begin(), run.labels.end(), [&](const auto& l) { return l.first == key; });
    if (labelled || run.notes.count(key)) {
      std::cerr << "iofleet: --note " << note << ": " << key << " is already given" << (labelled ? " as a --label" : "") << "\n";
      return false;
    }
    run.notes[key] = note.substr(eq + 1);
  }
  return true;
}

// --compare-to and the options that apply to it into run.verdicts: false (printed) when refused.
bool ReadCompareTo(const CommandLine& cl, ctl::RunOptions& run) {
  for (const char* needs_compare : {"--max-regression", "--force-compare"}) {
    if (cl.compare_to.empty() && cl.run_cmd->count(needs_compare)) {
      std::cerr << "iofleet: " << needs_compare << " applies to --compare-to, which is not given\n";
      return false;
    }
  }
  if (cl.compare_to.empty()) return true;
  auto reference = ctl::Reference::Parse(cl.compare_to);
  if (!reference.ok()) {
    std::cerr << "iofleet: " << reference.status().message() << "\n";
    return false;
  }
  run.verdicts = ctl::VerdictOptions{*reference, 0.05, cl.max_regression, cl.force_compare};
  return true;
}

// `run`: its options checked and the workload loaded (nothing started before either), then the run.
int RunCommand(CommandLine& cl, const std::optional<iofleet::TlsFiles>& tls) {
  ctl::RunOptions& run = cl.run;
  std::vector<std::string> option_errors;
  run.labels = ctl::ParseRunLabels(cl.labels, option_errors);
  if (!cl.pushgateway.empty()) {
    auto url = ctl::ParsePushgatewayUrl(cl.pushgateway);
    if (url.ok()) run.pushgateway = *url;
    else option_errors.push_back(url.status().message());
  }
  for (const auto& e : option_errors) std::cerr << "iofleet: " << e << "\n";
  if (!option_errors.empty()) return iofleet::kExitRejected;
  if (!Load(run.workload_file, FioOptionsOf(cl), cl.sets, run.workload)) return iofleet::kExitRejected;
  if (!cl.agents_spec.empty()) {
    if (!run.local_roots.empty() || !run.local_config.empty()) {
      std::cerr << kLocalOnlyError;
      return iofleet::kExitRejected;
    }
    auto agents = ctl::ParseAgentList(cl.agents_spec);
    if (!agents.ok()) {
      std::cerr << "iofleet: " << agents.status().message() << "\n";
      return iofleet::kExitRejected;
    }
    run.agents = *agents;
  }
  run.tls = tls;
  if (!ReadNotes(cl.notes, run) || !ReadCompareTo(cl, run)) return iofleet::kExitRejected;
  run.progress = *ctl::ParseProgressMode(cl.progress);  // checked by CLI11 above
  struct sigaction sa{};
  sa.sa_handler = OnInterrupt;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return ctl::Run(run);
}

}  // namespace

int main(int argc, char** argv) {
  iofleet::wire::SkipAbseilDeadlockDetection();
  CLI::App app{"iofleet: distributed storage benchmark controller"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("iofleet ") + iofleet::VersionText(), "print the version and git revision");
  // In this order in --help.
  CommandLine cl;
  AddRunCommand(app, cl);
  AddAgentsCommand(app, cl);
  AddValidateCommand(app, cl);
  auto history_commands = ctl::AddHistoryCommands(app);
  AddReportCommand(app, cl);
  AddServeCommand(app, cl);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? iofleet::kExitOk : iofleet::kExitRejected;
  }
  if (auto code = ctl::RunHistoryCommands(*history_commands)) return *code;

  if (cl.report_cmd->parsed()) return ctl::ReportCommand(cl.report);
  if (cl.serve_cmd->parsed()) return ctl::ServeCommand(cl.serve);
  std::optional<iofleet::TlsFiles> tls;
  if (!ReadTls(cl, tls)) return iofleet::kExitRejected;
  if (cl.agents_cmd->parsed()) return AgentsCommand(cl, tls);
  if (cl.validate_cmd->parsed()) return ValidateCommand(cl, tls);
  return RunCommand(cl, tls);
}
