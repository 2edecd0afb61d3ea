#include "controller/live/live_run.h"

#include <algorithm>
#include <chrono>

#include "controller/live/progress_check.h"

namespace iofleet::controller {
namespace {

int64_t SteadyNowNs() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

void AddFolded(FoldedHistogram& into, const FoldedHistogram& more) {
  for (size_t i = 0; i < into.cumulative.size(); ++i) into.cumulative[i] += more.cumulative[i];
  into.count += more.count;
  into.sum_seconds += more.sum_seconds;
}

// `now - before` when positive, else 0: a result may count less than the progress did.
uint64_t Beyond(uint64_t now, uint64_t before) { return now > before ? now - before : 0; }

std::string PhaseOf(const LiveStepInfo& step) {
  if (step.kind != "files") return "";
  const size_t dot = step.name.rfind('.');
  return dot == std::string::npos ? "" : step.name.substr(dot + 1);
}

}  // namespace

std::string MetricStepName(const LiveStepInfo& step) {
  if (step.kind != "files") return step.name;
  const size_t dot = step.name.rfind('.');
  return dot == std::string::npos ? step.name : step.name.substr(0, dot);
}

LiveRun::LiveRun(std::string run_id, std::string workload, uint64_t sample_interval_ns)
    : run_id_(std::move(run_id)), workload_(std::move(workload)),
      sample_interval_ns_(sample_interval_ns ? sample_interval_ns : 1'000'000'000), clock_(&SteadyNowNs) {}

void LiveRun::BeginStep(const LiveStepInfo& step, const std::vector<LiveAgentId>& agents) {
  std::lock_guard lock(mu_);
  ++changes_;
  running_ = true;
  step_ = step;
  step_began_ns_ = clock_();
  agents_.clear();
  agents_.resize(agents.size());
  for (size_t i = 0; i < agents.size(); ++i) {
    agents_[i].live.name = agents[i].name;
    agents_[i].live.lost = agents[i].lost;
    agents_[i].clock_offset_ns = agents[i].clock_offset_ns;
    agents_[i].live.rejected = rejected_[agents[i].name];
    if (step.kind == "io" && !agents[i].lost) AddErrors(agents[i].name, 0);
  }
}

void LiveRun::AddErrors(const std::string& agent, uint64_t errors) {
  LiveErrorSeries& e = error_series_[{step_.name, step_.engine, agent}];
  e.step = step_.name;
  e.engine = step_.engine;
  e.agent = agent;
  e.errors += errors;
}

void LiveRun::AddIo(const std::string& agent, size_t stream, const char* op, uint64_t ops, uint64_t bytes,
                    const FoldedHistogram* latency) {
  const bool named = stream < step_.streams.size();
  const std::string& stream_name = named ? step_.streams[stream].name : std::string();
  const std::string& engine = named ? step_.streams[stream].engine : step_.engine;
  LiveIoSeries& s = io_series_[{step_.name, stream_name, op, engine, agent}];
  s.step = step_.name;
  s.stream = stream_name;
  s.op = op;
  s.engine = engine;
  s.agent = agent;
  s.ops += ops;
  s.bytes += bytes;
  if (latency) AddFolded(s.latency, *latency);
}

void LiveRun::AddTask(const std::string& agent, uint64_t ops, uint64_t bytes) {
  const std::string step = MetricStepName(step_), phase = PhaseOf(step_);
  LiveTaskSeries& s = task_series_[{step, phase, agent}];
  s.kind = step_.kind;
  s.step = step;
  s.phase = phase;
  s.agent = agent;
  s.ops += ops;
  s.bytes += bytes;
}

void LiveRun::MergeOp(AgentState& a, size_t stream, const char* op, const v1::ProgressOp& now, const v1::ProgressOp& before,
                      SparseHistogram& interval) {
  auto delta = std::make_unique<SparseHistogram>();
  AddDelta(now.latency_ns_delta(), *delta);
  interval.Add(*delta);
  if (stream == SIZE_MAX) a.step_latency->Add(*delta);  // a stream's is in the step's delta too
  if (stream == SIZE_MAX && !step_.streams.empty()) return;  // its streams feed the series
  if (now.ops() == before.ops() && delta->count() == 0) return;  // no series for an op the step does not do
  const FoldedHistogram folded = Fold(*delta);
  AddIo(a.live.name, stream, op, now.ops() - before.ops(), now.bytes() - before.bytes(), &folded);
}

// Each stream's series and last-interval rates (CheckProgress made sure the message has the
// step's streams, adding up to its totals, and the previous one as many).
void LiveRun::MergeStreams(AgentState& a, const v1::Progress& progress) {
  if (step_.streams.empty() || static_cast<size_t>(progress.streams_size()) != step_.streams.size()) return;
  a.streams.resize(step_.streams.size());
  const bool has_before = a.has_last && a.last.streams_size() == progress.streams_size();
  for (size_t k = 0; k < step_.streams.size(); ++k) {
    const v1::StreamProgress& now = progress.streams(static_cast<int>(k));
    const v1::StreamProgress before = has_before ? a.last.streams(static_cast<int>(k)) : v1::StreamProgress();
    auto interval = std::make_unique<SparseHistogram>();
    MergeOp(a, k, "read", now.read(), before.read(), *interval);
    MergeOp(a, k, "write", now.write(), before.write(), *interval);
    a.streams[k].interval_latency = std::move(interval);
    auto rate = [&](const v1::ProgressOp& n, const v1::ProgressOp& b) {
      return RateBetween({a.last.elapsed_ns(), b.ops(), b.bytes()}, {progress.elapsed_ns(), n.ops(), n.bytes()}, step_.ramp_ns);
    };
    a.streams[k].read = rate(now.read(), before.read());
    a.streams[k].write = rate(now.write(), before.write());
  }
}

bool LiveRun::OnProgress(size_t agent, const v1::Progress& progress) {
  std::lock_guard lock(mu_);
  if (!running_ || agent >= agents_.size()) return false;
  AgentState& a = agents_[agent];
  Status s = CheckProgress(progress, a.has_last ? &a.last : nullptr);
  if (s.ok()) s = CheckLatencySumFits(progress, a.step_latency->sum());
  if (!s.ok()) {
    a.live.rejected = ++rejected_[a.live.name];
    return false;
  }
  const CumulativeSample before{a.last.elapsed_ns(), a.last.ops(), a.last.bytes()};
  const CumulativeSample now{progress.elapsed_ns(), progress.ops(), progress.bytes()};
  a.live.rate = RateBetween(before, now, step_.ramp_ns);
  a.live.measured = a.live.measured || a.live.rate.known;
  auto interval = std::make_unique<SparseHistogram>();
  if (progress.has_read() || progress.has_write()) {
    MergeOp(a, SIZE_MAX, "read", progress.read(), a.last.read(), *interval);
    MergeOp(a, SIZE_MAX, "write", progress.write(), a.last.write(), *interval);
    MergeStreams(a, progress);
    if (progress.errors() > a.last.errors()) AddErrors(a.live.name, progress.errors() - a.last.errors());
  }
  if (step_.kind == "files" || step_.kind == "copy") {
    AddTask(a.live.name, progress.ops() - a.last.ops(), progress.bytes() - a.last.bytes());
  }
  a.interval_latency = std::move(interval);
  LiveAgent& l = a.live;
  l.reported = true;
  l.silent = false;
  l.elapsed_ns = progress.elapsed_ns();
  l.ops = progress.ops();
  l.bytes = progress.bytes();
  l.errors = progress.errors();
  l.expected_ops = progress.expected_ops();
  l.read_ops = progress.read().ops();
  l.read_bytes = progress.read().bytes();
  l.write_ops = progress.write().ops();
  l.write_bytes = progress.write().bytes();
  a.started_at_unix_ns = progress.started_at_unix_ns();
  a.heard_at_ns = clock_();
  a.last = progress;
  a.last.mutable_read()->clear_latency_ns_delta();
  a.last.mutable_write()->clear_latency_ns_delta();
  for (v1::StreamProgress& stream : *a.last.mutable_streams()) {
    stream.mutable_read()->clear_latency_ns_delta();
    stream.mutable_write()->clear_latency_ns_delta();
  }
  a.has_last = true;
  ++changes_;
  return true;
}

void LiveRun::AgentDone(size_t agent, const v1::StepResult* result) {
  std::lock_guard lock(mu_);
  ++changes_;
  if (agent >= agents_.size()) return;
  AgentState& a = agents_[agent];
  a.live.done = true;
  if (result == nullptr || !running_) return;
  const std::string& name = a.live.name;
  if (step_.kind == "io") {
    // What the result counts beyond the last progress, per stream where the step has streams.
    auto add_beyond = [&](size_t stream, const v1::StepResult& r, const v1::ProgressOp& read, const v1::ProgressOp& write) {
      const std::pair<const char*, std::pair<const v1::OpStats*, const v1::ProgressOp*>> ops[] = {
          {"read", {&r.read(), &read}}, {"write", {&r.write(), &write}}};
      for (const auto& [op, pair] : ops) {
        const uint64_t more_ops = Beyond(pair.first->ops(), pair.second->ops());
        const uint64_t more_bytes = Beyond(pair.first->bytes(), pair.second->bytes());
        if (more_ops || more_bytes) AddIo(name, stream, op, more_ops, more_bytes, nullptr);
      }
    };
    if (step_.streams.empty()) {
      add_beyond(SIZE_MAX, *result, a.last.read(), a.last.write());
    } else if (static_cast<size_t>(result->streams_size()) == step_.streams.size()) {
      for (size_t k = 0; k < step_.streams.size(); ++k) {
        const int i = static_cast<int>(k);
        const bool seen = a.last.streams_size() > i;
        add_beyond(k, result->streams(i).result(), seen ? a.last.streams(i).read() : v1::ProgressOp(),
                   seen ? a.last.streams(i).write() : v1::ProgressOp());
      }
    }
    uint64_t errors = 0;
    for (const auto& e : result->errors()) errors += e.count();
    if (const uint64_t more = Beyond(errors, a.last.errors())) AddErrors(name, more);
  } else if (step_.kind == "files" || step_.kind == "copy") {
    const uint64_t more_ops = Beyond(result->ops(), a.last.ops()), more_bytes = Beyond(result->bytes(), a.last.bytes());
    if (more_ops || more_bytes || !a.has_last) AddTask(name, more_ops, more_bytes);
  }
}

void LiveRun::AgentLost(size_t agent) {
  std::lock_guard lock(mu_);
  ++changes_;
  if (agent < agents_.size()) agents_[agent].live.lost = true;
}

void LiveRun::EndStep(std::optional<uint64_t> start_skew_ns) {
  std::lock_guard lock(mu_);
  ++changes_;
  running_ = false;
  exact_skew_s_.reset();
  if (start_skew_ns) exact_skew_s_ = static_cast<double>(*start_skew_ns) / 1e9;
}

// From each agent's release instant on its own clock, corrected by its offset: the spread of
// those instants on the controller's clock.
// In 128 bits: an instant near the top of its range minus a negative offset, or the spread of
// two far-apart instants, does not fit in 64.
std::optional<double> LiveRun::LiveSkewLocked() const {
  std::optional<__int128> earliest, latest;
  for (const auto& a : agents_) {
    if (a.started_at_unix_ns == 0) continue;
    const __int128 at = static_cast<__int128>(a.started_at_unix_ns) - a.clock_offset_ns;
    earliest = earliest ? std::min(*earliest, at) : at;
    latest = latest ? std::max(*latest, at) : at;
  }
  if (!earliest) return std::nullopt;
  return static_cast<double>(*latest - *earliest) / 1e9;
}

LiveSnapshot LiveRun::Snapshot() const {
  std::lock_guard lock(mu_);
  LiveSnapshot s;
  s.run_id = run_id_;
  s.workload = workload_;
  s.running = running_;
  s.step = step_;
  const int64_t now = clock_();
  const int64_t stale = static_cast<int64_t>(2 * std::max<uint64_t>(sample_interval_ns_, 1'000'000'000));
  auto interval = std::make_unique<SparseHistogram>();
  auto whole = std::make_unique<SparseHistogram>();
  uint64_t elapsed = 0, expected_ops = 0;
  s.all_done = !agents_.empty();
  for (const auto& a : agents_) {
    LiveAgent l = a.live;
    const int64_t since = a.has_last ? now - a.heard_at_ns : now - step_began_ns_ - static_cast<int64_t>(sample_interval_ns_);
    l.silent = running_ && !l.lost && !l.done && since > stale;
    if (l.lost) ++s.lost;
    if (!l.lost && (l.done || !l.silent)) ++s.reporting;
    if (!l.lost && !l.done) s.all_done = false;
    s.measured = s.measured || l.measured;
    s.ops += l.ops;
    s.bytes += l.bytes;
    s.errors += l.errors;
    expected_ops += l.expected_ops;
    elapsed = std::max(elapsed, l.elapsed_ns);
    whole->Add(*a.step_latency);
    // A silent, lost or finished agent's last rate is not going on now.
    if (!l.silent && !l.lost && !l.done && l.rate.known) {
      s.rate.known = true;
      s.rate.ops_per_sec += l.rate.ops_per_sec;
      s.rate.bytes_per_sec += l.rate.bytes_per_sec;
      interval->Add(*a.interval_latency);
    }
    s.agents.push_back(std::move(l));
  }
  s.clock = ClockOf(elapsed, step_.ramp_ns, step_.runtime_ns, s.ops, expected_ops, s.rate.ops_per_sec);
  for (size_t k = 0; k < step_.streams.size(); ++k) {
    LiveStream& stream = s.streams.emplace_back();
    stream.name = step_.streams[k].name;
    auto stream_interval = std::make_unique<SparseHistogram>();
    for (const auto& a : agents_) {
      if (a.has_last && a.last.streams_size() > static_cast<int>(k)) {
        const v1::StreamProgress& p = a.last.streams(static_cast<int>(k));
        stream.read_ops += p.read().ops();
        stream.read_bytes += p.read().bytes();
        stream.write_ops += p.write().ops();
        stream.write_bytes += p.write().bytes();
      }
      const bool going = !a.live.lost && !a.live.done && a.live.rate.known;
      if (!going || a.streams.size() <= k) continue;
      for (const auto& [into, from] : {std::pair{&stream.read, &a.streams[k].read}, std::pair{&stream.write, &a.streams[k].write}}) {
        if (!from->known) continue;
        into->known = true;
        into->ops_per_sec += from->ops_per_sec;
        into->bytes_per_sec += from->bytes_per_sec;
      }
      stream_interval->Add(*a.streams[k].interval_latency);
    }
    if (stream_interval->count()) stream.p99_ns = stream_interval->Quantile(0.99);
  }
  // The ramp lasts, as far as the view goes, until some agent has measured a rate after it.
  s.clock.ramp = s.clock.ramp || (step_.ramp_ns > 0 && !s.measured && !s.all_done);
  if (interval->count()) s.p99_ns = interval->Quantile(0.99);
  if (whole->count()) s.p99_step_ns = whole->Quantile(0.99);
  s.start_skew_s = running_ ? LiveSkewLocked() : exact_skew_s_;
  return s;
}

std::vector<LiveIoSeries> LiveRun::IoSeries() const {
  std::lock_guard lock(mu_);
  std::vector<LiveIoSeries> out;
  for (const auto& [key, series] : io_series_) out.push_back(series);
  return out;
}

std::vector<LiveTaskSeries> LiveRun::TaskSeries() const {
  std::lock_guard lock(mu_);
  std::vector<LiveTaskSeries> out;
  for (const auto& [key, series] : task_series_) out.push_back(series);
  return out;
}

std::vector<LiveRejectedSeries> LiveRun::RejectedSeries() const {
  std::lock_guard lock(mu_);
  std::vector<LiveRejectedSeries> out;
  for (const auto& [agent, count] : rejected_) out.push_back({agent, count});
  return out;
}

std::vector<LiveErrorSeries> LiveRun::ErrorSeries() const {
  std::lock_guard lock(mu_);
  std::vector<LiveErrorSeries> out;
  for (const auto& [key, series] : error_series_) out.push_back(series);
  return out;
}

}  // namespace iofleet::controller
