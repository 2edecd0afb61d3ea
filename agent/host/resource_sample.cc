#include "agent/host/resource_sample.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "agent/host/host_stats.h"
#include "core/base/clock.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxDevices = 64;

std::string ReadSmallFile(const fs::path& path) { return ReadKernelText(path.string()); }

std::vector<std::string_view> Words(std::string_view line) { return KernelFields(line); }

template <typename Fn>
void ForEachLine(std::string_view text, Fn fn) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    fn(text.substr(at, end - at));
    at = end + 1;
  }
}

bool Number(std::string_view word, uint64_t& out) { return KernelNumber(word, out); }

// "7:0" to its numbers.
bool DeviceNumbers(std::string_view word, uint32_t& major_out, uint32_t& minor_out) {
  const size_t colon = word.find(':');
  uint64_t ma = 0, mi = 0;
  if (colon == std::string_view::npos || !Number(word.substr(0, colon), ma) || !Number(word.substr(colon + 1), mi)) return false;
  if (ma > UINT32_MAX || mi > UINT32_MAX) return false;
  major_out = static_cast<uint32_t>(ma);
  minor_out = static_cast<uint32_t>(mi);
  return true;
}

// "key=value" of v2's files; false for "max" and what does not parse.
bool KeyValue(std::string_view word, std::string_view key, uint64_t& out) {
  if (word.size() <= key.size() + 1 || word.substr(0, key.size()) != key || word[key.size()] != '=') return false;
  return Number(word.substr(key.size() + 1), out);
}

template <typename T>
T& EntryFor(std::vector<T>& list, uint32_t major_no, uint32_t minor_no) {
  for (T& t : list) {
    if (t.major == major_no && t.minor == minor_no) return t;
  }
  T& t = list.emplace_back();
  t.major = major_no;
  t.minor = minor_no;
  return t;
}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::vector<DiskCounters> ParseDiskstats(std::string_view text) {
  std::vector<DiskCounters> out;
  ForEachLine(text, [&](std::string_view line) {
    const auto w = Words(line);
    if (w.size() < 14) return;
    DiskCounters d;
    uint64_t ma = 0, mi = 0, v[11] = {};
    bool ok = Number(w[0], ma) && Number(w[1], mi) && ma <= UINT32_MAX && mi <= UINT32_MAX;
    for (int i = 0; i < 11 && ok; ++i) ok = Number(w[3 + i], v[i]);
    if (!ok) return;
    d.major = static_cast<uint32_t>(ma);
    d.minor = static_cast<uint32_t>(mi);
    d.name = std::string(w[2]);
    // reads, merged, sectors, ms; writes, merged, sectors, ms; in flight, io ms, weighted ms
    d.reads = v[0];
    d.read_sectors = v[2];
    d.read_ms = v[3];
    d.writes = v[4];
    d.write_sectors = v[6];
    d.write_ms = v[7];
    d.busy_ms = v[9];
    d.queue_ms = v[10];
    out.push_back(std::move(d));
  });
  return out;
}

std::vector<NetCounters> ParseNetDev(std::string_view text) {
  std::vector<NetCounters> out;
  ForEachLine(text, [&](std::string_view line) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;  // the two header lines
    const auto name = Words(line.substr(0, colon));
    const auto w = Words(line.substr(colon + 1));
    if (name.size() != 1 || w.size() < 10) return;
    NetCounters n;
    n.name = std::string(name[0]);
    // rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes packets ...
    if (!Number(w[0], n.rx_bytes) || !Number(w[1], n.rx_packets) || !Number(w[8], n.tx_bytes) || !Number(w[9], n.tx_packets)) return;
    out.push_back(std::move(n));
  });
  return out;
}

std::vector<CoreTicks> ParseCoreTicks(std::string_view proc_stat) {
  std::vector<CoreTicks> out;
  ForEachLine(proc_stat, [&](std::string_view line) {
    const auto w = Words(line);
    // "cpu0 user nice system idle iowait irq softirq steal ...": the per-core lines only.
    if (w.size() < 9 || w[0].size() <= 3 || w[0].substr(0, 3) != "cpu") return;
    uint64_t v[8] = {};
    for (int i = 0; i < 8; ++i) {
      if (!Number(w[1 + i], v[i])) return;
    }
    CoreTicks c;
    c.name = std::string(w[0]);
    for (uint64_t t : v) c.total += t;  // guest time is already in user
    c.busy = c.total - v[3] - v[4];
    out.push_back(std::move(c));
  });
  return out;
}

