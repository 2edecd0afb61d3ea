#include "controller/report/limit_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace iofleet::controller {
namespace {

constexpr double kNearPct = 90.0;        // a figure this close to its cap is held by it
constexpr double kQueueShare = 0.8;      // of what the jobs keep in flight, queued on the device
constexpr double kSmallQueueShare = 0.5;  // the same with few in flight: each request's life is mostly the device's
constexpr double kDeviceTimeShare = 0.5;  // of iofleet's latency, spent in the device
// A device request at most this many times iofleet's own: a slower device serves another's I/O (its
// requests merged or split, ours take at least their time in it; twice leaves room for the sampling).
constexpr double kDeviceAboveIofleet = 2.0;
constexpr double kCoreBusyPct = 95.0;
// A client this busy whose requests wait in it, not in the device, is held by its CPU.
constexpr double kLaggingWorkerPct = 85.0;
constexpr double kOthersShare = 1.2;     // direct I/O: a device moving this much more than the jobs
constexpr uint64_t kOthersSlackBytes = 1 << 20;
// Buffered reads: under this many bytes read, the device's metadata and readahead outweigh them.
constexpr uint64_t kPageCacheMinBytes = 1 << 20;

bool SoundName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isprint(static_cast<unsigned char>(c)) && c != ' '; });
}

std::string Rate(double bytes_per_sec) { return fmt::format("{:.2f}MiB/s", bytes_per_sec / 1048576.0); }

std::string Bytes(uint64_t bytes) { return fmt::format("{:.2f}MiB", static_cast<double>(bytes) / 1048576.0); }

std::string Ms(double ns) { return ns >= 1e6 ? fmt::format("{:.2f} ms", ns / 1e6) : fmt::format("{:.0f} us", ns / 1e3); }

std::string DeviceName(const v1::ResourceStats& r, uint32_t major_no, uint32_t minor_no) {
  std::string at = fmt::format("{}:{}", major_no, minor_no);
  for (const auto& d : r.devices()) {
    if (d.major() == major_no && d.minor() == minor_no) return at + " (" + d.name() + ")";
  }
  return at;
}

void NfsFigures(const v1::NfsStats& n, double seconds, v1::ReportNfs& out) {
  out.set_server(n.server());
  out.set_version(n.version());
  out.set_server_read_bytes_per_sec(static_cast<double>(n.server_read_bytes()) / seconds);
  out.set_server_write_bytes_per_sec(static_cast<double>(n.server_write_bytes()) / seconds);
  const auto op = [&](const v1::NfsOpStats& o, v1::ReportNfsOp& to) {
    to.set_ops_per_sec(static_cast<double>(o.ops()) / seconds);
    to.set_retransmissions(o.transmissions() > o.ops() ? o.transmissions() - o.ops() : 0);
    to.set_major_timeouts(o.major_timeouts());
    if (o.ops() == 0) return;
    const double per = 1e6 / static_cast<double>(o.ops());  // ms in total to ns per request
    to.set_avg_rtt_ns(static_cast<double>(o.rtt_ms()) * per);
    to.set_avg_execute_ns(static_cast<double>(o.execute_ms()) * per);
    to.set_avg_queue_ns(static_cast<double>(o.queue_ms()) * per);
  };
  if (n.has_read()) op(n.read(), *out.mutable_read());
  if (n.has_write()) op(n.write(), *out.mutable_write());
  if (n.has_commit()) op(n.commit(), *out.mutable_commit());
}

// "NFS s:/e (v4.2): READ 1.20 ms round trip of 1.30 ms per request, 0.05 ms queued in the client,
// 0 retransmissions": where a request's time went, on the wire and server or in the client.
void AddNfsEvidence(const v1::ReportNfs& n, v1::ReportLimit& out) {
  const auto op = [&](const char* name, const v1::ReportNfsOp& o) {
    if (!o.has_avg_execute_ns()) return;
    out.add_evidence(fmt::format("NFS {}{}: {} {} round trip of {} per request, {} queued in the client, {} retransmissions, {} major timeouts",
                                 n.server(), n.version().empty() ? "" : " (v" + n.version() + ")", name, Ms(o.avg_rtt_ns()),
                                 Ms(o.avg_execute_ns()), Ms(o.avg_queue_ns()), o.retransmissions(), o.major_timeouts()));
  };
  if (n.has_read()) op("READ", n.read());
  if (n.has_write()) op("WRITE", n.write());
}

