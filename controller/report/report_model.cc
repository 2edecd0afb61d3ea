#include "controller/report/report_model.h"

#include <algorithm>

#include "core/spec/proto_convert.h"

namespace iofleet::controller {
namespace {

// Above this, the client rather than the storage may be what limits the figures.
constexpr double kCpuBoundPct = 90.0;

OpFigures OpFromProto(const v1::OpStats& in) {
  OpFigures out;
  out.ops = in.ops();
  out.bytes = in.bytes();
  spec::AddFromProto(in.latency_ns(), *out.latency);
  spec::AddFromProto(in.scheduled_latency_ns(), *out.scheduled);
  return out;
}

}  // namespace

void OpFigures::Add(const OpFigures& other) {
  ops += other.ops;
  bytes += other.bytes;
  latency->Add(*other.latency);
  scheduled->Add(*other.scheduled);
}

StepStats StepStats::FromProto(const v1::StepResult& result) {
  StepStats s;
  s.ops = result.ops();
  s.bytes = result.bytes();
  s.window_ns = result.window_ns();
  s.passes = result.passes();
  s.filled_bytes = result.filled_bytes();
  s.fsyncs = result.fsyncs();
  spec::AddFromProto(result.latency_ns(), *s.latency);
  spec::AddFromProto(result.fsync_latency_ns(), *s.fsync_latency);
  s.read = OpFromProto(result.read());
  s.write = OpFromProto(result.write());
  for (const auto& e : result.errors()) s.errors[e.kind()] += e.count();
  const v1::CpuStats& c = result.cpu();
  s.cpu = {c.worker_user_ns(), c.worker_sys_ns(), c.process_user_ns(), c.process_sys_ns(),
           c.host_busy_ticks(), c.host_total_ticks(), c.max_worker_busy_permille()};
  s.cache_resident = result.cache_resident();
  s.rate_limited = result.rate_limited();
  s.dirs = result.dirs();
  if (!result.note().empty()) s.notes.push_back(result.note());
  s.cpu_bound = s.cpu.host_busy_pct() > kCpuBoundPct || s.cpu.max_worker_busy_permille > kCpuBoundPct * 10;
  return s;
}

void StepStats::Add(const StepStats& other, bool first) {
  ops += other.ops;
  bytes += other.bytes;
  filled_bytes += other.filled_bytes;
  fsyncs += other.fsyncs;
  window_ns = std::max(window_ns, other.window_ns);
  passes = first ? other.passes : std::min(passes, other.passes);
  latency->Add(*other.latency);
  fsync_latency->Add(*other.fsync_latency);
  read.Add(other.read);
  write.Add(other.write);
  for (const auto& [kind, n] : other.errors) errors[kind] += n;
  cpu.worker_user_ns += other.cpu.worker_user_ns;
  cpu.worker_sys_ns += other.cpu.worker_sys_ns;
  cpu.process_user_ns += other.cpu.process_user_ns;
  cpu.process_sys_ns += other.cpu.process_sys_ns;
  cpu.host_busy_ticks += other.cpu.host_busy_ticks;
  cpu.host_total_ticks += other.cpu.host_total_ticks;
  cpu.max_worker_busy_permille = std::max(cpu.max_worker_busy_permille, other.cpu.max_worker_busy_permille);
  cache_resident = cache_resident || other.cache_resident;
  rate_limited = rate_limited || other.rate_limited;
  cpu_bound = cpu_bound || other.cpu_bound;
  dirs += other.dirs;
  notes.insert(notes.end(), other.notes.begin(), other.notes.end());
}

void StepStats::AddPhase(const StepStats& phase, bool first) {
  uint64_t before = first ? 0 : window_ns;
  Add(phase, first);
  window_ns = before + phase.window_ns;
}

}  // namespace iofleet::controller
