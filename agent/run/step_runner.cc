#include "agent/run/step_runner.h"

#include <time.h>

#include <algorithm>
#include <optional>

#include "core/base/clock.h"
#include "core/wire/histogram_proto.h"

namespace iofleet::agent {

StepRunner::~StepRunner() {
  gate_.Abort();  // threads still waiting for Go return at once: stop is set
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  for (auto& slot : slots_) slot.task->JoinThreads();
}

Result<std::unique_ptr<StepRunner>> StepRunner::Prepare(std::vector<std::unique_ptr<StepTask>> tasks) {
  std::unique_ptr<StepRunner> runner(new StepRunner());
  runner->slots_.reserve(tasks.size());  // never grows again: threads hold their slot
  for (auto& task : tasks) {
    Slot& slot = runner->slots_.emplace_back();
    slot.task = std::move(task);
    slot.window = slot.task->Window();
  }
  for (auto& slot : runner->slots_) IOFLEET_RETURN_IF_ERROR(slot.task->Prepare());
  for (auto& slot : runner->slots_) {
    if (auto load = slot.task->Storage()) {
      runner->targets_ = FindResourceTargets(load->dir);  // the streams of a step share its run directory
      break;
    }
  }
  return runner;
}

void StepRunner::Launch() {
  uint32_t threads = 0;
  for (auto& slot : slots_) {
    const std::optional<uint32_t> own = slot.task->Launch(gate_);
    slot.own_threads = own.has_value();
    threads += own.value_or(0);
  }
  for (auto& slot : slots_) {
    if (slot.own_threads) continue;
    threads_.emplace_back([this, s = &slot] { RunTask(*s); });
    ++threads;
  }
  gate_.Expect(threads);
}

void StepRunner::RunTask(Slot& slot) {
  if (gate_.Wait()) slot.status = slot.task->Run(gate_.stop());
  slot.end_ns = MonotonicNs();
  gate_.Returned();
}

void StepRunner::Go() {
  timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall);
  start_ns_ = MonotonicNs();
  go_unix_ns_ = static_cast<uint64_t>(wall.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(wall.tv_nsec);
  for (auto& slot : slots_) {
    slot.window_start_ns = start_ns_ + slot.window.ramp_ns;
    slot.window_end_ns = slot.window.runtime_ns > 0 ? slot.window_start_ns + slot.window.runtime_ns : 0;
  }
  SampleWindowEdges();
  gate_.Open(start_ns_);
  ReadResourceEdges();  // after the release: reading /proc and /sys must not delay the first I/O
}

// Process and host CPU are sampled at each task's window's edges (the waits below wake for
// them): one reading serves every window that opens, or closes, by the same call.
void StepRunner::SampleWindowEdges() {
  const uint64_t now = MonotonicNs();
  std::optional<CpuSample> at_start, at_end;
  for (auto& slot : slots_) {
    if (!slot.sampled_start && now >= slot.window_start_ns) {
      if (!at_start) at_start = SampleCpu();
      slot.cpu_at_start = *at_start;
      slot.sampled_start = true;
    }
    if (slot.sampled_start && !slot.sampled_end && slot.window_end_ns && now >= slot.window_end_ns) {
      if (!at_end) at_end = SampleCpu();
      slot.cpu_at_end = *at_end;
      slot.sampled_end = true;
    }
  }
}

// The storage's counters where the first window opens and where the last one closes.
void StepRunner::ReadResourceEdges() {
  if (!targets_ || start_ns_ == 0) return;  // not released: no window
  const bool any_open = std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.sampled_start; });
  const bool all_closed = std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.sampled_end; });
  if (any_open && !resources_at_start_.read) resources_at_start_ = ReadResources(*targets_);
  if (all_closed && !resources_at_end_.read) resources_at_end_ = ReadResources(*targets_);
}

// The next window edge to sample at, 0 if none is left.
uint64_t StepRunner::NextEdge() const {
  uint64_t next = 0;
  for (const auto& slot : slots_) {
    const uint64_t edge = !slot.sampled_start                           ? slot.window_start_ns
                          : (!slot.sampled_end && slot.window_end_ns) ? slot.window_end_ns
                                                                        : 0;
    if (edge && (!next || edge < next)) next = edge;
  }
  return next;
}

