#include "agent/run/preflight.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "agent/tasks/job_engine.h"
#include "core/base/checked.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"

namespace iofleet::agent {
namespace {

constexpr const char* kProbeFile = ".iofleet-direct-probe";
constexpr size_t kProbeSize = 4096;

bool HasCapability(int cap) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> cap) & 1;
  }
  return false;
}

}  // namespace

// What must hold before any step starts, checked with real operations on the target.
Status PreflightIo(const v1::PrepareRequest& request, Workspace& workspace, const std::string& agent) {
  const std::string who = "agent " + agent + ": ";
  bool needs_direct = false;
  uint64_t locked_bytes = 0;
  // Per sweep point, the largest extent any of its steps gives each file (files go between points).
  std::map<uint32_t, std::map<std::string, uint64_t>> point_files;
  for (const auto& step : request.steps()) {
    if (!step.has_io()) continue;
    for (const v1::IoSpec* stream : rules::StreamsOf(step.io())) {
      const v1::IoSpec& io = *stream;
      if (io.engine() == v1::ENGINE_NULL) continue;
      if (io.direct()) needs_direct = true;
      if (auto engine = OpenJobEngine(io, {}, {}, who + "step " + step.name()); !engine.ok()) return engine.status();
      if (io.engine() == v1::ENGINE_IO_URING && io.uring().fixed_buffers()) {
        locked_bytes = std::max(locked_bytes, uint64_t{io.jobs()} * io.queue_depth() * rules::MaxBlockSize(io));
      }
      if (!step.read_from_agent().empty()) continue;  // reads another agent's files
      auto& file_bytes = point_files[step.point()];
      if (io.file_layout() != v1::FILE_LAYOUT_PER_JOB) {
        std::string f = (io.file_layout() == v1::FILE_LAYOUT_SHARED ? "" : "shared/") + rules::JobFileName(io, 0);
        file_bytes[f] = std::max(file_bytes[f], io.file_size());
      } else {
        for (uint32_t j = 0; j < io.jobs(); ++j) {
          std::string f = rules::JobFileName(io, j);
          file_bytes[f] = std::max(file_bytes[f], rules::JobRangeBytes(io));
        }
      }
    }
  }

  if (locked_bytes > 0 && !HasCapability(14 /* CAP_IPC_LOCK */)) {
    rlimit limit{};
    getrlimit(RLIMIT_MEMLOCK, &limit);
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < locked_bytes) {
      limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, std::max<rlim_t>(locked_bytes, limit.rlim_cur));
      setrlimit(RLIMIT_MEMLOCK, &limit);
      getrlimit(RLIMIT_MEMLOCK, &limit);
      if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < locked_bytes) {
        return Status(Code::kFailedPrecondition,
                      who + "uring.fixed_buffers needs " + FormatSize(locked_bytes) + " of locked memory but RLIMIT_MEMLOCK is " +
                          FormatSize(limit.rlim_cur) + " (raise it, e.g. LimitMEMLOCK= in the agent's unit, or set fixed_buffers: false)");
      }
    }
  }

  uint64_t need = 0;
  for (const auto& [point, files] : point_files) {
    uint64_t sum = 0;
    for (const auto& [file, bytes] : files) {
      auto next = CheckedAdd(sum, bytes, who + "sweep point " + std::to_string(point) + ": the workload's files");
      if (!next.ok()) return next.status();
      sum = *next;
    }
    need = std::max(need, sum);
  }
  auto free_bytes = workspace.FreeBytes();
  if (!free_bytes.ok()) return Status(Code::kFailedPrecondition, who + free_bytes.status().message());
  if (need > *free_bytes) {
    return Status(Code::kFailedPrecondition, who + workspace.run_dir() + ": the workload's files need " + FormatSize(need) +
                                                 " but the file system has " + FormatSize(*free_bytes) + " free");
  }
  if (!needs_direct) return Status::Ok();

  // A real aligned O_DIRECT write: statx cannot answer for every file system (tmpfs, NFS).
  Result<int> fd = workspace.OpenFile(kProbeFile, O_RDWR | O_CREAT | O_DIRECT);
  if (!fd.ok()) {
    return Status(Code::kFailedPrecondition, who + "O_DIRECT is not supported here: " + fd.status().message());
  }
  AlignedBuffer buffer = AllocateAligned(kProbeSize, kProbeSize);
  if (!buffer) {
    close(*fd);
    return Status(Code::kResourceExhausted, who + "cannot allocate the O_DIRECT probe's buffer");
  }
  std::memset(buffer.get(), 0xA5, kProbeSize);
  ssize_t n = pwrite(*fd, buffer.get(), kProbeSize, 0);
  int err = errno;
  uint32_t dio_align = 0;
