// A copy step: `to` becomes a copy of `from` (cp -r), files copied by `jobs` threads taking the
// next file from a shared list (a tree of varying sizes balances itself). Both places are
// confined to their run directories: the source is walked with O_NOFOLLOW, and a symlink or
// special file in it is an error rather than something to follow or skip silently; so is a
// source file that is no longer the one the walk found when the copy opens it.
#pragma once

#include <memory>
#include <string>

#include "agent/tasks/step_task.h"
#include "agent/fs/workspace.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::agent {

struct CopyPlan {
  v1::CopyStep copy;  // resolved
  std::shared_ptr<Workspace> from_workspace;
  std::string from;  // below from_workspace's run directory
  std::shared_ptr<Workspace> to_workspace;
  std::string to;
  std::string agent_name;
};

// Untimed setup: checks the source, removes a copy this run made at `to` before, refuses
// anything else there, and makes `to`'s parent.
Result<std::unique_ptr<StepTask>> MakeCopyTask(CopyPlan plan);

}  // namespace iofleet::agent