void Judge(v1::ReportLimit& out, const char* verdict, std::vector<std::string> evidence) {
  out.set_verdict(verdict);
  for (auto& e : evidence) out.add_evidence(std::move(e));
}

}  // namespace

bool ResourcesAreSound(const v1::ResourceStats& r) {
  if (r.window_ns() == 0 || r.devices_size() > kMaxResourceRows || r.networks_size() > kMaxResourceRows ||
      r.throttles_size() > kMaxResourceRows) {
    return false;
  }
  if (r.has_max_core_busy_permille() && (r.max_core_busy_permille() > 1000 || !SoundName(r.max_core()))) return false;
  const uint64_t window_ms = r.window_ns() / 1'000'000 + 1;  // the kernel counts whole ms
  for (const auto& d : r.devices()) {
    if (!SoundName(d.name()) || (d.role() != "target" && d.role() != "backing" && d.role() != "under")) return false;
    if (d.busy_ms() > window_ms + 10) return false;  // busy longer than the window: not a reading
  }
  for (const auto& n : r.networks()) {
    if (!SoundName(n.name())) return false;
  }
  if (r.has_nfs()) {
    const std::string& server = r.nfs().server();
    const bool printable = std::all_of(server.begin(), server.end(), [](char c) { return std::isprint(static_cast<unsigned char>(c)) && c != ' '; });
    if (server.empty() || server.size() > 256 || !printable || (!r.nfs().version().empty() && !SoundName(r.nfs().version()))) return false;
  }
  return true;
}