bool StepRunner::WaitFor(std::chrono::nanoseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    uint64_t now = MonotonicNs();
    uint64_t edge = NextEdge();
    auto wake = deadline;
    if (edge > now) wake = std::min(wake, std::chrono::steady_clock::now() + std::chrono::nanoseconds(edge - now));
    if (gate_.WaitReturned(wake)) return true;
    SampleWindowEdges();
    ReadResourceEdges();
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

v1::Progress StepRunner::Progress() const {
  v1::Progress p;
  for (const auto& slot : slots_) {
    const v1::Progress task = slot.task->Progress();
    AddProgress(task, p);
    if (slot.task->stream().empty()) continue;
    v1::StreamProgress& stream = *p.add_streams();
    stream.set_ops(task.ops());
    stream.set_bytes(task.bytes());
    stream.mutable_read()->set_ops(task.read().ops());
    stream.mutable_read()->set_bytes(task.read().bytes());
    stream.mutable_write()->set_ops(task.write().ops());
    stream.mutable_write()->set_bytes(task.write().bytes());
  }
  p.set_elapsed_ns(start_ns_ ? MonotonicNs() - start_ns_ : 0);
  p.set_started_at_unix_ns(go_unix_ns_);
  return p;
}

StepSample StepRunner::Sample() const {
  StepSample s;
  for (const auto& slot : slots_) slot.task->Sample(s);
  return s;
}

JobsCpuTime StepRunner::JobsCpu() const {
  JobsCpuTime t;
  for (const auto& slot : slots_) {
    const JobsCpuTime task = slot.task->JobsCpu().value_or(JobsCpuTime{});
    t.user_ns += task.user_ns;
    t.sys_ns += task.sys_ns;
    t.busiest_ns = std::max(t.busiest_ns, task.busiest_ns);
  }
  return t;
}

void StepRunner::JobThreadIds(std::vector<int>& out) const {
  for (const auto& slot : slots_) slot.task->JobThreadIds(out);
}

void StepRunner::MergeLatency(LatencyHistogram& read, LatencyHistogram& write) const {
  for (const auto& slot : slots_) slot.task->MergeLatency(read, write);
}

// Every stream's task is cut at the same instant, with the step's pace per job or its stream's;
// the first refusal is the cut's (the controller then fails the step, so a cut made by some
// streams only is never measured).
Status StepRunner::OrderCut(uint32_t cut, uint64_t at_ns, const v1::CutWindowRequest& load) {
  if (!cut_into_windows()) return FailedPrecondition("the step is not cut into windows (only an io step with target_latency, curve or steady is)");
  const size_t iops = static_cast<size_t>(load.stream_rate_iops_size()), bytes = static_cast<size_t>(load.stream_rate_bytes_per_sec_size());
  const std::string at = "cut " + std::to_string(cut) + ": ";
  // A queue depth over streams is for the stream it names (a depth search judges that one).
  const std::string& depth_stream = load.queue_depth_stream();
  size_t depth_slot = slots_.size();
  for (size_t k = 0; k < slots_.size() && streams() > 0; ++k) {
    if (slots_[k].task->stream() == depth_stream) depth_slot = k;
  }
  if (!depth_stream.empty() && (load.queue_depth() == 0 || depth_slot == slots_.size())) {
    return InvalidArgument(at + "queue_depth_stream is not a stream of the step given a queue depth");
  }
  if (depth_stream.empty() && load.queue_depth() > 0 && streams() > 0) {
    return InvalidArgument(at + "a queue depth for a step with streams names the stream it is for");
  }
  auto depth_for = [&](size_t k, v1::CutWindowRequest& one) {
    one.clear_queue_depth_stream();
    if (k != depth_slot) one.clear_queue_depth();
  };
  if (iops == 0 && bytes == 0) {
    for (size_t k = 0; k < slots_.size(); ++k) {
      if (depth_stream.empty()) {
        IOFLEET_RETURN_IF_ERROR(slots_[k].task->OrderCut(cut, at_ns, load));
        RecordLoad(cut, k, load);
        continue;
      }
      v1::CutWindowRequest one = load;
      depth_for(k, one);
      IOFLEET_RETURN_IF_ERROR(slots_[k].task->OrderCut(cut, at_ns, one));
      RecordLoad(cut, k, one);
    }
    return Status::Ok();
  }
  if (iops > 0 && bytes > 0) return InvalidArgument(at + "stream rates in IOPS and in bytes");
  if (load.rate_iops() > 0 || load.rate_bytes_per_sec() > 0) return InvalidArgument(at + "a rate for every job and one per stream");
  if (streams() == 0 || std::max(iops, bytes) != slots_.size()) {
    return InvalidArgument(at + std::to_string(std::max(iops, bytes)) + " stream rates for a step of " + std::to_string(streams()) + " streams");
  }
  for (size_t k = 0; k < slots_.size(); ++k) {
    v1::CutWindowRequest one = load;
    one.clear_stream_rate_iops();
    one.clear_stream_rate_bytes_per_sec();
    if (iops > 0) one.set_rate_iops(load.stream_rate_iops(static_cast<int>(k)));
    else one.set_rate_bytes_per_sec(load.stream_rate_bytes_per_sec(static_cast<int>(k)));
    if (!depth_stream.empty()) depth_for(k, one);
    IOFLEET_RETURN_IF_ERROR(slots_[k].task->OrderCut(cut, at_ns, one));
    RecordLoad(cut, k, one);
  }
  return Status::Ok();
}

// Each task's window is held until every task made the cut: the step's window is all of them
// added, with each stream's own beside it, as a step's result is.
std::optional<v1::WindowResult> StepRunner::TakeWindow() {
  if (!cut_into_windows()) return std::nullopt;
  if (slots_.size() == 1) {
    std::optional<v1::WindowResult> window = slots_[0].task->TakeWindow();
    if (window) AddWindowResources(*window);
    return window;
  }
  pending_windows_.resize(slots_.size());
  for (size_t k = 0; k < slots_.size(); ++k) {
    if (!pending_windows_[k]) pending_windows_[k] = slots_[k].task->TakeWindow();
    if (!pending_windows_[k]) return std::nullopt;
  }
  v1::WindowResult merged;
  merged.set_window(pending_windows_[0]->window());
  for (size_t k = 0; k < slots_.size(); ++k) {
    const v1::StepResult& result = pending_windows_[k]->result();
    if (k == 0) *merged.mutable_result() = result;
    else AddStepResult(result, *merged.mutable_result());
  }
  for (size_t k = 0; k < slots_.size(); ++k) {
    v1::StreamResult& stream = *merged.mutable_result()->add_streams();
    stream.set_name(slots_[k].task->stream());
    stream.set_jobs(slots_[k].task->jobs());
    *stream.mutable_result() = std::move(*pending_windows_[k]->mutable_result());
    pending_windows_[k].reset();
  }
  AddWindowResources(merged);
  return merged;
}

void StepRunner::RecordLoad(uint32_t cut, size_t slot, const v1::CutWindowRequest& load) {
  std::lock_guard lock(loads_mu_);
  std::vector<v1::CutWindowRequest>& loads = cut_loads_[cut];
  loads.resize(slots_.size());
  loads[slot] = load;
}

// Read when the window is taken, a few ms after its cut (every job made it): the counters' own
// instants give the reading its window, off the hot path. A window whose opening was not read
// has none (absent, never 0).
void StepRunner::AddWindowResources(v1::WindowResult& window) {
  std::vector<v1::CutWindowRequest> loads(slots_.size());  // window 0: the plan's
  {
    std::lock_guard lock(loads_mu_);
    const auto it = cut_loads_.find(window.window());
    if (window.window() > 0 && it != cut_loads_.end()) loads = it->second;
    cut_loads_.erase(cut_loads_.begin(), cut_loads_.upper_bound(window.window()));
  }
  loads.resize(slots_.size());
  if (targets_) {
    const ResourceReading now = ReadResources(*targets_);
    const ResourceReading& from = window_edge_.read ? window_edge_ : resources_at_start_;
    v1::ResourceStats host;
    if (from.read) ResourceDelta(*targets_, from, now, host);
    if (host.window_ns() > 0) {
      v1::StepResult& r = *window.mutable_result();
      *r.mutable_resources() = WithLoad(host, slots_.begin(), slots_.end(), loads.data());
      for (int k = 0; k < r.streams_size() && static_cast<size_t>(k) < slots_.size(); ++k) {
        const auto slot = slots_.begin() + k;
        *r.mutable_streams(k)->mutable_result()->mutable_resources() = WithLoad(host, slot, slot + 1, &loads[static_cast<size_t>(k)]);
      }
    }
    window_edge_ = now;
  }
}

bool StepRunner::cut_into_windows() const {
  return !slots_.empty() && std::all_of(slots_.begin(), slots_.end(), [](const Slot& slot) { return slot.task->cut_into_windows(); });
}

size_t StepRunner::streams() const { return slots_.empty() || slots_[0].task->stream().empty() ? 0 : slots_.size(); }

void StepRunner::MergeStreamLatency(size_t stream, LatencyHistogram& read, LatencyHistogram& write) const {
  slots_.at(stream).task->MergeLatency(read, write);
}

// Every task finishes (an io task records what it wrote even when another failed); the first
// error is the step's.
Result<v1::StepResult> StepRunner::Finish() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  for (auto& slot : slots_) slot.task->JoinThreads();
  SampleWindowEdges();
  ReadResourceEdges();
  std::optional<CpuSample> at_end;
  for (auto& slot : slots_) {
    if (slot.sampled_end) continue;
    if (!at_end) at_end = SampleCpu();
    slot.cpu_at_end = *at_end;
  }
  // A size-based window closes at its last completion: read as soon after it as can be.
  if (targets_ && start_ns_ && !resources_at_end_.read) resources_at_end_ = ReadResources(*targets_);
  const bool stopped = stop_requested();
  Status failed;
  std::optional<v1::StepResult> step;
  std::vector<v1::StreamResult> streams;
  // Streams: the step's window spans every stream's, from the first to open to the last to close.
  uint64_t first_open = UINT64_MAX, last_close = 0;
  for (auto& slot : slots_) {
    StepTiming timing{start_ns_, go_unix_ns_, slot.end_ns, stopped, slot.cpu_at_start, slot.cpu_at_end};
    Result<v1::StepResult> result = slot.status.ok() ? slot.task->Finish(timing) : Result<v1::StepResult>(slot.status);
    if (!result.ok()) {
      if (failed.ok()) failed = result.status();
      continue;
    }
    first_open = std::min(first_open, slot.window.ramp_ns);
    last_close = std::max(last_close, slot.window.ramp_ns + result->window_ns());
    if (!slot.task->stream().empty()) {
      v1::StreamResult& stream = streams.emplace_back();
      stream.set_name(slot.task->stream());
      stream.set_jobs(slot.task->jobs());
      *stream.mutable_result() = *result;
    }
    if (!step) step = std::move(*result);
    else AddStepResult(*result, *step);
  }
  if (!failed.ok()) return failed;
  if (!step) return v1::StepResult();
  if (!streams.empty()) {
    step->set_window_ns(last_close - first_open);
    for (auto& stream : streams) *step->add_streams() = std::move(stream);
  }
  if (targets_) AddResources(*step);
  return std::move(*step);
}

