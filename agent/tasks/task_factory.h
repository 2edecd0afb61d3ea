// The task of a step that is not an io job (agent/tasks/step_task.h), made for the step's kind:
// sync and drop_caches, readahead, hook, one phase of a files step, copy.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "agent/fs/workspace.h"
#include "agent/host/agent_config.h"
#include "agent/host/readahead.h"
#include "agent/tasks/host_tasks.h"
#include "agent/tasks/step_task.h"
#include "core/base/status.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

// Where a run's steps go, copied by the supervisor under its lock (a Stop may end the run while
// a task is made without it).
struct RunPlaces {
  std::string run_id;
  std::string agent_name;
  uint64_t run_token = 0;
  std::string target_root;
  std::string readahead_file;
  std::shared_ptr<Workspace> target;
  std::map<std::string, std::shared_ptr<Workspace>> others;  // other roots' run directories, by root name
};

// What of this agent a task may use: its name (for messages), its config (hooks), the host's
// files, the read-ahead keeper.
struct TaskHost {
  const std::string& agent;
  const AgentConfig& config;
  const HostPaths& paths;
  ReadaheadKeeper& readahead;
};

// The workspace and path a step's "ROOT:path" names; errors name `agent`.
Result<std::pair<std::shared_ptr<Workspace>, std::string>> Place(const RunPlaces& places, const std::string& text,
                                                                 const std::string& agent);

// The task of `planned` (not an io step), for phase `phase` of a files step.
Result<std::unique_ptr<StepTask>> MakeTask(const v1::PlannedStep& planned, uint32_t phase, uint32_t step_index,
                                           const RunPlaces& places, const TaskHost& host);

}  // namespace iofleet::agent
