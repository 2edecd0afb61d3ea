#include "agent/run/progress_sampler.h"

namespace iofleet::agent {

void HistogramDelta(const LatencyHistogram& before, const LatencyHistogram& now, v1::Histogram& out) {
  for (uint32_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    const uint64_t was = before.bucket_count(b), is = now.bucket_count(b);
    if (is <= was) continue;
    out.add_bucket(b);
    out.add_count(is - was);
  }
  if (now.sum() > before.sum()) out.set_sum(now.sum() - before.sum());
}

v1::Progress ProgressSampler::Next() {
  v1::Progress p = runner_.Progress();
  if (!p.has_read() && !p.has_write()) return p;  // a files or copy step: totals only
  auto read = std::make_unique<LatencyHistogram>();
  auto write = std::make_unique<LatencyHistogram>();
  runner_.MergeLatency(*read, *write);
  HistogramDelta(*sent_read_, *read, *p.mutable_read()->mutable_latency_ns_delta());
  HistogramDelta(*sent_write_, *write, *p.mutable_write()->mutable_latency_ns_delta());
  sent_read_ = std::move(read);
  sent_write_ = std::move(write);
  return p;
}

}  // namespace iofleet::agent