v1::ReportResources ResourceFigures(const v1::ResourceStats& r, const StepStats& agent) {
  v1::ReportResources out;
  const double seconds = static_cast<double>(r.window_ns()) / 1e9;
  const double window_ms = static_cast<double>(r.window_ns()) / 1e6;
  uint64_t target_bytes = 0;
  std::optional<uint64_t> target_read_bytes;
  for (const auto& d : r.devices()) {
    v1::ReportDevice& o = *out.add_devices();
    o.set_name(d.name());
    o.set_role(d.role());
    o.set_util_pct(std::min(100.0, 100.0 * static_cast<double>(d.busy_ms()) / window_ms));
    o.set_avg_queue(static_cast<double>(d.queue_ms()) / window_ms);
    const uint64_t ios = d.reads() + d.writes();
    if (ios) o.set_avg_latency_ns(static_cast<double>(d.read_ms() + d.write_ms()) * 1e6 / static_cast<double>(ios));
    o.set_read_iops(static_cast<double>(d.reads()) / seconds);
    o.set_write_iops(static_cast<double>(d.writes()) / seconds);
    o.set_read_bytes_per_sec(static_cast<double>(d.read_bytes()) / seconds);
    o.set_write_bytes_per_sec(static_cast<double>(d.write_bytes()) / seconds);
    if (d.has_rotational()) o.set_rotational(d.rotational());
    if (d.role() == "target") {
      target_bytes = std::max(target_bytes, d.read_bytes() + d.write_bytes());
      target_read_bytes = std::max(target_read_bytes.value_or(0), d.read_bytes());
    }
  }
  for (const auto& n : r.networks()) {
    v1::ReportNetwork& o = *out.add_networks();
    o.set_name(n.name());
    o.set_rx_bytes_per_sec(static_cast<double>(n.rx_bytes()) / seconds);
    o.set_tx_bytes_per_sec(static_cast<double>(n.tx_bytes()) / seconds);
    o.set_rx_packets_per_sec(static_cast<double>(n.rx_packets()) / seconds);
    o.set_tx_packets_per_sec(static_cast<double>(n.tx_packets()) / seconds);
    if (n.has_speed_mbps()) o.set_speed_bytes_per_sec(static_cast<double>(n.speed_mbps()) * 1e6 / 8);
  }
  if (r.has_max_core_busy_permille()) {
    out.set_max_core_busy_pct(r.max_core_busy_permille() / 10.0);
    out.set_max_core(r.max_core());
  }
  for (const auto& t : r.throttles()) {
    v1::ReportThrottle& o = *out.add_throttles();
    o.set_device(DeviceName(r, t.major(), t.minor()));
    if (t.has_read_bps_limit()) o.set_read_bps_limit(static_cast<double>(t.read_bps_limit()));
    if (t.has_write_bps_limit()) o.set_write_bps_limit(static_cast<double>(t.write_bps_limit()));
    if (t.has_read_iops_limit()) o.set_read_iops_limit(static_cast<double>(t.read_iops_limit()));
    if (t.has_write_iops_limit()) o.set_write_iops_limit(static_cast<double>(t.write_iops_limit()));
    o.set_read_bytes_per_sec(static_cast<double>(t.read_bytes()) / seconds);
    o.set_write_bytes_per_sec(static_cast<double>(t.write_bytes()) / seconds);
    o.set_read_iops(static_cast<double>(t.reads()) / seconds);
    o.set_write_iops(static_cast<double>(t.writes()) / seconds);
  }
  if (r.has_nfs()) NfsFigures(r.nfs(), seconds, *out.mutable_nfs());
  out.set_in_flight(r.in_flight());
  // Buffered I/O reaches the device as the page cache decides: no comparison to make.
  if (r.direct() && r.devices_size() > 0) {
    const uint64_t ours = agent.read.bytes + agent.write.bytes;
    out.set_others_used_device(static_cast<double>(target_bytes) > kOthersShare * static_cast<double>(ours) + kOthersSlackBytes);
  }
  // A read the device did not serve was the page cache's (the kernel counts no hits per file
  // without tracing): what the jobs read against what their target device read.
  if (!target_read_bytes && r.has_nfs()) target_read_bytes = r.nfs().server_read_bytes();  // no device: what the server sent
  if (r.buffered() && target_read_bytes && agent.read.bytes >= kPageCacheMinBytes) {
    const double device_share = static_cast<double>(*target_read_bytes) / static_cast<double>(agent.read.bytes);
    out.set_page_cache_read_pct(100.0 * std::max(0.0, 1.0 - device_share));
  }
  return out;
}

