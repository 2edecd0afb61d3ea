// What must hold before any step of a run starts, checked at Prepare with real operations on
// the target, so that a refusal exits 2 before any I/O rather than minutes into the run.
#pragma once

#include <string>

#include "agent/fs/workspace.h"
#include "agent/host/agent_config.h"
#include "agent/tasks/host_tasks.h"
#include "core/base/status.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

// The io steps: each engine exists here and opens at its step's queue depth (agent/tasks/
// job_engine.h, the one place a job's engine is set up), io_uring's fixed buffers fit the
// locked-memory limit, the largest sweep point's files fit the free space, and where a step is
// O_DIRECT, a real aligned O_DIRECT write succeeds and every block size is a multiple of the
// file system's O_DIRECT alignment. Errors name `agent`.
Status PreflightIo(const v1::PrepareRequest& request, Workspace& workspace, const std::string& agent);

// The host steps: this agent's config allows each, and this process may do it (drop_caches and
// read_ahead_kb writable, the read-ahead record's state_dir writable). The read_ahead_kb file of
// the target's device when a readahead step is planned, else "".
Result<std::string> PreflightHostSteps(const v1::PrepareRequest& request, Workspace& workspace, const std::string& agent,
                                       const AgentConfig& config, const HostPaths& host);

}  // namespace iofleet::agent
