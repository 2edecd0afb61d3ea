#include "agent/tasks/task_factory.h"

#include <fcntl.h>
#include <unistd.h>

#include "agent/tasks/copy_task.h"
#include "agent/tasks/files_task.h"
#include "core/rules/non_io_steps.h"

namespace iofleet::agent {

Result<std::pair<std::shared_ptr<Workspace>, std::string>> Place(const RunPlaces& places, const std::string& text,
                                                                 const std::string& agent) {
  rules::StepPlace place = rules::ParseStepPlace(text);
  if (place.root.empty() || place.root == places.target_root) return std::make_pair(places.target, place.path);
  auto it = places.others.find(place.root);
  if (it == places.others.end()) return Status(Code::kFailedPrecondition, "agent " + agent + ": no root " + place.root);
  return std::make_pair(it->second, place.path);
}

Result<std::unique_ptr<StepTask>> MakeTask(const v1::PlannedStep& planned, uint32_t phase, uint32_t step_index,
                                           const RunPlaces& places, const TaskHost& host) {
  if (planned.has_sync() || planned.has_drop_caches()) return MakeSyncTask(planned.has_drop_caches(), places.agent_name, host.paths.drop_caches);
  if (planned.has_readahead()) return MakeReadaheadTask(host.readahead, places.readahead_file, planned.readahead().kib(), places.agent_name);
  if (planned.has_hook()) {
    HookRun hook{planned.hook().name(), host.config.hooks.at(planned.hook().name()), places.run_id, places.target->run_dir(),
                 places.agent_name, {}};
    // Only measured: a confined directory below the run directory, opened anew each time (a
    // mkfs hook mounts it during the step).
    hook.measure_fill = [workspace = places.target, dir = planned.hook().fill_of()]() -> std::optional<v1::FileSystemFill> {
      auto fd = workspace->OpenBelow(dir, O_PATH | O_DIRECTORY);
      if (!fd.ok()) return std::nullopt;
      auto fill = FillOf(*fd);
      close(*fd);
      return fill;
    };
    return MakeHookTask(std::move(hook));
  }
  if (planned.has_files()) {
    auto place = Place(places, planned.files().dir(), host.agent);
    if (!place.ok()) return place.status();
    FilesPlan plan;
    plan.files = planned.files();
    plan.op = planned.files().ops(static_cast<int>(phase));
    plan.workspace = place->first;
    plan.relative = place->second;
    plan.agent_name = places.agent_name;
    plan.seed = places.run_token ^ (uint64_t{step_index} * 0x9E3779B97F4A7C15ull);
    return MakeFilesTask(std::move(plan));
  }
  if (planned.has_copy()) {
    auto from = Place(places, planned.copy().from(), host.agent);
    if (!from.ok()) return from.status();
    auto to = Place(places, planned.copy().to(), host.agent);
    if (!to.ok()) return to.status();
    CopyPlan plan{planned.copy(), from->first, from->second, to->first, to->second, places.agent_name};
    return MakeCopyTask(std::move(plan));
  }
  return InvalidArgument("agent " + host.agent + ": step " + planned.name() + " has no kind this agent knows");
}

}  // namespace iofleet::agent