// The window's host figures, and what the tasks asked of the storage together; a step with
// streams gives each stream's result the same host figures with what its own task asked (its
// limit is judged on them).
void StepRunner::AddResources(v1::StepResult& step) const {
  v1::ResourceStats host;
  ResourceDelta(*targets_, resources_at_start_, resources_at_end_, host);
  if (host.window_ns() == 0) return;
  *step.mutable_resources() = WithLoad(host, slots_.begin(), slots_.end());
  int stream = 0;
  for (auto slot = slots_.begin(); slot != slots_.end(); ++slot) {
    if (slot->task->stream().empty() || stream >= step.streams_size()) continue;
    v1::StreamResult& result = *step.mutable_streams(stream++);
    if (result.name() == slot->task->stream()) *result.mutable_result()->mutable_resources() = WithLoad(host, slot, slot + 1);
  }
}

v1::ResourceStats StepRunner::WithLoad(const v1::ResourceStats& host, std::vector<Slot>::const_iterator from,
                                       std::vector<Slot>::const_iterator to, const v1::CutWindowRequest* loads) {
  const auto add = [](uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; };
  v1::ResourceStats stats = host;
  bool direct = true, buffered = true, any_load = false, all_iops_capped = true, all_bytes_capped = true;
  uint64_t in_flight = 0, rate_iops = 0, rate_bytes = 0;
  for (auto slot = from; slot != to; ++slot) {
    const auto load = loads ? slot->task->StorageUnder(loads[slot - from]) : slot->task->Storage();
    if (!load) continue;
    in_flight += load->in_flight;
    rate_iops = add(rate_iops, load->rate_iops);
    rate_bytes = add(rate_bytes, load->rate_bytes_per_sec);
    all_iops_capped = all_iops_capped && load->rate_iops > 0;
    all_bytes_capped = all_bytes_capped && load->rate_bytes_per_sec > 0;
    direct = direct && load->direct;
    buffered = buffered && load->buffered;
    any_load = true;
  }
  // A stream without a cap beside one with: the step as a whole has none to be held by.
  if (all_iops_capped) stats.set_rate_iops(rate_iops);
  if (all_bytes_capped) stats.set_rate_bytes_per_sec(rate_bytes);
  stats.set_in_flight(static_cast<uint32_t>(std::min<uint64_t>(in_flight, UINT32_MAX)));
  stats.set_direct(direct);
  stats.set_buffered(any_load && buffered);
  return stats;
}