void ParseThrottleV1(std::string_view text, bool bytes, std::vector<ThrottleCounters>& into) {
  ForEachLine(text, [&](std::string_view line) {
    const auto w = Words(line);
    uint32_t ma = 0, mi = 0;
    uint64_t n = 0;
    if (w.size() != 3 || !DeviceNumbers(w[0], ma, mi) || !Number(w[2], n)) return;
    ThrottleCounters& t = EntryFor(into, ma, mi);
    if (w[1] == "Read") (bytes ? t.read_bytes : t.reads) = n;
    else if (w[1] == "Write") (bytes ? t.write_bytes : t.writes) = n;
  });
}

std::vector<ThrottleCounters> ParseIoStatV2(std::string_view text) {
  std::vector<ThrottleCounters> out;
  ForEachLine(text, [&](std::string_view line) {
    const auto w = Words(line);
    uint32_t ma = 0, mi = 0;
    if (w.size() < 2 || !DeviceNumbers(w[0], ma, mi)) return;
    ThrottleCounters& t = EntryFor(out, ma, mi);
    for (size_t i = 1; i < w.size(); ++i) {
      uint64_t n = 0;
      if (KeyValue(w[i], "rbytes", n)) t.read_bytes = n;
      else if (KeyValue(w[i], "wbytes", n)) t.write_bytes = n;
      else if (KeyValue(w[i], "rios", n)) t.reads = n;
      else if (KeyValue(w[i], "wios", n)) t.writes = n;
    }
  });
  return out;
}

void ParseThrottleLimitV1(std::string_view text, std::optional<uint64_t> ThrottleLimits::*field,
                          std::vector<ThrottleLimits>& into) {
  ForEachLine(text, [&](std::string_view line) {
    const auto w = Words(line);
    uint32_t ma = 0, mi = 0;
    uint64_t n = 0;
    if (w.size() != 2 || !DeviceNumbers(w[0], ma, mi) || !Number(w[1], n)) return;
    EntryFor(into, ma, mi).*field = n;
  });
}

std::vector<ThrottleLimits> ParseIoMaxV2(std::string_view text) {
  std::vector<ThrottleLimits> out;
  ForEachLine(text, [&](std::string_view line) {
    const auto w = Words(line);
    uint32_t ma = 0, mi = 0;
    if (w.size() < 2 || !DeviceNumbers(w[0], ma, mi)) return;
    ThrottleLimits& t = EntryFor(out, ma, mi);
    for (size_t i = 1; i < w.size(); ++i) {
      uint64_t n = 0;
      if (KeyValue(w[i], "rbps", n)) t.read_bps = n;
      else if (KeyValue(w[i], "wbps", n)) t.write_bps = n;
      else if (KeyValue(w[i], "riops", n)) t.read_iops = n;
      else if (KeyValue(w[i], "wiops", n)) t.write_iops = n;
    }
  });
  return out;
}

std::pair<std::string, bool> BlkioCgroupDir(std::string_view proc_self_cgroup) {
  std::string v1_path, v2_path;
  bool has_v2 = false;
  ForEachLine(proc_self_cgroup, [&](std::string_view line) {
    // "12:blkio:/a/b" (v1, controllers comma-separated) or "0::/a/b" (v2).
    const size_t first = line.find(':');
    const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) return;
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string path(line.substr(second + 1));
    if (controllers.empty()) {
      v2_path = path;
      has_v2 = true;
      return;
    }
    size_t at = 0;
    while (at <= controllers.size()) {
      size_t end = controllers.find(',', at);
      if (end == std::string_view::npos) end = controllers.size();
      if (controllers.substr(at, end - at) == "blkio") v1_path = path;
      at = end + 1;
    }
  });
  if (!v1_path.empty()) return {"/sys/fs/cgroup/blkio" + (v1_path == "/" ? std::string() : v1_path), false};
  if (has_v2) return {"/sys/fs/cgroup" + (v2_path == "/" ? std::string() : v2_path), true};
  return {"", false};
}

