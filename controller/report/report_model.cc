#include "controller/report/report_model.h"

#include <algorithm>

#include "controller/report/limit_verdict.h"
#include "core/wire/histogram_proto.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::controller {
namespace {

// Above this, the client rather than the storage may be what limits the figures.
constexpr double kCpuBoundPct = 90.0;

OpFigures OpFromProto(const v1::OpStats& in) {
  OpFigures out;
  out.ops = in.ops();
  out.bytes = in.bytes();
  wire::AddFromProto(in.latency_ns(), *out.latency);
  wire::AddFromProto(in.scheduled_latency_ns(), *out.scheduled);
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
  wire::AddFromProto(result.latency_ns(), *s.latency);
  wire::AddFromProto(result.fsync_latency_ns(), *s.fsync_latency);
  s.read = OpFromProto(result.read());
  s.write = OpFromProto(result.write());
  for (const auto& e : result.errors()) s.errors[e.kind()] += e.count();
  if (result.has_cpu()) {
    const v1::CpuStats& c = result.cpu();
    s.cpu = CpuFigures{c.worker_user_ns(), c.worker_sys_ns(), c.process_user_ns(), c.process_sys_ns(),
                       c.host_busy_ticks(), c.host_total_ticks(), c.max_worker_busy_permille()};
    s.cpu_bound = s.cpu->host_busy_pct() > kCpuBoundPct || s.cpu->max_worker_busy_permille > kCpuBoundPct * 10;
  }
  // cache_resident (field 13) was a size rule and is ignored: only the measurement counts.
  if (result.has_cache() && result.cache().pages() > 0) s.cache = CacheFigures{result.cache().resident_pages(), result.cache().pages()};
  s.rate_limited = result.rate_limited();
  s.dirs = result.dirs();
  s.copy_method = result.copy_method();
  if (!result.note().empty()) s.notes.push_back(result.note());
  if (result.has_fill_at_start()) s.fill_at_start = result.fill_at_start();
  if (result.has_fill_at_end()) s.fill_at_end = result.fill_at_end();
  if (result.has_resources() && ResourcesAreSound(result.resources())) s.resources = result.resources();
  return s;
}

void CpuFigures::Add(const CpuFigures& other) {
  worker_user_ns += other.worker_user_ns;
  worker_sys_ns += other.worker_sys_ns;
  process_user_ns += other.process_user_ns;
  process_sys_ns += other.process_sys_ns;
  host_busy_ticks += other.host_busy_ticks;
  host_total_ticks += other.host_total_ticks;
  max_worker_busy_permille = std::max(max_worker_busy_permille, other.max_worker_busy_permille);
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
  if (other.cpu) {
    if (!cpu) cpu = CpuFigures();
    cpu->Add(*other.cpu);
  }
  if (other.cache) {
    if (!cache) cache = CacheFigures();
    cache->resident_pages += other.cache->resident_pages;
    cache->pages += other.cache->pages;
  }
  rate_limited = rate_limited || other.rate_limited;
  cpu_bound = cpu_bound || other.cpu_bound;
  dirs += other.dirs;
  if (first) copy_method = other.copy_method;
  else if (copy_method != other.copy_method) copy_method = "mixed";
  notes.insert(notes.end(), other.notes.begin(), other.notes.end());
  if (!fill_at_start) fill_at_start = other.fill_at_start;
  if (!fill_at_end) fill_at_end = other.fill_at_end;
}

void StepStats::AddPhase(const StepStats& phase, bool first) {
  uint64_t before = first ? 0 : window_ns;
  Add(phase, first);
  window_ns = before + phase.window_ns;
}

}  // namespace iofleet::controller