void AddProgress(const v1::Progress& from, v1::Progress& into) {
  into.set_ops(into.ops() + from.ops());
  into.set_bytes(into.bytes() + from.bytes());
  into.set_errors(into.errors() + from.errors());
  into.set_expected_ops(into.expected_ops() + from.expected_ops());
  into.set_ramp_ops(into.ramp_ops() + from.ramp_ops());
  into.set_ramp_bytes(into.ramp_bytes() + from.ramp_bytes());
  auto add_op = [](const v1::ProgressOp& op, v1::ProgressOp& to) {
    to.set_ops(to.ops() + op.ops());
    to.set_bytes(to.bytes() + op.bytes());
  };
  if (from.has_read()) add_op(from.read(), *into.mutable_read());
  if (from.has_write()) add_op(from.write(), *into.mutable_write());
}

namespace {

void AddResultHistogram(const v1::Histogram& from, v1::Histogram& into) {
  if (from.bucket_size() == 0) return;
  auto merged = std::make_unique<LatencyHistogram>();  // 30 KiB: not on the stack
  wire::AddFromProto(into, *merged);
  wire::AddFromProto(from, *merged);
  wire::ToProto(*merged, &into);
}

void AddOpStats(const v1::OpStats& from, v1::OpStats& into) {
  into.set_ops(into.ops() + from.ops());
  into.set_bytes(into.bytes() + from.bytes());
  AddResultHistogram(from.latency_ns(), *into.mutable_latency_ns());
  if (from.has_scheduled_latency_ns()) AddResultHistogram(from.scheduled_latency_ns(), *into.mutable_scheduled_latency_ns());
}

}  // namespace

