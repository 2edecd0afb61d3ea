#include "agent/run/progress_sampler.h"

#include <algorithm>

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
  // A step with streams: each stream's histograms are read once, and the step's are their sum,
  // so that the streams' deltas add up to the step's exactly (the controller checks they do).
  const size_t streams = std::min<size_t>(runner_.streams(), static_cast<size_t>(p.streams_size()));
  for (size_t k = sent_stream_read_.size(); k < streams; ++k) {
    sent_stream_read_.push_back(std::make_unique<LatencyHistogram>());
    sent_stream_write_.push_back(std::make_unique<LatencyHistogram>());
  }
  for (size_t k = 0; k < streams; ++k) {
    auto stream_read = std::make_unique<LatencyHistogram>();
    auto stream_write = std::make_unique<LatencyHistogram>();
    runner_.MergeStreamLatency(k, *stream_read, *stream_write);
    v1::StreamProgress& s = *p.mutable_streams(static_cast<int>(k));
    HistogramDelta(*sent_stream_read_[k], *stream_read, *s.mutable_read()->mutable_latency_ns_delta());
    HistogramDelta(*sent_stream_write_[k], *stream_write, *s.mutable_write()->mutable_latency_ns_delta());
    read->Add(*stream_read);
    write->Add(*stream_write);
    sent_stream_read_[k] = std::move(stream_read);
    sent_stream_write_[k] = std::move(stream_write);
  }
  if (streams == 0) runner_.MergeLatency(*read, *write);
  HistogramDelta(*sent_read_, *read, *p.mutable_read()->mutable_latency_ns_delta());
  HistogramDelta(*sent_write_, *write, *p.mutable_write()->mutable_latency_ns_delta());
  sent_read_ = std::move(read);
  sent_write_ = std::move(write);
  return p;
}

}  // namespace iofleet::agent