namespace {

void AddDevice(ResourceTargets& t, dev_t dev, const std::string& role, int depth) {
  const uint32_t ma = major(dev), mi = minor(dev);
  // 0: an anonymous device (tmpfs, overlay, btrfs subvolumes). At most 64 (the controller's
  // bound), e.g. the members of a large device-mapper or md array.
  if (ma == 0 || depth > 4 || t.devices.size() >= kMaxDevices) return;
  for (const auto& d : t.devices) {
    if (d.major == ma && d.minor == mi) return;
  }
  const fs::path sys = fs::path("/sys/dev/block") / (std::to_string(ma) + ":" + std::to_string(mi));
  std::error_code ec;
  const fs::path real = fs::canonical(sys, ec);
  if (ec) return;
  ResourceTargets::Device d{ma, mi, real.filename().string(), role, std::nullopt};
  // A partition's queue is its disk's, one directory up.
  std::string rotational = ReadSmallFile(sys / "queue" / "rotational");
  if (rotational.empty()) rotational = ReadSmallFile(real.parent_path() / "queue" / "rotational");
  if (!rotational.empty()) d.rotational = rotational[0] == '1';
  t.devices.push_back(d);
  const std::string backing = Trimmed(ReadSmallFile(sys / "loop" / "backing_file"));
  struct stat st {};
  if (!backing.empty() && stat(backing.c_str(), &st) == 0) AddDevice(t, st.st_dev, "backing", depth + 1);
  for (const auto& slave : fs::directory_iterator(sys / "slaves", ec)) {
    uint32_t sma = 0, smi = 0;
    if (DeviceNumbers(Trimmed(ReadSmallFile(slave.path() / "dev")), sma, smi)) AddDevice(t, makedev(sma, smi), "under", depth + 1);
  }
}

bool IsTarget(const ResourceTargets& t, uint32_t ma, uint32_t mi) {
  return std::any_of(t.devices.begin(), t.devices.end(), [&](const auto& d) { return d.major == ma && d.minor == mi; });
}

// The limits of the targets' throttle in force now (v1 blkio.throttle.*_device or v2 io.max).
std::vector<ThrottleLimits> ReadThrottleLimits(const ResourceTargets& t) {
  std::vector<ThrottleLimits> limits, out;
  if (t.cgroup_dir.empty()) return out;
  const fs::path d(t.cgroup_dir);
  if (t.cgroup_v2) {
    limits = ParseIoMaxV2(ReadSmallFile(d / "io.max"));
  } else {
    ParseThrottleLimitV1(ReadSmallFile(d / "blkio.throttle.read_bps_device"), &ThrottleLimits::read_bps, limits);
    ParseThrottleLimitV1(ReadSmallFile(d / "blkio.throttle.write_bps_device"), &ThrottleLimits::write_bps, limits);
    ParseThrottleLimitV1(ReadSmallFile(d / "blkio.throttle.read_iops_device"), &ThrottleLimits::read_iops, limits);
    ParseThrottleLimitV1(ReadSmallFile(d / "blkio.throttle.write_iops_device"), &ThrottleLimits::write_iops, limits);
  }
  for (const auto& l : limits) {
    if (IsTarget(t, l.major, l.minor)) out.push_back(l);
  }
  return out;
}

}  // namespace

ResourceTargets FindResourceTargets(const std::string& dir) {
  ResourceTargets t;
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    AddDevice(t, st.st_dev, "target", 0);
    std::error_code real_ec;
    const fs::path real = fs::canonical(dir, real_ec);
    if (major(st.st_dev) == 0 && !real_ec) {  // no block device: perhaps an NFS mount
      t.nfs_mount = NfsMountPoint(ReadSmallFile("/proc/self/mountinfo"), major(st.st_dev), minor(st.st_dev), real.string());
    }
  }
  auto [cgroup, v2] = BlkioCgroupDir(ReadSmallFile("/proc/self/cgroup"));
  std::error_code ec;
  if (cgroup.empty() || !fs::is_directory(cgroup, ec)) return t;
  t.cgroup_dir = cgroup;
  t.cgroup_v2 = v2;
  return t;
}

ResourceReading ReadResources(const ResourceTargets& targets) {
  ResourceReading r;
  r.at_ns = MonotonicNs();
  r.read = true;
  for (auto& d : ParseDiskstats(ReadSmallFile("/proc/diskstats"))) {
    if (IsTarget(targets, d.major, d.minor)) r.disks.push_back(std::move(d));
  }
  r.nets = ParseNetDev(ReadSmallFile("/proc/net/dev"));
  r.cores = ParseCoreTicks(ReadSmallFile("/proc/stat"));
  r.nfs = ReadNfsCounters(targets.nfs_mount);
  if (!targets.cgroup_dir.empty()) {
    std::vector<ThrottleCounters> all;
    const fs::path d(targets.cgroup_dir);
    if (targets.cgroup_v2) {
      all = ParseIoStatV2(ReadSmallFile(d / "io.stat"));
    } else {
      ParseThrottleV1(ReadSmallFile(d / "blkio.throttle.io_service_bytes"), true, all);
      ParseThrottleV1(ReadSmallFile(d / "blkio.throttle.io_serviced"), false, all);
    }
    for (auto& t : all) {
      if (IsTarget(targets, t.major, t.minor)) r.throttles.push_back(t);
    }
    r.limits = ReadThrottleLimits(targets);
  }
  return r;
}