void AddStepResult(const v1::StepResult& from, v1::StepResult& into) {
  into.set_ops(into.ops() + from.ops());
  into.set_bytes(into.bytes() + from.bytes());
  into.set_window_ns(std::max(into.window_ns(), from.window_ns()));
  AddResultHistogram(from.latency_ns(), *into.mutable_latency_ns());
  into.set_passes(std::min(into.passes(), from.passes()));
  into.set_filled_bytes(into.filled_bytes() + from.filled_bytes());
  if (from.has_read()) AddOpStats(from.read(), *into.mutable_read());
  if (from.has_write()) AddOpStats(from.write(), *into.mutable_write());
  for (const v1::ErrorCount& error : from.errors()) {
    auto same = std::find_if(into.mutable_errors()->begin(), into.mutable_errors()->end(),
                             [&](const v1::ErrorCount& e) { return e.kind() == error.kind(); });
    if (same == into.mutable_errors()->end()) *into.add_errors() = error;
    else same->set_count(same->count() + error.count());
  }
  into.set_fsyncs(into.fsyncs() + from.fsyncs());
  AddResultHistogram(from.fsync_latency_ns(), *into.mutable_fsync_latency_ns());
  if (from.has_cpu()) {
    v1::CpuStats& cpu = *into.mutable_cpu();
    cpu.set_worker_user_ns(cpu.worker_user_ns() + from.cpu().worker_user_ns());
    cpu.set_worker_sys_ns(cpu.worker_sys_ns() + from.cpu().worker_sys_ns());
    cpu.set_max_worker_busy_permille(std::max(cpu.max_worker_busy_permille(), from.cpu().max_worker_busy_permille()));
  }
  into.set_rate_limited(into.rate_limited() || from.rate_limited());
  if (from.started_at_unix_ns() && (!into.started_at_unix_ns() || from.started_at_unix_ns() < into.started_at_unix_ns())) {
    into.set_started_at_unix_ns(from.started_at_unix_ns());
  }
  into.set_stopped_early(into.stopped_early() || from.stopped_early());
  into.set_ended_others(into.ended_others() || from.ended_others());
  into.set_dirs(into.dirs() + from.dirs());
  if (from.has_cache()) {
    into.mutable_cache()->set_resident_pages(into.cache().resident_pages() + from.cache().resident_pages());
    into.mutable_cache()->set_pages(into.cache().pages() + from.cache().pages());
  }
}

}  // namespace iofleet::agent