#ifdef STATX_DIOALIGN
  struct statx stx{};
  if (statx(*fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 && (stx.stx_mask & STATX_DIOALIGN)) {
    dio_align = std::max(stx.stx_dio_offset_align, stx.stx_dio_mem_align);
  }
#endif
  close(*fd);
  Status removed = workspace.RemoveFile(kProbeFile);
  if (n != static_cast<ssize_t>(kProbeSize)) {
    return Status(Code::kFailedPrecondition,
                  who + workspace.PathOf(kProbeFile) + ": O_DIRECT write failed: " +
                      (n < 0 ? std::string(std::strerror(err)) + " (" + ErrnoName(err) + ")" : "short write"));
  }
  if (dio_align > 1) {
    for (const auto& step : request.steps()) {
      if (!step.has_io()) continue;
      for (const v1::IoSpec* stream : rules::StreamsOf(step.io())) {
        const v1::IoSpec& io = *stream;
        if (!io.direct()) continue;
        std::vector<uint64_t> sizes = {io.block_size()};
        for (const auto& s : io.block_size_split()) sizes.push_back(s.size());
        if (io.block_size_split_size() > 0) sizes.erase(sizes.begin());
        for (uint64_t size : sizes) {
          if (size % dio_align != 0) {
            return Status(Code::kFailedPrecondition, who + "step " + step.name() + ": block size " + FormatSize(size) +
                                                         " is not a multiple of the file system's O_DIRECT alignment of " +
                                                         std::to_string(dio_align) + " bytes");
          }
        }
      }
    }
  }
  return removed;
}

// Host steps need this agent's permission, and the access to do them: a refusal here exits 2
// before any I/O, not when the step is reached, maybe minutes into the run.
Result<std::string> PreflightHostSteps(const v1::PrepareRequest& request, Workspace& workspace, const std::string& agent,
                                       const AgentConfig& config, const HostPaths& host) {
  const std::string who = "agent " + agent + ": ";
  // The config allows the step, the host does not let this process do it.
  auto cannot = [&](const v1::PlannedStep& step, const std::string& kind, const Status& probe, const char* tree) {
    return Status(Code::kFailedPrecondition,
                  who + "step " + step.name() + ": " + kind + ": " + probe.message() + "; run the agent as root with " + tree +
                      " writable (systemd: the drop-in deploy/systemd/iofleet-agent-privileged.conf; Kubernetes: "
                      "overlays/privileged; docker: --privileged --user 0), or remove the step");
  };
  std::string readahead_file;
  bool drop_caches_probed = false;
  for (const auto& step : request.steps()) {
    if (step.has_drop_caches() && !config.allow_drop_caches) {
      return Status(Code::kPermissionDenied, who + "step " + step.name() + ": drop_caches is not allowed by this agent's config (allow_drop_caches)");
    }
    if (step.has_drop_caches() && !drop_caches_probed) {
      Status probe = ProbeWritable(host.drop_caches);
      if (!probe.ok()) return cannot(step, "drop_caches", probe, "/proc/sys");
      drop_caches_probed = true;
    }
    if (step.has_hook() && !config.hooks.count(step.hook().name())) {
      std::string known;
      for (const auto& [hook, command] : config.hooks) known += (known.empty() ? "" : ", ") + hook;
      return Status(Code::kPermissionDenied, who + "step " + step.name() + ": no hook named \"" + step.hook().name() +
                                                 "\" in this agent's config (hooks: " + (known.empty() ? "none" : known) + ")");
    }
    if (step.has_readahead() && readahead_file.empty()) {
      if (!config.allow_readahead) {
        return Status(Code::kPermissionDenied, who + "step " + step.name() + ": readahead is not allowed by this agent's config (allow_readahead)");
      }
      auto dir = workspace.OpenDirectory("", false);
      if (!dir.ok()) return Status(dir.status().code(), who + dir.status().message());
      auto file = ReadaheadFileFor(*dir, host.sysfs);
      close(*dir);
      if (!file.ok()) return Status(Code::kFailedPrecondition, who + "step " + step.name() + ": " + workspace.run_dir() + ": " + file.status().message());
      Status probe = ProbeWritable(*file);
      if (!probe.ok()) return cannot(step, "readahead", probe, "/sys");
      // The original is recorded there before any change: it must be writable now, not later.
      if (mkdir(config.state_dir.c_str(), 0700) < 0 && errno != EEXIST) {
        return PosixError(who + "state_dir " + config.state_dir + " (the read-ahead record)", errno);
      }
      if (access(config.state_dir.c_str(), W_OK) != 0) {
        return PosixError(who + "state_dir " + config.state_dir + " (the read-ahead record) is not writable", errno);
      }
      readahead_file = *file;
    }
  }
  return readahead_file;
}

}  // namespace iofleet::agent
