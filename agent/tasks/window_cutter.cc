#include "agent/tasks/window_cutter.h"

#include <algorithm>
#include <string>

#include "core/wire/histogram_proto.h"

namespace iofleet::agent {
namespace {

// Adds what `now` holds beyond `before` (the same job's counters at the cut before) into `into`,
// with the window's own extremes.
void AddDelta(const LatencyHistogram& now, const LatencyHistogram& before, uint64_t min, uint64_t max,
              LatencyHistogram& into) {
  for (uint32_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    const uint64_t n = now.bucket_count(b), was = before.bucket_count(b);
    if (n > was) into.AddBucket(b, n - was);
  }
  into.AddSummary(now.sum() - std::min(now.sum(), before.sum()), min, max);
}

// One direction of every job, as the window's OpStats; the latency of both directions goes to
// `all` as well.
void AddOp(const OpSnapshot& now, const OpSnapshot& before, LatencyHistogram& latency, LatencyHistogram& scheduled,
           v1::OpStats& out) {
  out.set_ops(out.ops() + now.ops - std::min(now.ops, before.ops));
  out.set_bytes(out.bytes() + now.bytes - std::min(now.bytes, before.bytes));
  AddDelta(now.latency, before.latency, now.latency_min, now.latency_max, latency);
  AddDelta(now.scheduled, before.scheduled, now.scheduled_min, now.scheduled_max, scheduled);
}

}  // namespace

WindowCutter::WindowCutter(size_t jobs, uint32_t queue_depth) : queue_depth_(queue_depth) {
  for (size_t j = 0; j < jobs; ++j) {
    snapshots_.push_back(std::make_unique<WindowSnapshot>());
    previous_.push_back(std::make_unique<WindowSnapshot>());
  }
}

Status WindowCutter::Order(uint32_t number, uint64_t at_ns, uint64_t now_ns, const v1::CutWindowRequest& load) {
  const uint64_t rate_iops = load.rate_iops(), rate_bytes_per_sec = load.rate_bytes_per_sec();
  std::lock_guard lock(mu_);
  const uint64_t open = open_ns_.load(std::memory_order_acquire);
  const uint32_t ordered = cuts_.ordered();
  if (number != ordered + 1) {
    return FailedPrecondition("cut " + std::to_string(number) + " out of turn: the next is " + std::to_string(ordered + 1));
  }
  if (taken_ != ordered) return FailedPrecondition("cut " + std::to_string(number) + " before window " + std::to_string(ordered - 1) + " came back");
  // An agent left without a job (total_jobs) has no window to open: its cuts are empty.
  if (open == 0 && !snapshots_.empty()) return FailedPrecondition("cut " + std::to_string(number) + " before the step's window opened");
  if (rate_iops > 0 && rate_bytes_per_sec > 0) return InvalidArgument("cut " + std::to_string(number) + ": a rate in IOPS and in bytes");
  if (load.queue_depth() > queue_depth_) {
    return InvalidArgument("cut " + std::to_string(number) + ": queue depth " + std::to_string(load.queue_depth()) +
                           " is more than the step's " + std::to_string(queue_depth_));
  }
  const uint64_t previous = std::max(open, last_cut_ns_);
  if (at_ns <= previous || at_ns <= now_ns) {
    return InvalidArgument("cut " + std::to_string(number) + " is not after the window it closes began and ahead of now");
  }
  CutOrder order;
  order.at_ns = at_ns;
  order.queue_depth = load.queue_depth();
  if (rate_iops > 0) order.ns_per_io = 1e9 / static_cast<double>(rate_iops);
  if (rate_bytes_per_sec > 0) order.ns_per_byte = 1e9 / static_cast<double>(rate_bytes_per_sec);
  last_paced_ = paced_;
  paced_ = rate_iops > 0 || rate_bytes_per_sec > 0;
  last_cut_ns_ = at_ns;
  cuts_.Order(number, order);
  return Status::Ok();
}

std::optional<v1::WindowResult> WindowCutter::Take() {
  std::lock_guard lock(mu_);
  const uint32_t ordered = cuts_.ordered();
  if (taken_ == ordered) return std::nullopt;
  for (const auto& s : snapshots_) {
    if (s->cuts_done.load(std::memory_order_acquire) < ordered) return std::nullopt;
  }
  // 30 KiB each: on the heap, once per window, on this thread.
  auto read_latency = std::make_unique<LatencyHistogram>(), read_scheduled = std::make_unique<LatencyHistogram>();
  auto write_latency = std::make_unique<LatencyHistogram>(), write_scheduled = std::make_unique<LatencyHistogram>();
  v1::WindowResult out;
  out.set_window(ordered - 1);
  v1::StepResult& r = *out.mutable_result();
  uint64_t from = 0, to = 0;
  for (size_t j = 0; j < snapshots_.size(); ++j) {
    const WindowSnapshot& now = *snapshots_[j];
    WindowSnapshot& before = *previous_[j];
    AddOp(now.read, before.read, *read_latency, *read_scheduled, *r.mutable_read());
    AddOp(now.write, before.write, *write_latency, *write_scheduled, *r.mutable_write());
    from = before.at_ns;
    to = now.at_ns;
    before.read = now.read;
    before.write = now.write;
    before.at_ns = now.at_ns;
  }
  if (ordered == 1) from = open_ns_.load(std::memory_order_acquire);
  r.set_window_ns(to > from ? to - from : 0);
  r.set_ops(r.read().ops() + r.write().ops());
  r.set_bytes(r.read().bytes() + r.write().bytes());
  r.set_rate_limited(last_paced_);
  LatencyHistogram& all = *read_latency;
  wire::ToProto(*read_latency, r.mutable_read()->mutable_latency_ns());
  wire::ToProto(*write_latency, r.mutable_write()->mutable_latency_ns());
  if (last_paced_) {
    wire::ToProto(*read_scheduled, r.mutable_read()->mutable_scheduled_latency_ns());
    wire::ToProto(*write_scheduled, r.mutable_write()->mutable_scheduled_latency_ns());
  }
  all.Add(*write_latency);
  wire::ToProto(all, r.mutable_latency_ns());
  taken_ = ordered;
  return out;
}

}  // namespace iofleet::agent