namespace {

// The step's rate, where the agent came near it: the first rule.
bool JudgeRateCap(const v1::ResourceStats& r, const StepStats& agent, v1::ReportLimit& out) {
  const double iops = agent.iops(), bps = agent.bytes_per_sec();
  if (r.rate_iops() > 0 && iops >= kNearPct / 100 * static_cast<double>(r.rate_iops())) {
    Judge(out, "rate_cap", {fmt::format("rate: {} IOPS asked of its jobs together, {:.1f} done ({:.1f}%)", r.rate_iops(), iops,
                                        100 * iops / static_cast<double>(r.rate_iops()))});
    return true;
  }
  if (r.rate_bytes_per_sec() > 0 && bps >= kNearPct / 100 * static_cast<double>(r.rate_bytes_per_sec())) {
    Judge(out, "rate_cap", {fmt::format("rate: {} asked of its jobs together, {} done ({:.1f}%)",
                                        Rate(static_cast<double>(r.rate_bytes_per_sec())), Rate(bps),
                                        100 * bps / static_cast<double>(r.rate_bytes_per_sec()))});
    return true;
  }
  return false;
}

// A link near its speed, where the storage is reached over one: storage on a local block device
// is not, and a link busy with other traffic beside it (a backup beside a local NVMe test)
// holds nothing of the step's.
bool JudgeNetwork(const v1::ResourceStats& r, const v1::ReportResources& f, v1::ReportLimit& out) {
  if (std::any_of(r.devices().begin(), r.devices().end(), [](const v1::DeviceStats& d) { return d.role() == "target"; })) return false;
  for (const auto& n : f.networks()) {
    if (!n.has_speed_bytes_per_sec() || n.speed_bytes_per_sec() <= 0) continue;
    const double carried = std::max(n.rx_bytes_per_sec(), n.tx_bytes_per_sec());
    if (carried < kNearPct / 100 * n.speed_bytes_per_sec()) continue;
    Judge(out, "network", {fmt::format("{}: {} of its {} link ({:.1f}%)", n.name(), Rate(carried), Rate(n.speed_bytes_per_sec()),
                                       100 * carried / n.speed_bytes_per_sec())});
    return true;
  }
  return false;
}

v1::ReportLimit HeldBy(const v1::ResourceStats& r, const StepStats& agent, std::optional<uint32_t> shared_in_flight) {
  v1::ReportLimit out;
  const v1::ReportResources f = ResourceFigures(r, agent);
  if (JudgeRateCap(r, agent, out)) return out;

  for (const auto& t : f.throttles()) {
    struct Cap {
      bool has;
      double limit, passed;
      const char* what;
      bool bytes;
    };
    const Cap caps[] = {{t.has_read_bps_limit(), t.read_bps_limit(), t.read_bytes_per_sec(), "reads", true},
                        {t.has_write_bps_limit(), t.write_bps_limit(), t.write_bytes_per_sec(), "writes", true},
                        {t.has_read_iops_limit(), t.read_iops_limit(), t.read_iops(), "reads", false},
                        {t.has_write_iops_limit(), t.write_iops_limit(), t.write_iops(), "writes", false}};
    for (const Cap& c : caps) {
      if (!c.has || c.limit <= 0 || c.passed < kNearPct / 100 * c.limit) continue;
      const std::string limit = c.bytes ? Rate(c.limit) : fmt::format("{:.0f} IOPS", c.limit);
      const std::string passed = c.bytes ? Rate(c.passed) : fmt::format("{:.1f} IOPS", c.passed);
      Judge(out, "device", {fmt::format("blkio throttle of its cgroup on {}: {} at most {}, {} passed ({:.1f}%)", t.device(), c.what,
                                        limit, passed, 100 * c.passed / c.limit)});
      return out;
    }
  }

  const v1::ReportDevice* busiest = BusiestDevice(f);
  const double mean_ns = agent.latency->count() ? agent.latency->Mean() : 0.0;
  // The device's queue holds every stream's requests: a stream's share of it is judged against
  // what all of them keep in flight.
  const uint32_t in_flight = shared_in_flight ? std::max(*shared_in_flight, r.in_flight()) : r.in_flight();
  const std::string kept = shared_in_flight ? fmt::format("{} every stream's jobs keep in flight ({} this stream's)", in_flight, r.in_flight())
                                            : fmt::format("{} its jobs keep in flight", in_flight);
  // The time of iofleet's requests is the device's, and its queue is what the jobs give it. A
  // device slower than iofleet's own requests serves someone else's (the null engine's 0 us
  // requests beside a build that kept the disk busy): a request's time in the device is part of
  // its time in iofleet.
  const bool in_device = busiest && in_flight > 0 && r.direct() && busiest->has_avg_latency_ns() && mean_ns > 0 &&
                         busiest->avg_latency_ns() >= kDeviceTimeShare * mean_ns &&
                         busiest->avg_latency_ns() <= kDeviceAboveIofleet * mean_ns;
  const double queued_share = busiest && in_flight ? busiest->avg_queue() / static_cast<double>(in_flight) : 0.0;
  const auto device_evidence = [&] {
    return std::vector<std::string>{
        fmt::format("{}: busy {:.1f}% of the window, {:.1f} requests queued on average of the {}", busiest->name(), busiest->util_pct(),
                    busiest->avg_queue(), kept),
        fmt::format("{}: device latency {} of iofleet's {}", busiest->name(), Ms(busiest->avg_latency_ns()), Ms(mean_ns))};
  };
  if (in_device && in_flight <= kSmallInFlight && queued_share >= kSmallQueueShare) {
    std::vector<std::string> evidence = device_evidence();
    evidence.push_back(fmt::format("{} in flight is what bounds the device's queue: more (queue_depth, jobs) would likely do more", in_flight));
    Judge(out, "queue_depth", std::move(evidence));
    return out;
  }
  // Most of the jobs' requests, or more than a small queue holds, waiting in the device (a slow
  // client, e.g. a sanitizer build, kept 12 of 16 there): the device's limit. Its busy time is
  // evidence, not a condition: blk-mq counts io_ticks per jiffy and under-counts a device with
  // many requests in flight (virtio here showed 81% busy with 11 of 16 queued on average).
  if (in_device && in_flight > kSmallInFlight && (queued_share >= kQueueShare || busiest->avg_queue() > 2.0 * kSmallInFlight)) {
    Judge(out, "device", device_evidence());
    return out;
  }

  // More in flight than reached the device's queue: the rest of each request's life was the
  // client's (submitting, reaping). With a job thread or a core nearly busy, that is its CPU (on
  // 2 cores in the full suite: 6.7 of 16 queued, a job thread 89.2% and a core 90.2% busy).
  const double worker_pct = agent.cpu ? agent.cpu->max_worker_busy_permille / 10.0 : 0.0;
  const double core_pct = f.has_max_core_busy_pct() ? f.max_core_busy_pct() : 0.0;
  if (busiest && r.direct() && in_flight > kSmallInFlight && queued_share < kQueueShare &&
      (worker_pct >= kLaggingWorkerPct || core_pct >= kNearPct)) {
    std::vector<std::string> evidence{fmt::format(
        "{}: {:.1f} requests queued on average of the {} ({:.0f}%): the rest waited in the client", busiest->name(), busiest->avg_queue(),
        kept, 100 * queued_share)};
    if (agent.cpu) evidence.push_back(fmt::format("cpu.busiest_worker_pct {:.1f}", worker_pct));
    if (f.has_max_core_busy_pct()) evidence.push_back(fmt::format("{} busy {:.1f}%", f.max_core(), core_pct));
    Judge(out, "client_cpu", std::move(evidence));
    return out;
  }
  if (agent.cpu && agent.cpu_bound) {
    const CpuFigures& c = *agent.cpu;
    std::vector<std::string> evidence;
    if (c.max_worker_busy_permille > 900) {
      evidence.push_back(fmt::format("cpu.busiest_worker_pct {:.1f}: a job thread was busy nearly all the window (client_cpu_bound)",
                                     c.max_worker_busy_permille / 10.0));
    }
    if (c.host_measured() && c.host_busy_pct() > 90) {
      evidence.push_back(fmt::format("cpu.host_busy_pct {:.1f}: the whole host was busy (client_cpu_bound)", c.host_busy_pct()));
    }
    Judge(out, "client_cpu", std::move(evidence));
    return out;
  }
  if (f.has_max_core_busy_pct() && f.max_core_busy_pct() >= kCoreBusyPct) {
    Judge(out, "client_cpu", {fmt::format("{} busy {:.1f}% of the window", f.max_core(), f.max_core_busy_pct())});
    return out;
  }

  if (JudgeNetwork(r, f, out)) return out;

  std::vector<std::string> evidence;
  if (busiest) {
    evidence.push_back(fmt::format("{}: busy {:.1f}%, {:.1f} requests queued on average of the {}{}", busiest->name(),
                                   busiest->util_pct(), busiest->avg_queue(), kept,
                                   r.direct() ? "" : " (buffered, or the null engine: not the jobs' own I/O as it reached the device)"));
  } else {
    evidence.push_back(r.has_nfs() ? "no block device under the run directory: an NFS mount"
                                   : "no block device under the run directory (tmpfs, a network or FUSE file system)");
  }
  if (agent.cpu) evidence.push_back(fmt::format("cpu.busiest_worker_pct {:.1f}", agent.cpu->max_worker_busy_permille / 10.0));
  if (f.has_max_core_busy_pct()) evidence.push_back(fmt::format("{} busy {:.1f}%", f.max_core(), f.max_core_busy_pct()));
  Judge(out, "unknown", std::move(evidence));
  return out;
}

}  // namespace

