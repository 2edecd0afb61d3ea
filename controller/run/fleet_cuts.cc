#include "controller/run/fleet_cuts.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/wire/histogram_proto.h"

namespace iofleet::controller {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kCutDeadline{10000};
// A cut is ordered this far ahead at least: every agent's order must arrive before its instant.
constexpr uint64_t kMinLeadNs = 200'000'000;
// How long past its instant a window may take to come back (a job sees a cut at its next look
// at the clock, 20 ms at most, and a slow link adds its round trip).
constexpr uint64_t kWindowGraceNs = 10'000'000'000;
// After the start instant, by when every agent's jobs were released (a wake-up, not a setup).
constexpr uint64_t kReleasedNs = 50'000'000;

Status Bad(const std::string& message) { return Status(Code::kInvalidArgument, "window: " + message); }

Status CheckHistogram(const std::string& where, const v1::Histogram& h, uint64_t ops) {
  if (h.bucket_size() != h.count_size()) return Bad(where + ": buckets and counts differ in number");
  uint64_t total = 0;
  for (int i = 0; i < h.bucket_size(); ++i) {
    if (h.bucket(i) >= LatencyHistogram::kBuckets) return Bad(where + ": bucket " + std::to_string(h.bucket(i)) + " out of range");
    if (h.count(i) > ops - std::min(ops, total)) return Bad(where + ": counts add up to more than its " + std::to_string(ops) + " ops");
    total += h.count(i);
  }
  if (total != ops) return Bad(where + ": counts add up to " + std::to_string(total) + ", not its " + std::to_string(ops) + " ops");
  return Status::Ok();
}

Status CheckOp(const std::string& name, const v1::OpStats& op, bool paced) {
  IOFLEET_RETURN_IF_ERROR(CheckHistogram(name + ".latency_ns", op.latency_ns(), op.ops()));
  if (paced) IOFLEET_RETURN_IF_ERROR(CheckHistogram(name + ".scheduled_latency_ns", op.scheduled_latency_ns(), op.ops()));
  return Status::Ok();
}

// A window's figures (the agent's, or one stream's): counts that are their parts', histograms
// that hold them, and a length near the span between the cuts.
Status CheckWindowFigures(const v1::StepResult& r, uint64_t expected_ns) {
  if (r.read().ops() > UINT64_MAX - r.write().ops() || r.ops() != r.read().ops() + r.write().ops()) {
    return Bad("ops " + std::to_string(r.ops()) + " are not its reads' and writes'");
  }
  if (r.read().bytes() > UINT64_MAX - r.write().bytes() || r.bytes() != r.read().bytes() + r.write().bytes()) {
    return Bad("bytes " + std::to_string(r.bytes()) + " are not its reads' and writes'");
  }
  IOFLEET_RETURN_IF_ERROR(CheckOp("read", r.read(), r.rate_limited()));
  IOFLEET_RETURN_IF_ERROR(CheckOp("write", r.write(), r.rate_limited()));
  // Each agent converts the named instants to its own clock: a few microseconds apart, never
  // seconds (a window of 0 ns comes from an agent without jobs).
  const uint64_t slack = expected_ns / 10 + 50'000'000;
  if (r.window_ns() > expected_ns + slack || (r.window_ns() + slack < expected_ns && r.window_ns() != 0)) {
    return Bad("lasted " + std::to_string(r.window_ns()) + " ns between cuts " + std::to_string(expected_ns) + " ns apart");
  }
  if (r.window_ns() == 0 && r.ops() != 0) return Bad("holds ops but no time");
  return Status::Ok();
}

}  // namespace

Status CheckWindow(const v1::WindowResult& window, uint32_t expected_window, uint64_t expected_ns,
                   const std::vector<std::string>& streams) {
  if (window.window() != expected_window) {
    return Bad("number " + std::to_string(window.window()) + " where " + std::to_string(expected_window) + " was due");
  }
  const v1::StepResult& r = window.result();
  IOFLEET_RETURN_IF_ERROR(CheckWindowFigures(r, expected_ns));
  // A step with streams: each stream's window once, in the step's order, whose figures add up
  // to the agent's (which the step's are), so no stream's row can say what the step did not.
  if (static_cast<size_t>(r.streams_size()) != streams.size()) {
    return Bad(std::to_string(r.streams_size()) + " streams where the step has " + std::to_string(streams.size()));
  }
  uint64_t ops = 0, bytes = 0;
  for (int k = 0; k < r.streams_size(); ++k) {
    const v1::StreamResult& stream = r.streams(k);
    if (stream.name() != streams[static_cast<size_t>(k)]) return Bad("stream " + std::to_string(k) + " is not the step's " + streams[static_cast<size_t>(k)]);
    if (stream.result().streams_size() > 0) return Bad("stream " + streams[static_cast<size_t>(k)] + " holds streams");
    if (Status ok = CheckWindowFigures(stream.result(), expected_ns); !ok.ok()) {
      return Status(ok.code(), "window: stream " + stream.name() + ": " + ok.message().substr(sizeof "window: " - 1));
    }
    ops += stream.result().ops();
    bytes += stream.result().bytes();
    if (ops < stream.result().ops() || bytes < stream.result().bytes()) return Bad("its streams' ops or bytes overflow");
  }
  if (r.streams_size() > 0 && (ops != r.ops() || bytes != r.bytes())) {
    return Bad("its streams' " + std::to_string(ops) + " ops and " + std::to_string(bytes) + " bytes are not its " + std::to_string(r.ops()) +
               " and " + std::to_string(r.bytes()));
  }
  return Status::Ok();
}