namespace {

// A counter that went backwards (a device removed and another added under the same number)
// gives no figure rather than a wrapped one.
bool Delta(uint64_t from, uint64_t to, uint64_t& out) {
  if (to < from) return false;
  out = to - from;
  return true;
}

// The window's NFS figures; none where either reading lacks the mount or a counter went back (a
// remount).
void NfsDelta(const NfsCounters& a, const NfsCounters& b, v1::NfsStats& out) {
  if (!a.has_bytes || !b.has_bytes) return;
  uint64_t v[6];
  if (!Delta(a.normal_read_bytes, b.normal_read_bytes, v[0]) || !Delta(a.normal_write_bytes, b.normal_write_bytes, v[1]) ||
      !Delta(a.direct_read_bytes, b.direct_read_bytes, v[2]) || !Delta(a.direct_write_bytes, b.direct_write_bytes, v[3]) ||
      !Delta(a.server_read_bytes, b.server_read_bytes, v[4]) || !Delta(a.server_write_bytes, b.server_write_bytes, v[5])) {
    return;
  }
  out.set_server(b.server);
  out.set_version(b.version);
  out.set_normal_read_bytes(v[0]);
  out.set_normal_write_bytes(v[1]);
  out.set_direct_read_bytes(v[2]);
  out.set_direct_write_bytes(v[3]);
  out.set_server_read_bytes(v[4]);
  out.set_server_write_bytes(v[5]);
  const auto op = [](bool had, const NfsOpCounters& x, bool has, const NfsOpCounters& y, v1::NfsOpStats* (v1::NfsStats::*field)(),
                     v1::NfsStats& into) {
    uint64_t d[6];
    if (!had || !has || !Delta(x.ops, y.ops, d[0]) || !Delta(x.transmissions, y.transmissions, d[1]) ||
        !Delta(x.major_timeouts, y.major_timeouts, d[2]) || !Delta(x.queue_ms, y.queue_ms, d[3]) || !Delta(x.rtt_ms, y.rtt_ms, d[4]) ||
        !Delta(x.execute_ms, y.execute_ms, d[5])) {
      return;
    }
    v1::NfsOpStats& o = *(into.*field)();
    o.set_ops(d[0]);
    o.set_transmissions(d[1]);
    o.set_major_timeouts(d[2]);
    o.set_queue_ms(d[3]);
    o.set_rtt_ms(d[4]);
    o.set_execute_ms(d[5]);
  };
  op(a.has_read, a.read, b.has_read, b.read, &v1::NfsStats::mutable_read, out);
  op(a.has_write, a.write, b.has_write, b.write, &v1::NfsStats::mutable_write, out);
  op(a.has_commit, a.commit, b.has_commit, b.commit, &v1::NfsStats::mutable_commit, out);
}

}  // namespace

