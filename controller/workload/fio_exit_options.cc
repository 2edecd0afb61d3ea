// fio's exitall, exit_what and new_group as an io step's `job_end`. Part of the importer
// (fio_importer.h); the option table is in fio_options.cc.
//
// fio's exitall is one flag for the whole run, whichever job sets it: from then on, each job
// that ends ends what its exit_what names (fio's terminate at the end of a job's thread). group
// (the default) ends the jobs of its reporting group: a new one begins at a job with stonewall or
// new_group, a job's numjobs clones share its group; stonewall ends every job running (its
// step's); all ends everything, the jobs of later steps too. In a size-based step that is
// iofleet's job_end: stream where the group is the job alone (its clones), step where it is
// the step's every job or exit_what is stonewall. A time-based job ends at its runtime, as its
// step's others do: it ends nothing they would not end themselves.
#include <algorithm>

#include "controller/workload/fio_importer.h"

namespace iofleet::controller::fio_detail {

// These options' rows of the option table (fio_options.cc puts them after group_reporting's).
std::vector<Importer::OptionRow> Importer::ExitOptionRows() {
  return {
      {{{"new_group", &Importer::NewGroup}},
       "`new_group`",
       "where fio's reporting groups begin, which `exit_what=group` ends; otherwise no effect (iofleet reports each step "
       "and each stream)"},
      {{{"exitall", &Importer::ExitAll}, {"exit_what", &Importer::ExitWhat}},
       "`exitall`, `exit_what`",
       "`job_end` of a size-based job: `exit_what=stonewall` is `step`; `group` (the default) is `stream` where the "
       "job's group is itself (its `numjobs` clones), `step` where it is every job of the step, refused where it is "
       "part of the step; `all` is `step` in the last step, refused before it (fio would never run the later ones). "
       "No effect on a time-based job (every job of its step ends at the same runtime; refused beside a job of another `startdelay`) or without `exitall`"},
  };
}

void Importer::NewGroup(const Option& o, Level& l) {
  if (auto v = Bool(o)) l.new_group = Setting<bool>{*v, KeyAt(o)};
}

void Importer::ExitAll(const Option& o, Level& l) {
  if (auto v = Bool(o)) l.exitall = Setting<bool>{*v, KeyAt(o)};
}

void Importer::ExitWhat(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value != "group" && o.value != "stonewall" && o.value != "all") {
    Error(ValueAt(o), "\"" + o.value + "\" is not group, stonewall or all");
    return;
  }
  l.exit_what = Setting<std::string>{o.value, KeyAt(o)};
}

namespace {

// fio's reporting group of each job (init.c's groupid): a new one at a job with stonewall or
// new_group, unless no job came since the last one began.
std::vector<int> ReportingGroups(const Level& defaults, const std::vector<Job>& jobs) {
  std::vector<int> group(jobs.size(), 0);
  int id = 0, in_group = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& wall = Effective(jobs[i].level.stonewall, defaults.stonewall);
    const auto& fresh = Effective(jobs[i].level.new_group, defaults.new_group);
    if (((wall && wall->value) || (fresh && fresh->value)) && in_group > 0) {
      in_group = 0;
      ++id;
    }
    group[i] = id;
    ++in_group;
  }
  return group;
}

}  // namespace

void Importer::PlaceExits(const Level& defaults, const std::vector<Job>& jobs) {
  const Setting<bool>* exitall = defaults.exitall && defaults.exitall->value ? &*defaults.exitall : nullptr;
  for (const Job& job : jobs) {
    if (!exitall && job.level.exitall && job.level.exitall->value) exitall = &*job.level.exitall;
  }
  if (!exitall) {
    if (defaults.exit_what) Warn(defaults.exit_what->at, "has no effect without exitall=1 (fio ends other jobs only with it)");
    for (const Job& job : jobs) {
      if (job.level.exit_what) Warn(job.level.exit_what->at, "has no effect without exitall=1 (fio ends other jobs only with it)");
    }
    return;
  }
  const std::vector<std::vector<int>> steps = JobGroups(defaults, jobs);
  std::vector<size_t> step_of(jobs.size(), 0);
  for (size_t s = 0; s < steps.size(); ++s) {
    for (int j : steps[s]) step_of[static_cast<size_t>(j)] = s;
  }
  const std::vector<int> group = ReportingGroups(defaults, jobs);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& what = Effective(jobs[i].level.exit_what, defaults.exit_what);
    const std::string kind = what ? what->value : "group";
    const Place at = what ? what->at : exitall->at;
    const std::string job = " (job " + step_labels_[i] + ")";
    const bool last_step = step_of[i] + 1 == steps.size();
    const auto& tb = Effective(jobs[i].level.time_based, defaults.time_based);
    if (tb && tb->value) {
      if (kind == "all" && !last_step) {
        Unsupported(at, "exit_what=all in a time-based job" + job + ": at its runtime fio ends the jobs of the later steps too "
                        "(they never run); iofleet runs every step");
        continue;
      }
      // Its runtime counts from its own start: a job that started later would be ended early.
      const auto delay_of = [&](size_t k) {
        const v1::IoSpec& own = jobs[k].level.io;
        return own.has_start_delay() ? own.start_delay() : defaults.io.start_delay();
      };
      const std::vector<int>& step = steps[step_of[i]];
      if (std::any_of(step.begin(), step.end(), [&](int k) { return delay_of(static_cast<size_t>(k)) != delay_of(i); })) {
        Unsupported(at, "in a time-based job" + job + " beside jobs of another startdelay: at its runtime fio ends the jobs that "
                        "started later, before theirs; iofleet runs each to its own runtime");
      }
      continue;  // it ends at its runtime, as the others of its step do
    }
    v1::JobEnd end = v1::JOB_END_STEP;
    if (kind == "all" && !last_step) {
      Unsupported(at, "exit_what=all" + job + ": fio ends the jobs of the later steps too (they never run); iofleet runs every "
                      "step: exit_what=stonewall ends this step's jobs alone");
      continue;
    }
    if (kind == "group") {
      std::vector<int> members;
      for (size_t k = 0; k < jobs.size(); ++k) {
        if (group[k] == group[i]) members.push_back(static_cast<int>(k));
      }
      const std::vector<int>& step = steps[step_of[i]];
      const bool within = std::all_of(members.begin(), members.end(), [&](int k) { return step_of[static_cast<size_t>(k)] == step_of[i]; });
      if (members == step) {
        end = v1::JOB_END_STEP;
      } else if (members.size() == 1) {
        end = v1::JOB_END_STREAM;
      } else {
        std::string names;
        for (int k : members) names += (names.empty() ? "" : ", ") + step_labels_[static_cast<size_t>(k)];
        Unsupported(at, "exit_what=group" + job + ": fio ends its reporting group (" + names + "), " +
                            (within ? "part of its step" : "jobs of more than one step (wait_for)") +
                            "; iofleet ends a job's own stream or its whole step: new_group=1 on each job, or exit_what=stonewall");
        continue;
      }
    }
    v1::IoSpec& io = *out_.workload.mutable_steps(static_cast<int>(i))->mutable_io();
    io.set_job_end(end);
    origins_["steps[" + std::to_string(i) + "].io.job_end"] = at;
  }
}

}  // namespace iofleet::controller::fio_detail