FleetCuts::FleetCuts(Fleet& fleet, std::string run_id, int step_index, bool bandwidth, uint64_t start_ns, uint64_t window_open_ns,
                     std::vector<std::string> streams)
    : fleet_(fleet), run_id_(std::move(run_id)), step_index_(step_index), bandwidth_(bandwidth), start_ns_(start_ns),
      streams_(std::move(streams)), last_cut_ns_(window_open_ns), windows_(fleet.size()) {}

void FleetCuts::OnWindow(size_t agent, const v1::WindowResult& window) {
  std::lock_guard lock(mu_);
  if (agent >= windows_.size()) return;
  if (Status ok = CheckWindow(window, cut_ - 1, expected_ns_, streams_); !ok.ok()) {
    if (error_.empty()) error_ = "agent " + fleet_[agent]->name + " sent a " + ok.message();
  } else {
    windows_[agent] = window;
  }
  arrived_.notify_all();
}

std::string FleetCuts::error() const {
  std::lock_guard lock(mu_);
  return error_;
}

void FleetCuts::Fail(const std::string& message) {
  std::lock_guard lock(mu_);
  if (error_.empty()) error_ = message;
}

bool FleetCuts::WaitReleased(const std::function<bool()>& give_up) {
  while (UnixNowNs() < start_ns_ + kReleasedNs) {
    if (give_up()) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

uint64_t FleetCuts::Lead() const {
  uint64_t max_rtt = 0;
  for (const auto& a : fleet_) max_rtt = std::max(max_rtt, a->rtt_ns);
  return std::max<uint64_t>(kMinLeadNs, 20 * max_rtt);
}

FleetWindow FleetCuts::Merge(bool paced) const {
  FleetWindow m;
  m.paced = paced;
  for (const auto& w : windows_) {
    const v1::StepResult& r = w->result();
    wire::AddFromProto(paced ? r.read().scheduled_latency_ns() : r.read().latency_ns(), *m.latency);
    wire::AddFromProto(paced ? r.write().scheduled_latency_ns() : r.write().latency_ns(), *m.latency);
    if (r.window_ns() > 0) m.rate += static_cast<double>(bandwidth_ ? r.bytes() : r.ops()) / (static_cast<double>(r.window_ns()) / 1e9);
    m.window_ns = std::max(m.window_ns, r.window_ns());
    m.ops += r.ops();
    m.bytes += r.bytes();
    m.agents.push_back(r);
    // CheckWindow saw every stream's window there, in the step's order.
    m.streams.resize(streams_.size());
    for (size_t k = 0; k < streams_.size() && k < static_cast<size_t>(r.streams_size()); ++k) {
      const v1::StepResult& s = r.streams(static_cast<int>(k)).result();
      StreamWindow& into = m.streams[k];
      wire::AddFromProto(paced ? s.read().scheduled_latency_ns() : s.read().latency_ns(), *into.latency);
      wire::AddFromProto(paced ? s.write().scheduled_latency_ns() : s.write().latency_ns(), *into.latency);
      if (s.window_ns() > 0) into.rate += static_cast<double>(bandwidth_ ? s.bytes() : s.ops()) / (static_cast<double>(s.window_ns()) / 1e9);
      into.ops += s.ops();
    }
  }
  return m;
}

std::optional<FleetWindow> FleetCuts::Cut(uint64_t at_ns, const Pace& pace, const std::function<bool()>& give_up, uint32_t queue_depth) {
  at_ns = std::max(at_ns, UnixNowNs() + Lead());  // never an instant the orders could miss
  {
    std::lock_guard lock(mu_);
    ++cut_;
    expected_ns_ = at_ns - last_cut_ns_;
    for (auto& w : windows_) w.reset();
  }
  const bool window_paced = paced_;
  std::vector<Status> ordered(fleet_.size());
  ForEachAgent(fleet_, [&](size_t i) {
    v1::CutWindowRequest request;
    request.set_run_id(run_id_);
    request.set_step_index(static_cast<uint32_t>(step_index_));
    request.set_cut(cut_);
    request.set_at_unix_ns(static_cast<uint64_t>(static_cast<int64_t>(at_ns) + fleet_[i]->clock_offset_ns));
    if (bandwidth_) request.set_rate_bytes_per_sec(pace.per_job);
    else request.set_rate_iops(pace.per_job);
    for (uint64_t per_job : pace.per_stream_job) {
      if (bandwidth_) request.add_stream_rate_bytes_per_sec(per_job);
      else request.add_stream_rate_iops(per_job);
    }
    request.set_queue_depth(queue_depth);
    if (queue_depth > 0) request.set_queue_depth_stream(queue_depth_stream_);
    ordered[i] = fleet_[i]->client->CutWindow(request, kCutDeadline);
  });
  paced_ = pace.paced();
  last_cut_ns_ = at_ns;
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (ordered[i].ok()) continue;
    Fail("agent " + fleet_[i]->name + " refused cut " + std::to_string(cut_) + ": " + ordered[i].message());
    return std::nullopt;
  }
  std::unique_lock lock(mu_);
  const auto all_in = [&] { return std::all_of(windows_.begin(), windows_.end(), [](const auto& w) { return w.has_value(); }); };
  while (!all_in() && error_.empty()) {
    if (give_up()) return std::nullopt;
    if (UnixNowNs() > at_ns + kWindowGraceNs) {
      error_ = "window " + std::to_string(cut_ - 1) + " did not come back from every agent within 10 s of its cut";
      return std::nullopt;
    }
    arrived_.wait_for(lock, milliseconds(20));
  }
  if (!error_.empty()) return std::nullopt;
  return Merge(window_paced);
}

}  // namespace iofleet::controller