void ResourceDelta(const ResourceTargets& targets, const ResourceReading& start, const ResourceReading& end,
                   v1::ResourceStats& out) {
  if (!start.read || !end.read || end.at_ns <= start.at_ns) return;
  out.set_window_ns(end.at_ns - start.at_ns);
  for (const auto& target : targets.devices) {
    auto find = [&](const ResourceReading& r) -> const DiskCounters* {
      for (const auto& d : r.disks) {
        if (d.major == target.major && d.minor == target.minor) return &d;
      }
      return nullptr;
    };
    const DiskCounters *a = find(start), *b = find(end);
    if (!a || !b) continue;
    uint64_t v[8];
    if (!Delta(a->reads, b->reads, v[0]) || !Delta(a->writes, b->writes, v[1]) || !Delta(a->read_sectors, b->read_sectors, v[2]) ||
        !Delta(a->write_sectors, b->write_sectors, v[3]) || !Delta(a->read_ms, b->read_ms, v[4]) ||
        !Delta(a->write_ms, b->write_ms, v[5]) || !Delta(a->busy_ms, b->busy_ms, v[6]) || !Delta(a->queue_ms, b->queue_ms, v[7])) {
      continue;
    }
    v1::DeviceStats& d = *out.add_devices();
    d.set_name(target.name);
    d.set_role(target.role);
    d.set_major(target.major);
    d.set_minor(target.minor);
    d.set_reads(v[0]);
    d.set_writes(v[1]);
    d.set_read_bytes(v[2] * 512);  // diskstats counts 512-byte sectors whatever the device's
    d.set_write_bytes(v[3] * 512);
    d.set_read_ms(v[4]);
    d.set_write_ms(v[5]);
    d.set_busy_ms(v[6]);
    d.set_queue_ms(v[7]);
    if (target.rotational) d.set_rotational(*target.rotational);
  }
  for (const auto& b : end.nets) {
    if (b.name == "lo" || out.networks_size() >= 64) continue;
    auto a = std::find_if(start.nets.begin(), start.nets.end(), [&](const NetCounters& n) { return n.name == b.name; });
    if (a == start.nets.end()) continue;
    uint64_t v[4];
    if (!Delta(a->rx_bytes, b.rx_bytes, v[0]) || !Delta(a->tx_bytes, b.tx_bytes, v[1]) || !Delta(a->rx_packets, b.rx_packets, v[2]) ||
        !Delta(a->tx_packets, b.tx_packets, v[3]) || (v[0] == 0 && v[1] == 0)) {
      continue;
    }
    v1::NetworkStats& n = *out.add_networks();
    n.set_name(b.name);
    n.set_rx_bytes(v[0]);
    n.set_tx_bytes(v[1]);
    n.set_rx_packets(v[2]);
    n.set_tx_packets(v[3]);
    // -1 or an error where the driver does not know (virtio, veth without a set speed).
    const std::string speed = Trimmed(ReadSmallFile(fs::path("/sys/class/net") / b.name / "speed"));
    uint64_t mbps = 0;
    if (Number(speed, mbps) && mbps > 0) n.set_speed_mbps(mbps);
  }
  uint32_t busiest = 0;
  bool any_core = false;
  for (const auto& b : end.cores) {
    auto a = std::find_if(start.cores.begin(), start.cores.end(), [&](const CoreTicks& c) { return c.name == b.name; });
    uint64_t busy = 0, total = 0;
    if (a == start.cores.end() || !Delta(a->busy, b.busy, busy) || !Delta(a->total, b.total, total) || total == 0 || busy > total) continue;
    const uint32_t permille = static_cast<uint32_t>(busy * 1000 / total);
    if (!any_core || permille > busiest) out.set_max_core(b.name);
    busiest = std::max(busiest, permille);
    any_core = true;
  }
  if (any_core) out.set_max_core_busy_permille(busiest);
  if (start.nfs && end.nfs && start.nfs->server == end.nfs->server) {
    v1::NfsStats nfs;
    NfsDelta(*start.nfs, *end.nfs, nfs);
    if (!nfs.server().empty()) *out.mutable_nfs() = std::move(nfs);
  }
  const auto same = [](const ThrottleLimits& x, const ThrottleLimits& y) {
    return x.major == y.major && x.minor == y.minor && x.read_bps == y.read_bps && x.write_bps == y.write_bps &&
           x.read_iops == y.read_iops && x.write_iops == y.write_iops;
  };
  for (const auto& limit : end.limits) {
    // A limit set, changed or lifted within the window did not hold it: no figure of it.
    if (std::none_of(start.limits.begin(), start.limits.end(), [&](const ThrottleLimits& l) { return same(l, limit); })) continue;
    auto find = [&](const ResourceReading& r) -> const ThrottleCounters* {
      for (const auto& t : r.throttles) {
        if (t.major == limit.major && t.minor == limit.minor) return &t;
      }
      return nullptr;
    };
    const ThrottleCounters* a = find(start);
    const ThrottleCounters* b = find(end);
    // No counters at the start: the group had moved nothing through this device yet; none at
    // the end (or a counter that went back): nothing to say of the window.
    const ThrottleCounters zero{};
    if (!a) a = &zero;
    uint64_t v[4];
    if (!b || !Delta(a->read_bytes, b->read_bytes, v[0]) || !Delta(a->write_bytes, b->write_bytes, v[1]) ||
        !Delta(a->reads, b->reads, v[2]) || !Delta(a->writes, b->writes, v[3])) {
      continue;
    }
    v1::ThrottleStats& t = *out.add_throttles();
    t.set_major(limit.major);
    t.set_minor(limit.minor);
    if (limit.read_bps) t.set_read_bps_limit(*limit.read_bps);
    if (limit.write_bps) t.set_write_bps_limit(*limit.write_bps);
    if (limit.read_iops) t.set_read_iops_limit(*limit.read_iops);
    if (limit.write_iops) t.set_write_iops_limit(*limit.write_iops);
    t.set_read_bytes(v[0]);
    t.set_write_bytes(v[1]);
    t.set_reads(v[2]);
    t.set_writes(v[3]);
  }
}

}  // namespace iofleet::agent