v1::ReportLimit JudgeLimit(const v1::ResourceStats& r, const StepStats& agent, std::optional<uint32_t> shared_in_flight) {
  v1::ReportLimit out = HeldBy(r, agent, shared_in_flight);
  // Whatever held it, reads served from memory are not the storage's: the evidence says how many.
  const v1::ReportResources f = ResourceFigures(r, agent);
  if (f.has_nfs()) AddNfsEvidence(f.nfs(), out);
  if (f.has_page_cache_read_pct()) {
    std::optional<uint64_t> device_read;
    for (const auto& d : r.devices()) {
      if (d.role() == "target") device_read = std::max(device_read.value_or(0), d.read_bytes());
    }
    const bool nfs = !device_read;
    out.add_evidence(fmt::format("the page cache served {:.1f}% of its reads (the {} read {} of the jobs' {})", f.page_cache_read_pct(),
                                 nfs ? "NFS server" : "device", Bytes(nfs ? r.nfs().server_read_bytes() : *device_read),
                                 Bytes(agent.read.bytes)));
  }
  return out;
}

const v1::ReportDevice* BusiestDevice(const v1::ReportResources& f) {
  const v1::ReportDevice* best = nullptr;
  for (const auto& d : f.devices()) {
    if (!best || d.util_pct() > best->util_pct()) best = &d;
  }
  return best;
}

