// What the kernel's NFS client says of the mount holding a step's files, read at the edges of its
// measurement window beside the block devices' counters (agent/host/resource_sample.h). An NFS
// mount has no block device: /proc/self/mountstats is where its client keeps what it sent the
// server (bytes the server read and wrote for it, against those the applications asked for, and
// per RPC operation its count, retransmissions, round-trip and execute times), as nfsiostat and
// mountstats(8) read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iofleet::agent {

// One RPC operation's line of "per-op statistics", cumulative since the mount.
struct NfsOpCounters {
  uint64_t ops = 0;            // requests completed
  uint64_t transmissions = 0;  // sent, retransmissions included
  uint64_t major_timeouts = 0;
  uint64_t bytes_sent = 0, bytes_received = 0;
  uint64_t queue_ms = 0;    // waiting in the client before it was sent
  uint64_t rtt_ms = 0;      // from sending to the server's reply
  uint64_t execute_ms = 0;  // from queueing to completion: queue + rtt + the client's own work
};

struct NfsCounters {
  std::string server;   // mountstats' "device": server:/export
  std::string version;  // the mount's opts: vers=
  // The "bytes:" line: what the applications read and wrote (normal: through the client's page
  // cache; direct: O_DIRECT), and what the client read from and wrote to the server for them.
  uint64_t normal_read_bytes = 0, normal_write_bytes = 0;
  uint64_t direct_read_bytes = 0, direct_write_bytes = 0;
  uint64_t server_read_bytes = 0, server_write_bytes = 0;
  bool has_bytes = false;
  NfsOpCounters read, write, commit;
  bool has_read = false, has_write = false, has_commit = false;
};

// The entry of /proc/self/mountstats's text whose mount point is `mount_point` (as the kernel
// writes it, spaces as \040) with fstype nfs or nfs4; none where there is none. Lines that do
// not parse give fewer figures, never wrong ones.
std::optional<NfsCounters> ParseNfsMountstats(std::string_view text, std::string_view mount_point);

// The mount point (escaped as the kernel writes it) of the NFS mount holding a path on the device
// `major:minor`, from /proc/self/mountinfo's text: of that device's NFS mounts the longest whose
// mount point is a prefix of `real_path`; empty where the device is not NFS.
std::string NfsMountPoint(std::string_view mountinfo, uint32_t major, uint32_t minor, std::string_view real_path);

// Reads /proc/self/mountstats for the mount found by NfsMountPoint.
std::optional<NfsCounters> ReadNfsCounters(const std::string& mount_point);

}  // namespace iofleet::agent
