#include "controller/run/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "controller/workload/yaml_loader.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"
#include "core/rules/planned_check.h"
#include "core/rules/validate.h"

namespace iofleet::controller {
namespace {

// Each agent's share of a step's jobs: its own jobs, or its round-robin share of total_jobs.
// Returns the jobs of all agents together.
uint64_t SpreadJobs(std::vector<v1::IoSpec*>& specs) {
  uint64_t total_jobs = 0;
  const uint64_t count = specs.size();
  for (size_t i = 0; i < specs.size(); ++i) {
    v1::IoSpec& io = *specs[i];
    if (io.has_total_jobs()) {
      const uint64_t n = io.total_jobs();
      io.set_jobs(static_cast<uint32_t>(n / count + (i < n % count ? 1 : 0)));
      io.clear_total_jobs();
    }
    total_jobs += io.jobs();
  }
  return total_jobs;
}

// A step with streams on every agent: each stream planned as a step is (its jobs spread, its
// total_size split over them), and the step keeps its step-level fields beside them.
Status PlanStreams(const rules::LeafStep& leaf, const std::vector<AgentId>& agents, std::vector<v1::IoSpec>& resolved) {
  const int streams = resolved[0].streams_size();
  for (size_t i = 1; i < resolved.size(); ++i) {
    bool same = resolved[i].streams_size() == streams;
    for (int k = 0; same && k < streams; ++k) same = resolved[i].streams(k).name() == resolved[0].streams(k).name();
    if (!same) {
      return InvalidArgument(leaf.path + ".io.streams: agent " + agents[i].name + " would run other streams than agent " +
                             agents[0].name + " (every agent runs the step's streams: overrides may change their fields only)");
    }
  }
  for (int k = 0; k < streams; ++k) {
    std::vector<v1::IoSpec*> specs;
    for (auto& io : resolved) specs.push_back(io.mutable_streams(k));
    const uint64_t total_jobs = SpreadJobs(specs);
    for (v1::IoSpec* spec : specs) {
      auto planned = rules::PlanIo(*spec, total_jobs);
      if (!planned.ok()) return InvalidArgument(leaf.path + ".io.streams[" + std::to_string(k) + "]: " + planned.status().message());
      *spec = std::move(*planned);
    }
  }
  for (auto& io : resolved) rules::NeutralizeInapplicable(io);
  return Status::Ok();
}

Status PlanPoint(uint32_t point, const std::vector<rules::LeafStep>& leaves, const std::vector<v1::Workload>& workloads,
                 const std::vector<AgentId>& agents, std::vector<std::vector<v1::PlannedStep>>& out) {
  for (const rules::LeafStep& leaf : leaves) {
    // Each agent's jobs: its own, or its round-robin share of total_jobs.
    std::vector<v1::IoSpec> resolved(agents.size());
    bool io_step = false;
    for (size_t i = 0; i < agents.size(); ++i) {
      const v1::Step& mine = rules::StepOf(workloads[i], leaf);
      if (!mine.has_io()) continue;
      resolved[i] = rules::ResolveStepIo(workloads[i], mine);
      io_step = true;
    }
    const bool streams = io_step && resolved[0].streams_size() > 0;
    if (streams) IOFLEET_RETURN_IF_ERROR(PlanStreams(leaf, agents, resolved));
    std::vector<v1::IoSpec*> specs;
    for (auto& io : resolved) specs.push_back(&io);
    const uint64_t total_jobs = io_step && !streams ? SpreadJobs(specs) : 0;
    uint64_t jobs_before = 0;
    for (size_t i = 0; i < agents.size(); ++i) {
      v1::PlannedStep step;
      step.set_name(leaf.name);
      step.set_point(point);
      const v1::Step& mine = rules::StepOf(workloads[i], leaf);
      if (mine.has_sync()) step.mutable_sync();
      if (mine.has_drop_caches()) step.mutable_drop_caches();
      if (mine.has_files()) {
        *step.mutable_files() = rules::ResolveFiles(mine.files());
        // Phases run in lockstep, so every agent runs the same ops (overrides may change the rest).
        const auto& first = out[0].empty() || i == 0 ? step.files().ops() : out[0].back().files().ops();
        if (i > 0 && !std::equal(first.begin(), first.end(), step.files().ops().begin(), step.files().ops().end())) {
          return InvalidArgument(leaf.path + ".files.ops: agent " + agents[i].name +
                                 " would run other phases than agent " + agents[0].name +
                                 " (phases run in lockstep: overrides may not change ops)");
        }
      }
      if (mine.has_copy()) *step.mutable_copy() = rules::ResolveCopy(mine.copy());
      if (mine.has_readahead()) *step.mutable_readahead() = mine.readahead();
      if (mine.has_hook()) *step.mutable_hook() = mine.hook();
      if (mine.has_io() && streams) {
        *step.mutable_io() = resolved[i];
      } else if (mine.has_io()) {
        auto io = rules::PlanIo(resolved[i], total_jobs);
        if (!io.ok()) return InvalidArgument(leaf.path + ".io: " + io.status().message());
        rules::NeutralizeInapplicable(*io);
        if (io->read_from() == v1::READ_FROM_NEXT_AGENT) step.set_read_from_agent(agents[(i + 1) % agents.size()].name);
        if (io->file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL) {
          step.set_global_first_job(static_cast<uint32_t>(jobs_before));
          step.set_global_jobs(static_cast<uint32_t>(total_jobs));
        }
        jobs_before += io->jobs();
        *step.mutable_io() = *io;
      }
      out[i].push_back(step);
    }
  }
  return Status::Ok();
}

// Every step as its agent will receive it, checked with the agent's own rules
// (core/rules/planned_check.h): what needs the fleet, such as a block for every job once
// total_jobs is spread over the agents, is decided here, before any agent is contacted.
Status CheckPlanned(const RunPlan& plan, const std::vector<AgentId>& agents) {
  const size_t steps = plan.leaves.size();
  std::string errors;
  std::set<std::string> seen;
  for (size_t i = 0; i < agents.size(); ++i) {
    const std::string& root = plan.workloads[i].target().root();
    for (size_t k = 0; k < plan.steps[i].size(); ++k) {
      std::vector<rules::Violation> found;
      rules::CheckPlannedStep(plan.steps[i][k], plan.leaves[k % steps].path, root.empty() ? "default" : root, found);
      std::string at;
      if (plan.points.size() > 1) {
        for (const auto& [path, value] : plan.points[k / steps].params) at += (at.empty() ? " (at " : ", ") + path + "=" + value;
        if (!at.empty()) at += ")";
      }
      for (const auto& v : found) {
        std::string line = "agent " + agents[i].name + ": " + v.path + at + ": " + v.message;
        if (seen.insert(line).second) errors += (errors.empty() ? "" : "\n") + line;
      }
    }
  }
  return errors.empty() ? Status::Ok() : InvalidArgument(errors);
}

}  // namespace

Result<RunPlan> MakePlan(const v1::Workload& workload, const std::vector<AgentId>& agents) {
  RunPlan plan;
  auto points = ExpandSweep(workload);
  if (!points.ok()) return points.status();
  plan.points = std::move(*points);
  std::string errors;
  for (const auto& a : agents) {
    auto mine = ForAgent(workload, a.name, a.address);
    if (!mine.ok()) return InvalidArgument("agent " + a.name + ": " + mine.status().message());
    for (const auto& v : rules::Validate(*mine)) {
      errors += (errors.empty() ? "" : "\n") + ("agent " + a.name + " (with its overrides): " + v.path + ": " + v.message);
    }
    plan.workloads.push_back(*mine);
  }
  if (!errors.empty()) return InvalidArgument(errors);
  plan.leaves = rules::LeafSteps(workload);
  plan.steps.assign(agents.size(), {});
  // The agents get one flat list of steps and the run manager runs them in lockstep: every
  // point and every agent must have the same steps, and at one point the same group repeats.
  const rules::StepShape shape = rules::ShapeOf(workload);
  for (size_t p = 0; p < plan.points.size(); ++p) {
    const SweepPoint& point = plan.points[p];
    const rules::StepShape at_point = rules::ShapeOf(point.workload);
    if (!at_point.SameSteps(shape)) {
      return InvalidArgument("sweep point " + std::to_string(p) + " would change the steps (" + at_point.Text(false) +
                             " instead of " + shape.Text(false) +
                             "): a sweep may change steps' fields and groups' repeat, not which steps run");
    }
    std::vector<v1::Workload> point_workloads;
    for (const auto& a : agents) {
      auto mine = ForAgent(point.workload, a.name, a.address);
      if (!mine.ok()) return InvalidArgument("agent " + a.name + ": " + mine.status().message());
      if (const rules::StepShape its = rules::ShapeOf(*mine); !(its == at_point)) {
        return InvalidArgument("agent " + a.name + ": its overrides would change the steps or a group's repeat (" +
                               its.Text(true) + " instead of " + at_point.Text(true) +
                               "): steps run in lockstep on every agent, so overrides may change steps' fields only");
      }
      point_workloads.push_back(*mine);
    }
    IOFLEET_RETURN_IF_ERROR(PlanPoint(static_cast<uint32_t>(p), plan.leaves, point_workloads, agents, plan.steps));
  }
  IOFLEET_RETURN_IF_ERROR(CheckPlanned(plan, agents));
  return plan;
}

std::string DescribePlan(const v1::Workload& workload, const RunPlan& plan, const std::vector<AgentId>& agents) {
  const size_t leaves = plan.leaves.size();
  const uint32_t cycles = std::max(1u, workload.repeat());
  std::string out = fmt::format("# plan: {} point(s) x {} step(s) x {} cycle(s) on {} agent(s)\n", plan.points.size(),
                                leaves, cycles, agents.size());
  uint64_t timed_ns = 0;
  uint64_t size_based = 0;
  std::map<std::string, uint64_t> peak_bytes;  // per agent: the most any step's files hold (files go between points)
  for (size_t p = 0; p < plan.points.size(); ++p) {
    const v1::Workload& at_point = plan.points[p].workload;
    std::string params;
    for (const auto& [path, value] : plan.points[p].params) params += fmt::format(" {}={}", path, value);
    out += fmt::format("# point {}{}\n", p, params);
    // One leaf step: its line and its agents' lines; `runs` is how often it runs per point.
    auto describe = [&](size_t l, const std::string& indent, uint64_t runs) {
      const rules::LeafStep& leaf = plan.leaves[l];
      const v1::Step& step = rules::StepOf(at_point, leaf);
      out += fmt::format("#{}{} ({})\n", indent, leaf.name, rules::StepKind(step));
      if (step.has_sleep()) timed_ns += step.sleep().duration() * runs;
      for (size_t i = 0; i < agents.size(); ++i) {
        const v1::PlannedStep& planned = plan.steps[i][p * leaves + l];
        if (planned.has_files()) {
          const v1::FilesStep& f = planned.files();
          uint64_t files = uint64_t{f.dirs()} * f.files_per_dir();
          std::string ops;
          for (int k = 0; k < f.ops_size(); ++k) ops += (k ? ", " : "") + rules::FilesOpName(f.ops(k));
          out += fmt::format("#{}  {}: {} x {} files ({} files, about {}) in {}, {} job(s): {}\n", indent, agents[i].name, f.dirs(),
                             f.files_per_dir(), files, FormatSize(files * rules::MeanFileSize(f)), f.dir(), f.jobs(), ops);
          if (i == 0) size_based += runs;
        }
        if (planned.has_copy()) {
          const std::string method = planned.copy().method() == v1::COPY_METHOD_COPY_FILE_RANGE ? "copy_file_range" : "read/write";
          out += fmt::format("#{}  {}: copy {} to {}, {} job(s), {}\n", indent, agents[i].name, planned.copy().from(),
                             planned.copy().to(), planned.copy().jobs(), method);
          if (i == 0) size_based += runs;
        }
        if (planned.has_hook() && i == 0) out += fmt::format("#{}  every agent: hook {} from its config\n", indent, planned.hook().name());
        if (planned.has_readahead() && i == 0) {
          out += fmt::format("#{}  every agent: read_ahead_kb {} on the target's device\n", indent, planned.readahead().kib());
        }
        if (!planned.has_io()) continue;
        uint64_t bytes = 0, longest_delay = 0;
        for (const v1::IoSpec* stream : rules::StreamsOf(planned.io())) {
          const v1::IoSpec& io = *stream;
          uint64_t files = io.file_layout() == v1::FILE_LAYOUT_PER_JOB ? io.jobs() : (io.jobs() ? 1 : 0);
          bytes += io.file_layout() == v1::FILE_LAYOUT_PER_JOB ? io.file_size() * io.jobs() : io.file_size();
          longest_delay = std::max<uint64_t>(longest_delay, io.start_delay());
          std::string when = io.runtime() > 0 ? FormatDuration(io.runtime()) + " after " + FormatDuration(io.ramp()) + " ramp"
                                              : "one pass (size-based)";
          if (io.start_delay()) when += ", from " + FormatDuration(io.start_delay()) + " after the start";
          const std::string who = io.has_name() ? agents[i].name + " stream " + io.name() : agents[i].name;
          out += fmt::format("#{}  {}: {} job(s), {} file(s) of {}, {}\n", indent, who, io.jobs(), files,
                             FormatSize(io.file_size()), when);
        }
        peak_bytes[agents[i].name] = std::max(peak_bytes[agents[i].name], bytes);
        const v1::IoSpec& io = planned.io();
        if (i == 0) {
          if (io.runtime() > 0) timed_ns += (io.runtime() + io.ramp() + longest_delay) * runs;
          else size_based += runs;
        }
      }
    };
    for (size_t l = 0; l < leaves;) {
      const rules::LeafStep& leaf = plan.leaves[l];
      if (leaf.member < 0) {
        describe(l++, "   ", cycles);
        continue;
      }
      const uint32_t repeat = at_point.steps(leaf.top).group().repeat();
      out += fmt::format("#   {} (group: its steps {} time(s) in order, then the next step)\n", leaf.group, repeat);
      for (; l < leaves && plan.leaves[l].top == leaf.top; ++l) describe(l, "     ", uint64_t{cycles} * repeat);
    }
  }
  for (const auto& [agent, bytes] : peak_bytes) out += fmt::format("# files on {}: up to {}\n", agent, FormatSize(bytes));
  out += fmt::format("# duration: at least {}", FormatDuration(timed_ns / 1'000'000'000 * 1'000'000'000));
  out += size_based ? fmt::format(" plus {} size-based step run(s), whose time depends on the storage\n", size_based) : "\n";
  return out;
}

}  // namespace iofleet::controller