std::optional<std::string> PageCacheWarning(const v1::ReportStep& step) {
  const v1::ReportAgentFigures* most = nullptr;
  int over = 0;
  for (const v1::ReportAgentFigures& a : step.agents()) {
    if (!a.resources().has_page_cache_read_pct() || a.resources().page_cache_read_pct() < kPageCacheWarnPct) continue;
    ++over;
    if (!most || a.resources().page_cache_read_pct() > most->resources().page_cache_read_pct()) most = &a;
  }
  if (!most) return std::nullopt;
  std::string out = fmt::format("warning: the page cache served {:.0f}% of agent {}'s reads in the window, not its device: reads likely served from memory, not storage",
                                most->resources().page_cache_read_pct(), most->agent());
  if (step.agents_size() > 1) out += fmt::format(" ({} of {} agents over {:.0f}%)", over, step.agents_size(), kPageCacheWarnPct);
  return out;
}

std::string LimitText(const v1::ReportLimit& limit) {
  std::string out = limit.verdict();
  if (limit.has_agent()) out += " (agent " + limit.agent() + ")";
  for (int i = 0; i < limit.evidence_size(); ++i) out += (i == 0 ? ": " : "; ") + limit.evidence(i);
  return out;
}

std::optional<uint32_t> SharedInFlight(const StepReport& step, const std::string& agent) {
  if (step.streams.size() < 2) return std::nullopt;
  for (const AgentStep& whole : step.agents) {
    if (whole.agent == agent && whole.stats.resources) return whole.stats.resources->in_flight();
  }
  return std::nullopt;
}

std::optional<v1::ReportLimit> StepLimit(const StepReport& step) { return LimitAt(step, step.agents); }

std::optional<v1::ReportLimit> LimitAt(const StepReport& step, const std::vector<AgentStep>& agents) {
  for (const AgentStep& a : agents) {
    const bool named = step.slowest_agent.empty() ? agents.size() == 1 : a.agent == step.slowest_agent;
    if (!named || !a.stats.resources) continue;
    const std::optional<uint32_t> shared = &agents != &step.agents ? SharedInFlight(step, a.agent) : std::nullopt;
    v1::ReportLimit limit = JudgeLimit(*a.stats.resources, a.stats, shared);
    limit.set_agent(a.agent);
    return limit;
  }
  return std::nullopt;
}

}  // namespace iofleet::controller
