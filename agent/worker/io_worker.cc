#include "agent/worker/io_worker.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "agent/worker/verify_header.h"
#include "core/base/clock.h"

namespace iofleet::agent {

namespace {
constexpr uint64_t kLongestSleepNs = 100'000'000;
// A step cut into windows: a job waiting for a completion looks for a new cut this often, so
// that a stalled device does not hide an order (the controller orders cuts 200 ms ahead).
constexpr uint64_t kCutPollNs = 20'000'000;

void SnapshotOp(const OpCounters& from, const uint64_t (&extremes)[4], OpSnapshot& to) noexcept {
  to.ops = from.ops.load(std::memory_order_relaxed);
  to.bytes = from.bytes.load(std::memory_order_relaxed);
  to.latency = from.latency;  // copies into the snapshot's own buckets: no allocation
  to.scheduled = from.scheduled;
  to.latency_min = extremes[0];
  to.latency_max = extremes[1];
  to.scheduled_min = extremes[2];
  to.scheduled_max = extremes[3];
}
}  // namespace

ThreadCpu ReadThreadCpu() noexcept {
  ThreadCpu c;
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  c.total_ns = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  c.ru_user_ns = static_cast<uint64_t>(ru.ru_utime.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ru.ru_utime.tv_usec) * 1000;
  c.ru_sys_ns = static_cast<uint64_t>(ru.ru_stime.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ru.ru_stime.tv_usec) * 1000;
  return c;
}

// The total's difference is exact; getrusage's times lag a running thread by up to a tick, so
// their differences (each monotonic) only split it. Where they did not tick at all, the split is
// unknown and the time counts as system time.
void SplitThreadCpu(const ThreadCpu& from, const ThreadCpu& to, uint64_t& user, uint64_t& sys) noexcept {
  const uint64_t total = to.total_ns > from.total_ns ? to.total_ns - from.total_ns : 0;
  const uint64_t ru_user = to.ru_user_ns > from.ru_user_ns ? to.ru_user_ns - from.ru_user_ns : 0;
  const uint64_t ru_sys = to.ru_sys_ns > from.ru_sys_ns ? to.ru_sys_ns - from.ru_sys_ns : 0;
  user = ru_user + ru_sys ? static_cast<uint64_t>(static_cast<double>(total) * static_cast<double>(ru_user) /
                                                  static_cast<double>(ru_user + ru_sys))
                          : 0;
  user = std::min(user, total);
  sys = total - user;
}

IoWorker::IoWorker(const JobPlan& plan, IoEngine& engine, JobStats& stats, std::span<IoRequest> requests,
                   std::span<Completion> completions, std::span<std::byte* const> buffers, DataGenerator* data)
    : plan_(plan), engine_(engine), stats_(stats), requests_(requests), completions_(completions),
      data_(data), sequence_(plan.sequence), free_(plan.queue_depth), scheduled_(plan.queue_depth),
      depth_(plan.queue_depth), pacer_(plan.rate_ns_per_io, plan.rate_ns_per_byte, plan.poisson, plan.pacer_seed) {
  for (uint32_t slot = 0; slot < plan_.queue_depth; ++slot) {
    IoRequest& r = requests_[slot];
    r.slot = slot;
    r.fd = plan_.fd;
    r.buffer = buffers[slot];
    free_[free_count_++] = plan_.queue_depth - 1 - slot;  // slot 0 is used first
  }
}

void IoWorker::Fail(int err, uint64_t offset) noexcept {
  if (failed_) return;
  failed_ = true;
  stats_.error = err;
  stats_.error_offset = offset;
}

void IoWorker::CountError(int err, uint64_t offset, OpCounters& op) noexcept {
  if (!plan_.continue_on_error) {
    Fail(err, offset);
    return;
  }
  Bump(op.errors[err > 0 && err < kErrnoSlots ? err : kVerifySlot], 1);
}

bool IoWorker::IssueOne() noexcept {
  IoChoice choice;
  if (io_limited_ && issued_bytes_ >= plan_.io_limit_bytes) return false;
  if (!sequence_.Next(choice)) {
    if (!time_based_ && !io_limited_ && sequence_.passes_started() >= plan_.loops) return false;
    sequence_.NextPass();  // time-based, io_size or loops to go: wrap around and go on
    if (!sequence_.Next(choice)) return false;  // no block at all: refused in Run
  }
  if (io_limited_) issued_bytes_ += choice.length;
  ++stats_.issued;
  uint32_t slot = free_[--free_count_];
  IoRequest& r = requests_[slot];
  r.offset = choice.offset;
  r.length = choice.length;
  r.dir = choice.dir;
  r.done = 0;
  if (r.dir == IoDir::kWrite) {
    if (data_) data_->Stamp(r.buffer, r.length);
    if (plan_.verify) WriteVerifyHeader(r.buffer, r.length, r.offset, plan_.run_token);
  }
  if (rate_limited_) scheduled_[slot] = pacer_.Release(r.length);
  // Latency runs from here (DESIGN.md section 5): after our own work on the request (stamping,
  // the verify CRC) and after earlier submits of this refill, just before it goes to the kernel.
  r.issue_ns = MonotonicNs();
  int rc = engine_.Enqueue(r);
  if (rc < 0) {
    free_[free_count_++] = slot;
    Fail(-rc, r.offset);
    return false;
  }
  ++inflight_;
  Bump(CountersOf(r.dir).submitted, 1);
  if (++staged_ >= plan_.submit_batch) return SubmitStaged();
  return true;
}

bool IoWorker::SubmitStaged() noexcept {
  const uint32_t staged = staged_;
  staged_ = 0;
  int submitted = engine_.Submit();
  if (submitted < 0) {
    Fail(-submitted, 0);
    inflight_ -= std::min(inflight_, staged);  // what was staged never reached the kernel
    submit_failed_ = true;
    return false;
  }
  return true;
}

// After an error ends the loop, requests may still be in flight: their buffers must not be freed
// (nor the file closed) before the kernel is done with them. Their results no longer count.
void IoWorker::Drain() noexcept {
  if (staged_ > 0) SubmitStaged();  // resubmitted rests of short transfers
  while (inflight_ > 0) {
    int n = engine_.Reap(completions_, 1, -1);
    if (n <= 0) break;  // the engine has nothing left to hand out
    inflight_ -= std::min<uint32_t>(inflight_, static_cast<uint32_t>(n));
  }
}

void IoWorker::Fsync(uint64_t& now) noexcept {
  int rc = plan_.fdatasync ? fdatasync(plan_.fd) : fsync(plan_.fd);
  uint64_t done = MonotonicNs();
  if (rc < 0) {
    CountError(errno, 0, stats_.write);
  } else {
    Bump(stats_.fsyncs, 1);
    stats_.fsync_latency.Record(done - now);
    if (done >= window_start_) stats_.last_completion_ns.store(done, std::memory_order_relaxed);
  }
  now = done;
}

void IoWorker::Think(uint64_t done, uint64_t now) noexcept {
  since_think_ += done;
  if (since_think_ < plan_.think_blocks) return;
  since_think_ = 0;
  think_until_ = now + plan_.think_ns;
  spin_until_ = now + plan_.think_spin_ns;
}

// fio's check_min_rate: what the cycle moved, per second, against the minimum. The cycle ends
// at the first look past its end, so a late look measures over a longer span, never a shorter.
void IoWorker::CheckRateMin(uint64_t now) noexcept {
  const uint64_t ops = stats_.read.ops.load(std::memory_order_relaxed) + stats_.write.ops.load(std::memory_order_relaxed);
  const uint64_t bytes = stats_.read.bytes.load(std::memory_order_relaxed) + stats_.write.bytes.load(std::memory_order_relaxed);
  const uint64_t cycle_start = next_rate_check_ - plan_.rate_cycle_ns;
  const double seconds = static_cast<double>(now - cycle_start) / 1e9;
  const double per_sec = plan_.min_iops ? static_cast<double>(ops - rate_check_ops_) / seconds
                                        : static_cast<double>(bytes - rate_check_bytes_) / seconds;
  const uint64_t floor = plan_.min_iops ? plan_.min_iops : plan_.min_bytes_per_sec;
  if (per_sec < static_cast<double>(floor) && !failed_) {
    failed_ = true;
    stats_.below_rate_min = true;
    stats_.rate_min_cycle_from_ns = cycle_start - window_start_;
    stats_.rate_min_cycle_to_ns = now - window_start_;
    stats_.rate_min_achieved = per_sec;
    return;
  }
  rate_check_ops_ = ops;
  rate_check_bytes_ = bytes;
  next_rate_check_ = now + plan_.rate_cycle_ns;
}

void IoWorker::LookForCut() noexcept {
  if (cut_at_ != UINT64_MAX) return;
  if (const CutOrder* order = plan_.cuts->Ordered(next_cut_)) {
    cut_order_ = *order;
    cut_at_ = order->at_ns;
  }
}

// The window's counters go to the snapshot, then the cut's number is published; the new pace
// runs from the cut's instant, so a job that saw it late is late on its new schedule too.
void IoWorker::MakeCut() noexcept {
  WindowSnapshot& snap = *plan_.snapshot;
  for (int d = 0; d < 2; ++d) {
    const WindowExtremes& e = extremes_[d];
    const uint64_t extremes[4] = {e.latency_min, e.latency_max, e.scheduled_min, e.scheduled_max};
    SnapshotOp(d == 0 ? stats_.read : stats_.write, extremes, d == 0 ? snap.read : snap.write);
    extremes_[d] = WindowExtremes{};
  }
  snap.at_ns = cut_at_;
  snap.cuts_done.store(next_cut_, std::memory_order_release);
  const bool was_limited = rate_limited_;
  pacer_.SetRate(cut_order_.ns_per_io, cut_order_.ns_per_byte);
  // A lower depth takes effect as requests complete: none in flight is withdrawn.
  depth_ = cut_order_.queue_depth > 0 ? std::min(cut_order_.queue_depth, plan_.queue_depth) : plan_.queue_depth;
  pacer_.Start(cut_at_);
  rate_limited_ = pacer_.limited();
  paced_ = rate_limited_ || rate_min_ || think_;
  // Requests issued unpaced had no schedule: theirs is when they went out.
  if (rate_limited_ && !was_limited) {
    for (uint32_t slot = 0; slot < plan_.queue_depth; ++slot) scheduled_[slot] = requests_[slot].issue_ns;
  }
  ++next_cut_;
  cut_at_ = UINT64_MAX;
}

void IoWorker::Complete(const Completion& c, uint64_t now) noexcept {
  IoRequest& r = requests_[c.slot];
  OpCounters& op = CountersOf(r.dir);
  --inflight_;
  if (c.result < 0) {
    Bump(op.reaped, 1);
    CountError(static_cast<int>(-c.result), r.offset + r.done, op);
    free_[free_count_++] = c.slot;
    return;
  }
  uint32_t remaining = r.length - r.done;
  if (static_cast<uint64_t>(c.result) < remaining) {
    if (c.result == 0) {  // end of file where data was expected
      Bump(op.reaped, 1);
      CountError(r.dir == IoDir::kRead ? ENODATA : EIO, r.offset + r.done, op);
      free_[free_count_++] = c.slot;
      return;
    }
    // A short transfer is completed, not an error: send the rest, keep the issue time.
    r.done += static_cast<uint32_t>(c.result);
    int rc = engine_.Enqueue(r);
    if (rc < 0) {
      Bump(op.reaped, 1);
      Fail(-rc, r.offset + r.done);
      free_[free_count_++] = c.slot;
    } else {
      ++inflight_;
      ++staged_;  // submitted before the next reap
    }
    return;
  }
  Bump(op.reaped, 1);
  if (plan_.verify && r.dir == IoDir::kRead) {
    VerifyResult v = CheckVerifyHeader(r.buffer, r.length, r.offset, plan_.run_token);
    if (v.failure != VerifyFailure::kNone) {
      if (!plan_.continue_on_error && !failed_) {
        stats_.verify_failure = static_cast<uint8_t>(v.failure);
        stats_.verify_found = v.found;
        stats_.verify_expected = v.expected;
      }
      CountError(0, r.offset, op);
      free_[free_count_++] = c.slot;
      return;
    }
  }
  if (now >= window_start_ && now <= window_end_) {
    const uint64_t latency = now - r.issue_ns;
    op.Record(r.length, latency);
    if (rate_limited_) op.scheduled.Record(now - scheduled_[c.slot]);
    if (plan_.snapshot) {
      WindowExtremes& e = extremes_[r.dir == IoDir::kRead ? 0 : 1];
      e.latency_min = std::min(e.latency_min, latency);
      e.latency_max = std::max(e.latency_max, latency);
      if (rate_limited_) {
        const uint64_t late = now - scheduled_[c.slot];
        e.scheduled_min = std::min(e.scheduled_min, late);
        e.scheduled_max = std::max(e.scheduled_max, late);
      }
    }
    stats_.last_completion_ns.store(now, std::memory_order_relaxed);
  } else if (now < window_start_) {  // the ramp: shown live, never in the figures
    Bump(op.ramp_ops, 1);
    Bump(op.ramp_bytes, r.length);
  }
  free_[free_count_++] = c.slot;
}

void IoWorker::Run(uint64_t start_ns, const std::atomic<bool>& stop) noexcept {
  time_based_ = plan_.runtime_ns > 0;
  io_limited_ = plan_.io_limit_bytes > 0 && !time_based_;
  reap_max_ = std::clamp<size_t>(plan_.complete_batch, 1, completions_.size());
  rate_limited_ = pacer_.limited();
  rate_min_ = plan_.min_bytes_per_sec > 0 || plan_.min_iops > 0;
  think_ = plan_.think_ns > 0;
  flow_ = plan_.flow != nullptr;
  paced_ = rate_limited_ || rate_min_ || think_ || flow_;
  window_start_ = start_ns + plan_.ramp_ns;
  window_end_ = time_based_ ? window_start_ + plan_.runtime_ns : UINT64_MAX;
  const uint64_t issue_end = time_based_ ? window_end_
                             : plan_.deadline_ns ? start_ns + plan_.deadline_ns : UINT64_MAX;
  pacer_.Start(start_ns);
  if (rate_min_) next_rate_check_ = window_start_ + plan_.rate_cycle_ns;

  if (plan_.sequence.slots == 0) {  // a range without a block (the plan checks refuse it)
    Fail(EINVAL, plan_.sequence.base);
    return;
  }
  ThreadCpu cpu_at_open, cpu_at_close;
  bool window_open = false;
  bool window_closed = false;
  uint64_t now = MonotonicNs();
  stats_.first_issue_ns = now;
  bool issuing = true;
  const bool cut = plan_.cuts != nullptr && plan_.snapshot != nullptr;
  while (true) {
    if (cut) MaybeCut(now);
    if (!window_open && now >= window_start_) {
      window_open = true;
      cpu_at_open = ReadThreadCpu();
    }
    if (window_open && !window_closed && now > window_end_) {
      window_closed = true;
      cpu_at_close = ReadThreadCpu();
    }
    bool waiting = false;  // for the pacer's next scheduled time
    while (issuing && free_count_ > 0 && inflight_ < depth_) {
      if (paced_ && (HeldUntil() > now || (flow_ && !TakeFlowTurn(now)))) {
        waiting = true;
        break;
      }
      if (!IssueOne()) {
        issuing = false;
        break;
      }
    }
    if (inflight_ == 0) {
      if (!issuing) break;
      if (waiting) {
        if (spin_until_ > now) {  // thinktime_spin: on the CPU, as an application computing
          const uint64_t spin_end = std::min(spin_until_, HeldUntil());
          while ((now = MonotonicNs()) < spin_end && !stop.load(std::memory_order_relaxed)) {
          }
          issuing = now < issue_end && !stop.load(std::memory_order_relaxed);
          continue;
        }
        // Asleep until the hold ends, but not past the time to stop issuing, and awake every
        // 100 ms to see a stop: a rate of one request in 3 s must not outlive its runtime.
        const uint64_t wake = std::min({HeldUntil(), issue_end, now + kLongestSleepNs, cut ? std::min(cut_at_, now + kCutPollNs) : UINT64_MAX});
        timespec until{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
        now = MonotonicNs();
        issuing = now < issue_end && !stop.load(std::memory_order_relaxed);
        continue;
      }
    }
    if (submit_failed_ || (staged_ > 0 && !SubmitStaged())) break;
    int64_t timeout = waiting ? static_cast<int64_t>(HeldUntil() - now) : -1;
    // A job under a minimum rate looks at its clock at each cycle's end even while nothing
    // completes: a stalled device is a rate of zero, not a wait without end.
    if (paced_ && rate_min_ && next_rate_check_ != UINT64_MAX) {
      const int64_t to_check = next_rate_check_ > now ? static_cast<int64_t>(next_rate_check_ - now) : 0;
      timeout = timeout < 0 ? to_check : std::min(timeout, to_check);
    }
    if (cut) {
      const uint64_t until = std::min(cut_at_, now + kCutPollNs);
      const int64_t to_cut = until > now ? static_cast<int64_t>(until - now) : 0;
      timeout = timeout < 0 ? to_cut : std::min(timeout, to_cut);
    }
    int n = engine_.Reap(completions_.first(reap_max_), 1, timeout);
    if (n < 0) {
      Fail(-n, 0);
      break;
    }
    now = MonotonicNs();
    if (cut) MaybeCut(now);
    if (paced_ && think_ && n > 0) Think(static_cast<uint64_t>(n), now);
    for (int i = 0; i < n; ++i) {
      const Completion& c = completions_[i];
      const bool write = requests_[c.slot].dir == IoDir::kWrite;
      Complete(c, now);
      if (write && plan_.fsync_every && ++writes_since_fsync_ >= plan_.fsync_every) {
        writes_since_fsync_ = 0;
        Fsync(now);
      }
    }
    if (paced_ && rate_min_ && now >= next_rate_check_ && now <= window_end_) CheckRateMin(now);
    issuing = issuing && !failed_ && now < issue_end && !stop.load(std::memory_order_relaxed);
  }
  Drain();
  // Drained requests are not reaped one by one: nothing is in flight any more.
  stats_.read.reaped.store(stats_.read.submitted.load(std::memory_order_relaxed), std::memory_order_relaxed);
  stats_.write.reaped.store(stats_.write.submitted.load(std::memory_order_relaxed), std::memory_order_relaxed);
  if (plan_.fsync_at_end && !failed_) Fsync(now);
  if (!window_closed) cpu_at_close = ReadThreadCpu();
  if (window_open) SplitThreadCpu(cpu_at_open, cpu_at_close, stats_.cpu_user_ns, stats_.cpu_sys_ns);
  else stats_.cpu_user_ns = stats_.cpu_sys_ns = 0;
  stats_.passes = sequence_.passes_started() - 1 + (sequence_.index_in_pass() == plan_.sequence.slots ? 1 : 0);
}

}  // namespace iofleet::agent
