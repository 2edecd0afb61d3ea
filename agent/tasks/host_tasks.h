// Steps that are one action on the host: sync, drop_caches, readahead and hook. Each is
// allowed by the agent's own config, never by the wire alone.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "agent/host/agent_config.h"
#include "agent/host/readahead.h"
#include "agent/tasks/step_task.h"

namespace iofleet::agent {

// Where the host steps act. The defaults are the kernel's; a test points them at paths it
// controls (one that cannot be opened for writing, a stand-in sysfs tree).
struct HostPaths {
  std::string drop_caches = "/proc/sys/vm/drop_caches";
  std::string sysfs = "/sys";  // where ReadaheadFileFor finds a device's read_ahead_kb
};

// Whether this process could write `path` now: open(2) for writing and close, nothing written
// (a write to drop_caches would drop the caches). It fails as the step would: not root, or
// /proc/sys and /sys read-only (systemd's ProtectKernelTunables, a container's defaults).
Status ProbeWritable(const std::string& path);

// sync(2); with drop_caches then "3" to `drop_caches_path` (page cache, dentries, inodes).
std::unique_ptr<StepTask> MakeSyncTask(bool drop_caches, std::string agent_name,
                                       std::string drop_caches_path = HostPaths{}.drop_caches);

// Sets read_ahead_kb of `file` through the keeper, which restores it when the run ends.
std::unique_ptr<StepTask> MakeReadaheadTask(ReadaheadKeeper& keeper, std::string file, uint32_t kib, std::string agent_name);

struct HookRun {
  std::string name;
  HookCommand command;
  std::string run_id;
  std::string run_dir;  // its working directory
  std::string agent_name;
  // The fill level of hook.fill_of's file system (none where it is missing), reported at the
  // command's start and end; unset: not measured.
  std::function<std::optional<v1::FileSystemFill>()> measure_fill;
};
// Runs the command (its own process group, killed on stop or timeout); fails on a non-zero exit
// with the end of its output.
std::unique_ptr<StepTask> MakeHookTask(HookRun hook);

// statvfs(3) of the directory `dir_fd` in df's terms; none if it fails.
std::optional<v1::FileSystemFill> FillOf(int dir_fd);

}  // namespace iofleet::agent
