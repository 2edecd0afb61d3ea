#include "controller/live/progress_check.h"

#include <cstdint>
#include <string>
#include <utility>

#include "core/base/histogram.h"

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
