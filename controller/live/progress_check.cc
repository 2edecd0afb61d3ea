#include "controller/live/progress_check.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "core/base/sparse_histogram.h"

namespace iofleet::controller {
namespace {

Status Invalid(const std::string& message) { return Status(Code::kInvalidArgument, "progress: " + message); }

Status CheckDelta(const char* op, const v1::Histogram& h) {
  const std::string where = std::string(op) + ".latency_ns_delta";
  if (h.bucket_size() != h.count_size()) {
    return Invalid(where + ": " + std::to_string(h.bucket_size()) + " buckets but " + std::to_string(h.count_size()) + " counts");
  }
  uint64_t total = 0;
  for (int i = 0; i < h.bucket_size(); ++i) {
    if (h.bucket(i) >= LatencyHistogram::kBuckets) {
      return Invalid(where + ": bucket " + std::to_string(h.bucket(i)) + " out of range (0.." +
                     std::to_string(LatencyHistogram::kBuckets - 1) + ")");
    }
    if (h.count(i) > kMaxDeltaCount - total) return Invalid(where + ": counts add up to more than " + std::to_string(kMaxDeltaCount));
    total += h.count(i);
  }
  return Status();
}

Status CheckNotBackwards(const char* what, uint64_t now, uint64_t before) {
  if (now >= before) return Status();
  return Invalid(std::string(what) + " went backwards (" + std::to_string(before) + " -> " + std::to_string(now) + ")");
}

// A step with streams: each stream's counters and deltas, which add up to the step's exactly (the
// agent reads each stream once and sends the sum as the step's), and go on from the previous
// message's.
Status CheckStreams(const v1::Progress& now, const v1::Progress* before) {
  if (now.streams_size() == 0) return Status();
  if (now.streams_size() > kMaxProgressStreams) {
    return Invalid(std::to_string(now.streams_size()) + " streams: at most " + std::to_string(kMaxProgressStreams));
  }
  if (before && before->streams_size() != now.streams_size()) {
    return Invalid("streams: " + std::to_string(now.streams_size()) + " after " + std::to_string(before->streams_size()));
  }
  uint64_t ops = 0, bytes = 0, read_ops = 0, read_bytes = 0, write_ops = 0, write_bytes = 0, read_sum = 0, write_sum = 0;
  for (int k = 0; k < now.streams_size(); ++k) {
    const v1::StreamProgress& s = now.streams(k);
    if (Status d = CheckDelta("streams.read", s.read().latency_ns_delta()); !d.ok()) return d;
    if (Status d = CheckDelta("streams.write", s.write().latency_ns_delta()); !d.ok()) return d;
    // Saturating: a sum that would wrap cannot equal its total below, and is refused there.
    ops += std::min(s.ops(), UINT64_MAX - ops);
    bytes += std::min(s.bytes(), UINT64_MAX - bytes);
    read_ops += std::min(s.read().ops(), UINT64_MAX - read_ops);
    read_bytes += std::min(s.read().bytes(), UINT64_MAX - read_bytes);
    write_ops += std::min(s.write().ops(), UINT64_MAX - write_ops);
    write_bytes += std::min(s.write().bytes(), UINT64_MAX - write_bytes);
    read_sum += std::min(s.read().latency_ns_delta().sum(), UINT64_MAX - read_sum);
    write_sum += std::min(s.write().latency_ns_delta().sum(), UINT64_MAX - write_sum);
    if (before) {
      const v1::StreamProgress& b = before->streams(k);
      const std::pair<const char*, std::pair<uint64_t, uint64_t>> cumulative[] = {
          {"streams.ops", {s.ops(), b.ops()}},
          {"streams.bytes", {s.bytes(), b.bytes()}},
          {"streams.read.ops", {s.read().ops(), b.read().ops()}},
          {"streams.read.bytes", {s.read().bytes(), b.read().bytes()}},
          {"streams.write.ops", {s.write().ops(), b.write().ops()}},
          {"streams.write.bytes", {s.write().bytes(), b.write().bytes()}},
      };
      for (const auto& [what, values] : cumulative) {
        if (Status c = CheckNotBackwards(what, values.first, values.second); !c.ok()) return c;
      }
    }
  }
  const std::pair<const char*, std::pair<uint64_t, uint64_t>> totals[] = {
      {"ops", {ops, now.ops()}},
      {"bytes", {bytes, now.bytes()}},
      {"read.ops", {read_ops, now.read().ops()}},
      {"read.bytes", {read_bytes, now.read().bytes()}},
      {"write.ops", {write_ops, now.write().ops()}},
      {"write.bytes", {write_bytes, now.write().bytes()}},
      {"read.latency_ns_delta.sum", {read_sum, now.read().latency_ns_delta().sum()}},
      {"write.latency_ns_delta.sum", {write_sum, now.write().latency_ns_delta().sum()}},
  };
  for (const auto& [what, values] : totals) {
    if (values.first != values.second) {
      return Invalid(std::string("the streams' ") + what + " add up to " + std::to_string(values.first) + ", not the step's " +
                     std::to_string(values.second));
    }
  }
  return Status();
}

}  // namespace

Status CheckLatencySumFits(const v1::Progress& now, uint64_t sum_so_far) {
  for (const auto& [op, sum] : {std::pair{"read", now.read().latency_ns_delta().sum()}, std::pair{"write", now.write().latency_ns_delta().sum()}}) {
    if (sum > UINT64_MAX - sum_so_far) {
      return Invalid(std::string(op) + ".latency_ns_delta.sum " + std::to_string(sum) + " overflows the step's latency sum (" +
                     std::to_string(sum_so_far) + " so far)");
    }
    sum_so_far += sum;
  }
  return Status();
}

Status CheckProgress(const v1::Progress& now, const v1::Progress* before) {
  if (now.started_at_unix_ns() > static_cast<uint64_t>(INT64_MAX)) {
    return Invalid("started_at_unix_ns " + std::to_string(now.started_at_unix_ns()) + " is beyond the year 2262 (above INT64_MAX)");
  }
  if (Status s = CheckDelta("read", now.read().latency_ns_delta()); !s.ok()) return s;
  if (Status s = CheckDelta("write", now.write().latency_ns_delta()); !s.ok()) return s;
  if (Status s = CheckStreams(now, before); !s.ok()) return s;
  if (before == nullptr) return Status();
  const std::pair<const char*, std::pair<uint64_t, uint64_t>> cumulative[] = {
      {"ops", {now.ops(), before->ops()}},
      {"bytes", {now.bytes(), before->bytes()}},
      {"elapsed_ns", {now.elapsed_ns(), before->elapsed_ns()}},
      {"read.ops", {now.read().ops(), before->read().ops()}},
      {"read.bytes", {now.read().bytes(), before->read().bytes()}},
      {"write.ops", {now.write().ops(), before->write().ops()}},
      {"write.bytes", {now.write().bytes(), before->write().bytes()}},
      {"errors", {now.errors(), before->errors()}},
      {"ramp_ops", {now.ramp_ops(), before->ramp_ops()}},
      {"ramp_bytes", {now.ramp_bytes(), before->ramp_bytes()}},
  };
  for (const auto& [what, values] : cumulative) {
    if (Status s = CheckNotBackwards(what, values.first, values.second); !s.ok()) return s;
  }
  return Status();
}

}  // namespace iofleet::controller
