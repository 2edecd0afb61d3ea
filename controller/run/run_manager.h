// Drives one run: connect, check, prepare every agent, run each step on all agents in lockstep,
// merge their exact results, stop (clean up) every agent, write the report.
#pragma once

#include <atomic>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/history/verdict.h"
#include "controller/push/pushgateway_url.h"
#include "controller/live/progress_view.h"
#include "controller/report/report_model.h"
#include "controller/run/interrupt.h"
#include "controller/push/run_labels.h"
#include "core/base/exit_code.h"
#include "core/base/tls_files.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

// Raised by `iofleet run`'s SIGINT and SIGTERM handler; the run manager stops the agents and
// reports "aborted".
extern Interrupt g_interrupt;

struct RunOptions {
  std::string workload_file;
  v1::Workload workload;               // loaded and validated
  std::vector<std::string> agents;     // addresses; empty: the local child agent
  std::vector<std::string> local_roots;
  // --create-local-root: make missing --local-root directories (else a missing one, a typo as
  // often as not, is refused, as a remote agent refuses a missing --root).
  bool create_local_roots = false;
  std::string local_config;  // the local agent's --config
  std::string out_dir = "iofleet-results";
  std::optional<TlsFiles> tls;
  uint64_t lease_ns = 10'000'000'000;
  std::string db;                             // --db; empty: OUT/history.db
  std::map<std::string, std::string> notes;   // --note: recorded with the run, select nothing
  std::optional<VerdictOptions> verdicts;     // --compare-to given
  RunLabels labels;                        // --label KEY=VALUE
  std::optional<PushgatewayUrl> pushgateway;  // --pushgateway URL: push the final figures there
  ProgressMode progress = ProgressMode::kAuto;  // --progress
  std::string metrics_address;                  // --metrics HOST:PORT; empty: no /metrics
  const Interrupt* interrupt = &g_interrupt;    // raised: stop the agents, report "aborted"
  std::string run_id;                           // empty: a new one (NewRunId)
  // Runs this controller started and lost (iofleet serve killed and started again): an agent
  // still busy with one of them is waited for, until that run's lease ends (lease_ns + 60 s at
  // most), instead of failing the run "busy". An agent busy with any other run fails it at once.
  std::vector<std::string> earlier_run_ids;
  std::ostream* log = &std::cerr;               // errors and warnings, one "iofleet: ..." line each
  std::ostream* out = &std::cout;               // the console summary
};

int Run(const RunOptions& options);

// "20261130-054512-a1b2c3": sortable, unique, one path component.
std::string NewRunId();

}  // namespace iofleet::controller
