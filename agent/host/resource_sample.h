// What the host's counters say, read at the edges of a step's measurement window, for the
// window's `resources` (result.proto ResourceStats): the block devices under the run directory
// (/proc/diskstats), the network interfaces (/proc/net/dev), each core (/proc/stat) and this
// process's blkio throttle (cgroup v1 blkio.throttle.*, or v2 io.stat and io.max). Not the hot
// path: the step runner's thread reads them, twice a step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/host/nfs_mountstats.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::agent {

struct DiskCounters {
  uint32_t major = 0;
  uint32_t minor = 0;
  std::string name;
  uint64_t reads = 0, read_sectors = 0, read_ms = 0;
  uint64_t writes = 0, write_sectors = 0, write_ms = 0;
  uint64_t busy_ms = 0, queue_ms = 0;
};

struct NetCounters {
  std::string name;
  uint64_t rx_bytes = 0, rx_packets = 0, tx_bytes = 0, tx_packets = 0;
};

struct CoreTicks {
  std::string name;  // cpu0, cpu1, ...
  uint64_t busy = 0;  // all but idle and iowait
  uint64_t total = 0;
};

// What passed this process's blkio throttle for one device, cumulative.
struct ThrottleCounters {
  uint32_t major = 0;
  uint32_t minor = 0;
  uint64_t read_bytes = 0, write_bytes = 0, reads = 0, writes = 0;
};

// The files' text to figures; lines that do not parse are skipped (a kernel with other columns
// gives fewer figures, never wrong ones).
std::vector<DiskCounters> ParseDiskstats(std::string_view text);
std::vector<NetCounters> ParseNetDev(std::string_view text);
std::vector<CoreTicks> ParseCoreTicks(std::string_view proc_stat);
// cgroup v1 blkio.throttle.io_service_bytes (bytes) or io_serviced (I/Os): "7:0 Read 4096".
void ParseThrottleV1(std::string_view text, bool bytes, std::vector<ThrottleCounters>& into);
// cgroup v2 io.stat: "7:0 rbytes=4096 wbytes=0 rios=1 wios=0 ...".
std::vector<ThrottleCounters> ParseIoStatV2(std::string_view text);

// A throttle's limits for one device; absent: unlimited.
struct ThrottleLimits {
  uint32_t major = 0;
  uint32_t minor = 0;
  std::optional<uint64_t> read_bps, write_bps, read_iops, write_iops;
};
// cgroup v1 blkio.throttle.read_bps_device and the like: "7:0 4194304"; sets `field` of each.
void ParseThrottleLimitV1(std::string_view text, std::optional<uint64_t> ThrottleLimits::*field,
                          std::vector<ThrottleLimits>& into);
// cgroup v2 io.max: "7:0 rbps=4194304 wbps=max riops=max wiops=max".
std::vector<ThrottleLimits> ParseIoMaxV2(std::string_view text);
// The blkio (v1) or unified (v2) cgroup directory named by /proc/self/cgroup's text, and
// whether it is v2; empty where neither is named.
std::pair<std::string, bool> BlkioCgroupDir(std::string_view proc_self_cgroup);

// Where a step's storage is, found once at its setup.
struct ResourceTargets {
  struct Device {
    uint32_t major = 0;
    uint32_t minor = 0;
    std::string name;
    std::string role;  // target, backing, under
    std::optional<bool> rotational;
  };
  std::vector<Device> devices;
  std::string cgroup_dir;  // the blkio cgroup's directory; empty: none readable
  bool cgroup_v2 = false;
  std::string nfs_mount;  // the NFS mount holding the directory, as mountstats names it; empty: none
};

// The block devices under `dir` (none for tmpfs and other file systems without one), followed
// through loop devices to their backing file's device and through device-mapper to the devices
// under it; and this process's blkio cgroup (each reading reads its limits); for an NFS mount,
// its mountstats entry.
ResourceTargets FindResourceTargets(const std::string& dir);

struct ResourceReading {
  uint64_t at_ns = 0;  // monotonic
  std::vector<DiskCounters> disks;  // the targets' only
  std::vector<NetCounters> nets;
  std::vector<CoreTicks> cores;
  std::vector<ThrottleCounters> throttles;  // the targets' only
  // The throttle's limits in force at the reading, the targets' only (one may be set, changed
  // or lifted while the step runs: a window's limit is one that held at both its readings).
  std::vector<ThrottleLimits> limits;
  std::optional<NfsCounters> nfs;
  bool read = false;  // false: never read (the window had no start)
};

ResourceReading ReadResources(const ResourceTargets& targets);

// The window's deltas between two readings, with the links' speeds; a device or interface
// missing from either reading is left out.
void ResourceDelta(const ResourceTargets& targets, const ResourceReading& start, const ResourceReading& end,
                   v1::ResourceStats& out);

}  // namespace iofleet::agent
