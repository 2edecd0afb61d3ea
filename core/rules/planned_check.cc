#include "core/rules/planned_check.h"

#include <algorithm>

#include <cstdio>
#include <cstdlib>

#include "core/base/checked.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"
#include "core/rules/field_bounds.h"
#include "core/rules/non_io_steps.h"

namespace iofleet::rules {
namespace {

// At most this many violations are spelled out in the answer: a hostile request could carry
// millions, and one screenful says what is wrong.
constexpr size_t kMaxListed = 20;

// What a resolved io step must carry: the agent has no defaults of its own to fall back on.
void RequireResolved(const v1::IoSpec& io, const std::string& p, std::vector<Violation>& out) {
  if (!io.has_engine()) out.push_back({p + ".engine", "is missing: a planned step names its engine"});
  if (!io.has_file_layout()) out.push_back({p + ".file_layout", "is missing: a planned step names its file layout"});
  if (!io.has_queue_depth()) out.push_back({p + ".queue_depth", "is missing: a planned step has a queue depth of at least 1"});
  if (!io.has_jobs()) out.push_back({p + ".jobs", "is missing: a planned step gives this agent its number of jobs"});
  if (!io.has_block_size() && io.block_size_split_size() == 0) {
    out.push_back({p + ".block_size", "is missing: a planned step has a block size (or block_size_split)"});
  }
  if (!io.has_file_size()) out.push_back({p + ".file_size", "is missing: a planned step has total_size turned into file_size"});
  if (io.has_total_size()) out.push_back({p + ".total_size", "is set: the plan turns total_size into each agent's file_size"});
  if (io.has_total_jobs()) out.push_back({p + ".total_jobs", "is set: the plan spreads total_jobs into each agent's jobs"});
}

// What only a planned io step has: this agent's jobs, and their place among all the run's jobs.
void CheckPlannedIo(const v1::PlannedStep& step, const std::string& path, std::vector<Violation>& out) {
  const v1::IoSpec& io = step.io();
  const std::string p = path + ".io";
  // An agent left without a job by total_jobs (fewer jobs than agents) sits the step out but
  // still takes part in its barriers: 0 jobs is a plan, and its file is never made.
  const bool sits_out = io.has_jobs() && io.jobs() == 0;
  std::vector<Violation> bounds;
  CheckFieldBounds(step, path, ZeroMeans::kValue, bounds);
  for (auto& v : bounds) {
    if (sits_out && (v.path == p + ".jobs" || (v.path == p + ".file_size" && io.file_size() == 0))) continue;
    out.push_back(std::move(v));
  }
  RequireResolved(io, p, out);
  ValidateIoLevel(io, p, out);
  const auto place = [&](int field) { return p + "." + v1::IoSpec::descriptor()->FindFieldByNumber(field)->name(); };
  if (sits_out) {
    if (!io.has_op() || io.op() == v1::OP_UNSPECIFIED) out.push_back({p + ".op", "needs an op"});
    return;
  }
  const bool global = io.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL;
  // With the run's job count known, the one-block-per-job rule covers the global file too.
  if (!ValidateResolvedIo(io, place, out, global ? step.global_jobs() : 0)) return;
  if (IsCutStep(io) && io.runtime() == 0) out.push_back({p + ".runtime", "is 0: a step cut into windows is time-based"});
  if (IsCutStep(io) && io.jobs() > kMaxSearchJobs) {
    out.push_back({p + ".jobs", std::to_string(io.jobs()) + " jobs in a step cut into windows: at most " + std::to_string(kMaxSearchJobs) +
                                    " per agent (each keeps a snapshot of its counters per cut)"});
  }
  // The one rule of Inapplicable that is unsafe on the agent (the others name fields it ignores).
  std::string psync = Inapplicable(io, v1::IoSpec::kQueueDepthFieldNumber);
  if (!psync.empty()) out.push_back({p + ".queue_depth", "queue_depth " + std::to_string(io.queue_depth()) + ": " + psync});
  if (global && io.jobs() > 0) {
    auto last = CheckedAdd(step.global_first_job(), io.jobs(), "global_first_job + jobs");
    if (step.global_jobs() == 0) {
      out.push_back({path + ".global_jobs", "is 0: a shared_global step names how many jobs share the file"});
    } else if (step.global_first_job() >= step.global_jobs() || !last.ok() || *last > step.global_jobs()) {
      out.push_back({path + ".global_first_job", "jobs " + std::to_string(step.global_first_job()) + " to " +
                                                     std::to_string(uint64_t{step.global_first_job()} + io.jobs() - 1) +
                                                     " do not fit among the run's " + std::to_string(step.global_jobs()) +
                                                     " jobs"});
    }
  }
  if (io.read_from() == v1::READ_FROM_NEXT_AGENT && step.read_from_agent().empty()) {
    out.push_back({path + ".read_from_agent", "is empty: read_from: next_agent names the agent whose files to read"});
  }
}

// A planned step with streams: each stream is checked as a planned io step of its own (with
// its path), and must have the step's window, a name of its own, and no streams; the step
// itself holds its step-level fields and streams only.
void CheckPlannedStreams(const v1::PlannedStep& step, const std::string& path, std::vector<Violation>& out) {
  const v1::IoSpec& io = step.io();
  const std::string p = path + ".io";
  const bool cut = IsCutStep(io);
  if (io.streams_size() > kMaxStreams) {
    out.push_back({p + ".streams", std::to_string(io.streams_size()) + " streams: at most " + std::to_string(kMaxStreams)});
    return;
  }
  if (!step.read_from_agent().empty() || step.global_jobs() || step.global_first_job()) {
    out.push_back({path, "a step with streams has no read_from_agent or global jobs (streams plan neither)"});
  }
  v1::IoSpec step_level = io;
  KeepStepLevel(step_level);
  if (step_level.SerializeAsString() != io.SerializeAsString()) {
    out.push_back({p, "a step with streams holds its runtime, ramp, deadline, stonewall, target_latency, curve, steady and streams only"});
  }
  std::vector<std::string> names;
  uint64_t cut_jobs = 0;  // each keeps a snapshot of its counters per cut
  for (int k = 0; k < io.streams_size(); ++k) {
    const v1::IoSpec& stream = io.streams(k);
    const std::string sp = p + ".streams[" + std::to_string(k) + "]";
    if (!IsStepName(stream.name()) || stream.name().empty() || stream.name().size() > 64) {
      out.push_back({sp + ".name", "must match [a-z0-9_-]+ (at most 64 characters)"});
    } else if (std::find(names.begin(), names.end(), stream.name()) != names.end()) {
      out.push_back({sp + ".name", "is used twice in the step"});
    }
    names.push_back(stream.name());
    if (stream.streams_size() > 0) {
      out.push_back({sp + ".streams", "streams do not nest"});
      continue;
    }
    if (stream.runtime() != io.runtime() || stream.ramp() != io.ramp() || stream.deadline() != io.deadline() ||
        stream.stonewall() != io.stonewall()) {
      out.push_back({sp, "has another runtime, ramp, deadline or stonewall than its step: they are the step's"});
    }
    // A step cut into windows cuts every stream's jobs at once, from one window's opening.
    if (stream.target_latency().SerializeAsString() != io.target_latency().SerializeAsString() ||
        stream.curve().SerializeAsString() != io.curve().SerializeAsString() ||
        stream.steady().SerializeAsString() != io.steady().SerializeAsString() || IsCutStep(stream) != cut) {
      out.push_back({sp, "is cut into windows otherwise than its step: target_latency, curve and steady are the step's"});
    }
    if (cut && stream.start_delay() > 0) out.push_back({sp + ".start_delay", "delays a stream of a step cut into windows"});
    cut_jobs += stream.jobs();
    if (stream.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL || stream.read_from() == v1::READ_FROM_NEXT_AGENT) {
      out.push_back({sp, "shared_global and read_from: next_agent are not available in a stream"});
    }
    // Checked as the planned io step it is run as, its paths put back under the stream.
    v1::PlannedStep alone;
    alone.set_name(step.name());
    *alone.mutable_io() = stream;
    std::vector<Violation> found;
    CheckPlannedIo(alone, path, found);
    for (Violation& v : found) {
      if (v.path.rfind(p, 0) == 0) v.path = sp + v.path.substr(p.size());
      out.push_back(std::move(v));
    }
  }
  // A depth search over streams searches the stream it names (a stream's own depth is its own).
  const v1::TargetLatency& target = io.target_latency();
  const bool vary_depth = io.has_target_latency() && target.vary() == v1::SEARCH_VARY_QUEUE_DEPTH;
  if (vary_depth != target.has_stream()) {
    out.push_back({p + ".target_latency.stream", vary_depth ? "is missing: a queue depth search over streams names its stream"
                                                            : "is set, but the step does not search a queue depth"});
  } else if (vary_depth && std::find(names.begin(), names.end(), target.stream()) == names.end()) {
    out.push_back({p + ".target_latency.stream", "\"" + target.stream().substr(0, 64) + "\" is not one of the step's streams"});
  }
  if (cut && cut_jobs > kMaxSearchJobs) {
    out.push_back({p + ".streams", std::to_string(cut_jobs) + " jobs in a step cut into windows: at most " + std::to_string(kMaxSearchJobs) +
                                       " per agent (each keeps a snapshot of its counters per cut)"});
  }
}

// The name as shown in messages, or "" when it is not one a workload could have written.
std::string ShownName(const v1::PlannedStep& step) { return IsStepName(step.name()) ? step.name() : ""; }

// Control bytes (a NUL, a newline from the wire) as \xNN, so a message stays one readable line.
std::string Printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

void CheckPlannedStep(const v1::PlannedStep& step, const std::string& path, const std::string& target_root,
                      std::vector<Violation>& out) {
  if (!IsStepName(step.name())) out.push_back({path + ".name", "must match [a-z0-9_-]+ (the plan names every step)"});
  if (!step.read_from_agent().empty() && !IsSinglePathComponent(step.read_from_agent())) {
    out.push_back({path + ".read_from_agent", "must be a single path component (an agent's directory in the run)"});
  }
  if (step.has_io() && step.io().streams_size() > 0) {
    CheckPlannedStreams(step, path, out);
    return;
  }
  if (step.has_io()) {
    CheckPlannedIo(step, path, out);
    if (step.io().target_latency().has_stream()) {
      out.push_back({path + ".io.target_latency.stream", "is set, but the step has no streams"});
    }
    return;
  }
  CheckFieldBounds(step, path, ZeroMeans::kValue, out);
  if (!step.read_from_agent().empty()) out.push_back({path + ".read_from_agent", "is set on a step that is not io"});
  // The non-io step rules, on the step as a workload would hold it.
  v1::Step as_written;
  switch (step.kind_case()) {
    case v1::PlannedStep::kFiles:
      *as_written.mutable_files() = step.files();
      if (step.files().dir().empty()) out.push_back({path + ".files.dir", "is empty: the plan names the tree's place"});
      if (step.files().ops_size() == 0) out.push_back({path + ".files.ops", "is empty: the plan lists the phases"});
      break;
    case v1::PlannedStep::kCopy: *as_written.mutable_copy() = step.copy(); break;
    case v1::PlannedStep::kReadahead: *as_written.mutable_readahead() = step.readahead(); break;
    case v1::PlannedStep::kHook: *as_written.mutable_hook() = step.hook(); break;
    case v1::PlannedStep::kIo:  // checked above
    case v1::PlannedStep::kSync:
    case v1::PlannedStep::kDropCaches:
    case v1::PlannedStep::KIND_NOT_SET:  // a step the controller runs itself (sleep): nothing to set up
      return;
  }
  ValidateNonIoStep(as_written, path, target_root, out);
}

std::vector<Violation> CheckPrepareRequest(const v1::PrepareRequest& request) {
  std::vector<Violation> out;
  if (!IsSinglePathComponent(request.run_id())) {
    out.push_back({"run_id", "must be a single path component ([A-Za-z0-9._-]+, at most 64 characters, not . or ..)"});
  }
  if (!IsSinglePathComponent(request.agent_name())) {
    out.push_back({"agent_name", "must be a single path component ([A-Za-z0-9._-]+, at most 64 characters, not . or ..)"});
  }
  // A label of the agent's metrics: the workload name's own rule, and bounded.
  const std::string& workload = request.workload_name();
  if (workload.size() > 128 || !std::all_of(workload.begin(), workload.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      })) {
    out.push_back({"workload_name", "must match [a-z0-9-]+ (at most 128 characters)"});
  }
  // Only compared with the run the agent holds, but bounded like everything from the wire.
  constexpr int kMaxEarlierRuns = 1024;
  if (request.earlier_run_ids_size() > kMaxEarlierRuns) {
    out.push_back({"earlier_run_ids", "lists " + std::to_string(request.earlier_run_ids_size()) + " runs: at most " +
                                          std::to_string(kMaxEarlierRuns)});
  } else {
    for (int i = 0; i < request.earlier_run_ids_size(); ++i) {
      if (IsSinglePathComponent(request.earlier_run_ids(i))) continue;
      out.push_back({"earlier_run_ids[" + std::to_string(i) + "]",
                     "must be a run id: a single path component ([A-Za-z0-9._-]+, at most 64 characters, not . or ..)"});
    }
  }
  ValidateTarget(request.target(), out);
  CheckFieldBounds(request, "", ZeroMeans::kValue, out, {"steps", "run_id", "agent_name", "workload_name", "earlier_run_ids"});
  if (request.steps_size() == 0) out.push_back({"steps", "a plan needs at least one step"});
  const std::string target_root = request.target().root().empty() ? "default" : request.target().root();
  for (int i = 0; i < request.steps_size(); ++i) {
    CheckPlannedStep(request.steps(i), "steps[" + std::to_string(i) + "]", target_root, out);
  }
  return out;
}

Status CheckPrepare(const v1::PrepareRequest& request, const std::string& agent_name) {
  std::vector<Violation> violations = CheckPrepareRequest(request);
  if (violations.empty()) return Status::Ok();
  // One line per violation, each whole: the controller prints the message as it comes.
  const std::string who = "agent " + agent_name + ": refused plan: ";
  std::string message;
  for (size_t k = 0; k < violations.size() && k < kMaxListed; ++k) {
    const Violation& v = violations[k];
    std::string step_name;
    if (v.path.rfind("steps[", 0) == 0) {
      int index = std::atoi(v.path.c_str() + 6);
      if (index >= 0 && index < request.steps_size()) step_name = ShownName(request.steps(index));
    }
    message += (k ? "\n" : "") + who + v.path + (step_name.empty() ? "" : " (step " + step_name + ")") + ": " +
               Printable(v.message);
  }
  if (violations.size() > kMaxListed) {
    message += "\n" + who + "and " + std::to_string(violations.size() - kMaxListed) + " more";
  }
  return InvalidArgument(message);
}

}  // namespace iofleet::rules
