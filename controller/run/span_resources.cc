#include "controller/run/span_resources.h"

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <cstdint>

namespace iofleet::controller {
namespace {

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

bool AddDevice(const v1::DeviceStats& next, v1::DeviceStats& into) {
  if (next.name() != into.name() || next.role() != into.role() || next.major() != into.major() || next.minor() != into.minor()) return false;
  into.set_reads(SaturatingAdd(into.reads(), next.reads()));
  into.set_writes(SaturatingAdd(into.writes(), next.writes()));
  into.set_read_bytes(SaturatingAdd(into.read_bytes(), next.read_bytes()));
  into.set_write_bytes(SaturatingAdd(into.write_bytes(), next.write_bytes()));
  into.set_read_ms(SaturatingAdd(into.read_ms(), next.read_ms()));
  into.set_write_ms(SaturatingAdd(into.write_ms(), next.write_ms()));
  into.set_busy_ms(SaturatingAdd(into.busy_ms(), next.busy_ms()));
  into.set_queue_ms(SaturatingAdd(into.queue_ms(), next.queue_ms()));
  return true;
}

bool AddThrottle(const v1::ThrottleStats& next, v1::ThrottleStats& into) {
  v1::ThrottleStats limits_next = next, limits_into = into;
  for (v1::ThrottleStats* t : {&limits_next, &limits_into}) {
    t->clear_read_bytes();
    t->clear_write_bytes();
    t->clear_reads();
    t->clear_writes();
  }
  if (!google::protobuf::util::MessageDifferencer::Equals(limits_next, limits_into)) return false;
  into.set_read_bytes(SaturatingAdd(into.read_bytes(), next.read_bytes()));
  into.set_write_bytes(SaturatingAdd(into.write_bytes(), next.write_bytes()));
  into.set_reads(SaturatingAdd(into.reads(), next.reads()));
  into.set_writes(SaturatingAdd(into.writes(), next.writes()));
  return true;
}

void AddNfsOp(const v1::NfsOpStats& next, v1::NfsOpStats& into) {
  into.set_ops(SaturatingAdd(into.ops(), next.ops()));
  into.set_transmissions(SaturatingAdd(into.transmissions(), next.transmissions()));
  into.set_major_timeouts(SaturatingAdd(into.major_timeouts(), next.major_timeouts()));
  into.set_queue_ms(SaturatingAdd(into.queue_ms(), next.queue_ms()));
  into.set_rtt_ms(SaturatingAdd(into.rtt_ms(), next.rtt_ms()));
  into.set_execute_ms(SaturatingAdd(into.execute_ms(), next.execute_ms()));
}

bool AddNfs(const v1::NfsStats& next, v1::NfsStats& into) {
  if (next.server() != into.server() || next.version() != into.version() || next.has_read() != into.has_read() ||
      next.has_write() != into.has_write() || next.has_commit() != into.has_commit()) {
    return false;
  }
  into.set_normal_read_bytes(SaturatingAdd(into.normal_read_bytes(), next.normal_read_bytes()));
  into.set_normal_write_bytes(SaturatingAdd(into.normal_write_bytes(), next.normal_write_bytes()));
  into.set_direct_read_bytes(SaturatingAdd(into.direct_read_bytes(), next.direct_read_bytes()));
  into.set_direct_write_bytes(SaturatingAdd(into.direct_write_bytes(), next.direct_write_bytes()));
  into.set_server_read_bytes(SaturatingAdd(into.server_read_bytes(), next.server_read_bytes()));
  into.set_server_write_bytes(SaturatingAdd(into.server_write_bytes(), next.server_write_bytes()));
  if (next.has_read()) AddNfsOp(next.read(), *into.mutable_read());
  if (next.has_write()) AddNfsOp(next.write(), *into.mutable_write());
  if (next.has_commit()) AddNfsOp(next.commit(), *into.mutable_commit());
  return true;
}

// An interface is listed in a window where its counters moved: one quiet in a window adds nothing.
void AddNetworks(const v1::ResourceStats& next, v1::ResourceStats& into) {
  for (const v1::NetworkStats& n : next.networks()) {
    auto same = std::find_if(into.mutable_networks()->begin(), into.mutable_networks()->end(),
                             [&](const v1::NetworkStats& m) { return m.name() == n.name(); });
    if (same == into.mutable_networks()->end()) {
      *into.add_networks() = n;
      continue;
    }
    same->set_rx_bytes(SaturatingAdd(same->rx_bytes(), n.rx_bytes()));
    same->set_tx_bytes(SaturatingAdd(same->tx_bytes(), n.tx_bytes()));
    same->set_rx_packets(SaturatingAdd(same->rx_packets(), n.rx_packets()));
    same->set_tx_packets(SaturatingAdd(same->tx_packets(), n.tx_packets()));
    if (n.has_speed_mbps() && !same->has_speed_mbps()) same->set_speed_mbps(n.speed_mbps());
  }
}

}  // namespace

bool AddSpanResources(const v1::ResourceStats& next, v1::ResourceStats& into) {
  if (next.in_flight() != into.in_flight() || next.rate_iops() != into.rate_iops() || next.rate_bytes_per_sec() != into.rate_bytes_per_sec() ||
      next.direct() != into.direct() || next.buffered() != into.buffered() || next.devices_size() != into.devices_size() ||
      next.throttles_size() != into.throttles_size() || next.has_nfs() != into.has_nfs()) {
    return false;
  }
  v1::ResourceStats sum = into;
  for (int i = 0; i < next.devices_size(); ++i) {
    if (!AddDevice(next.devices(i), *sum.mutable_devices(i))) return false;
  }
  for (int i = 0; i < next.throttles_size(); ++i) {
    if (!AddThrottle(next.throttles(i), *sum.mutable_throttles(i))) return false;
  }
  if (next.has_nfs() && !AddNfs(next.nfs(), *sum.mutable_nfs())) return false;
  AddNetworks(next, sum);
  const uint64_t before = into.window_ns(), after = SaturatingAdd(before, next.window_ns());
  sum.set_window_ns(after);
  if (into.has_max_core_busy_permille() && next.has_max_core_busy_permille() && into.max_core() == next.max_core() && after > 0) {
    const double weighted = (static_cast<double>(into.max_core_busy_permille()) * static_cast<double>(before) +
                             static_cast<double>(next.max_core_busy_permille()) * static_cast<double>(next.window_ns())) /
                            static_cast<double>(after);
    sum.set_max_core_busy_permille(static_cast<uint32_t>(std::min(1000.0, weighted + 0.5)));
  } else {
    sum.clear_max_core_busy_permille();
    sum.clear_max_core();
  }
  into = std::move(sum);
  return true;
}

}  // namespace iofleet::controller
