// Where a run's files live, for the report: the kernel, the file system and mount options of the
// run directory, the block device's scheduler and read-ahead, CPUs and memory. Read from
// uname(2), /proc/self/mountinfo and /sys/dev/block at Prepare; what cannot be read is left out.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

// Everything known about the host and the file system holding `dir` (an existing directory).
v1::HostInfo GatherHostInfo(const std::string& dir);

// The parts, separate for tests.

struct MountEntry {
  unsigned major = 0;
  unsigned minor = 0;
  std::string mount_point;
  std::string fs_type;
  std::string options;  // the mount's, then the super block's not already listed
  std::string source;
};

// The mount that holds `path` (canonical, absolute) on device `dev`, from the text of a
// mountinfo file: among the entries on that device the one with the longest mount point that
// is a prefix of `path`; when no entry is on that device (btrfs subvolumes report another),
// the longest prefix of any. The last of equals wins: it was mounted on top.
std::optional<MountEntry> FindMount(std::string_view mountinfo, dev_t dev, const std::string& path);

struct BlockQueue {
  std::string disk;       // kernel name of the device owning the queue, e.g. sda
  std::string scheduler;  // the active one
  std::optional<uint32_t> read_ahead_kb;
};

// The request queue of block device major:minor under `sys` (/sys): a partition's is its
// disk's. Nothing for a device without one (major 0: tmpfs, overlay, nfs).
std::optional<BlockQueue> FindBlockQueue(unsigned major, unsigned minor, const std::string& sys = "/sys");

// Whether `mount` (its block device's kernel name `disk`, "" for none) keeps its data in memory,
// and why (HostInfo.memory_backed's words), or "": tmpfs and ramfs; zram and brd devices; a loop
// device whose backing file, and an overlay whose upper directory, lies on tmpfs or ramfs (one
// level: what is beneath that is left alone). `sys` is /sys.
std::string MemoryBacked(const MountEntry& mount, const std::string& disk, const std::string& sys = "/sys");

// "none [mq-deadline] kyber" -> "mq-deadline"; a lone "none" stays.
std::string ActiveScheduler(std::string_view text);

}  // namespace iofleet::agent
